// `benchledger detect` (docs/history.md): the change points of each series, with the runs they
// fall on and whether each is a regression or an improvement for the metric's direction.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <benchledger/config.hpp>

#include "ledger/history.hpp"
#include "stats/change_points.hpp"

namespace benchledger::compare {

struct DetectOptions {
  stats::ChangePointOptions method;  // min_magnitude is set per case from the two below
  std::optional<double> min_change;  // fraction; default: the case's threshold from the config
  Config config;
  double fallback_threshold = 5.0;  // percent, when the config names none for a bench
};

struct DetectedChange {
  // 0-based position in the series: the first run after the change. Outputs show it 1-based
  // (index + 1), with the run's id.
  std::size_t index = 0;
  std::string run_id, time;
  std::optional<std::string> commit;
  bool dirty = false;
  double before = 0, after = 0;  // mean centre of the segments either side
  double change = 0;             // stats::relative_change(before, after); 0 from a 0 before
  double p = 1;
  bool regression = false;  // worse in the metric's direction; else an improvement
};

struct CaseChanges {
  std::string bench;
  Params params;
  std::string metric, unit;
  Better better = Better::lower;
  std::size_t points = 0;
  std::vector<DetectedChange> changes;
  // Why the series can hold no change point at all, or empty: too few runs for the test to
  // reach the significance level (`cannot reach significance at p < 0.001 with 12 runs: the
  // smallest attainable p, a split of 6 runs against 6, is 0.00216; need >= 14 runs`).
  std::string remark;
};

// The change points of one series. Throws Error from stats::e_divisive_change_points.
CaseChanges detect_changes(const ledger::Series& series, const DetectOptions& options);

// One entry per series, in their order. Throws Error from stats::e_divisive_change_points.
std::vector<CaseChanges> detect_changes(const std::vector<ledger::Series>& series,
                                        const DetectOptions& options);

// Whether a change that is a regression lies in the newest `recent` runs of its series.
bool recent_regression(const CaseChanges& changes, std::size_t recent);

}  // namespace benchledger::compare
