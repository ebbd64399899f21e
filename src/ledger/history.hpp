// `benchledger history`: the series of each case's metric across the runs a SeriesQuery selects,
// oldest first, with the run's commit and each run's centre and its interval.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <benchledger/ledger.hpp>
#include <benchledger/record.hpp>

namespace benchledger::ledger {

// One run's value of a case's metric: a point of `history`, `detect` and the report's trends.
struct SeriesPoint {
  std::string run_id;
  std::string time;                   // the run's time
  std::optional<std::string> label;   // the run's label
  std::optional<std::string> commit;  // the run's git commit, when recorded
  bool dirty = false;                 // made from uncommitted changes
  double centre = 0;                  // the metric's value: the median of its samples
  double low = 0, high = 0;           // 95% interval of the median (stats::median_interval)
  double min = 0, max = 0;            // the metric's recorded range (the centre without samples)
  std::int64_t samples = 1;           // samples behind the centre (1 for a single value)
  std::vector<double> values;         // the samples themselves (the centre alone if none)
};

// The point of `metric` in the run `run_id`, whose time, label and git state are given apart (a
// reader may keep only those of each run).
SeriesPoint series_point(const std::string& run_id, const std::string& time,
                         const std::optional<std::string>& label, const GitState& git,
                         const Metric& metric);

// A case's metric across runs, oldest first. A change of unit starts another series.
struct Series {
  std::string bench;
  Params params;
  std::string metric;
  std::string unit;
  Better better = Better::lower;
  std::vector<SeriesPoint> points;
};

struct HistoryOptions {
  SeriesQuery query;
  std::optional<std::string> metric;  // default: each result's primary metric
  std::size_t last = 0;               // keep each series' newest `last` points; 0 keeps all
};

// Every matching series in the order its case first appears, each point from a result that has
// the metric; results and runs that an `invalidate` note targets are left out. Memory holds the
// series (at most `last` points each) and the notes. Throws Error (a bad --since) and what the
// store throws.
std::vector<Series> collect_series(const Store& store, const HistoryOptions& options);

}  // namespace benchledger::ledger
