// `benchledger history`: the series of each case's metric across the runs a SeriesQuery selects,
// oldest first, with the run's commit and each run's centre and its interval.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <benchledger/ledger.hpp>
#include <benchledger/record.hpp>

#include "ledger/store_scans.hpp"

namespace benchledger::ledger {

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
  // Whether each point needs its samples (`detect` does); without, a store that keeps points in
  // columns (scan_points) serves the series from those, and `values` stays empty.
  bool samples = false;
  // The runs whose history the series are (a report's runs): each series ends with the newest
  // of them in the order appended, leaving out the results appended after that run's last one,
  // so that a report of older runs shows no later one. A run the ledger does not hold (with no
  // result the query selects) counts as newer than every run it holds: then nothing is left
  // out. Empty: the series run to the end of the ledger.
  std::vector<std::string> through_runs;
};

// Every matching series in the order its case first appears, each point from a result that has
// the metric; results and runs that an `invalidate` note targets are left out. Memory holds the
// series (at most `last` points each) and the notes. With `through_runs`, a store that keeps
// points in columns is read twice (the first time for where the series end). Throws Error (a bad
// --since) and what the store throws.
std::vector<Series> collect_series(const Store& store, const HistoryOptions& options);

// Returns when `series`, collect_series' answer to `options`, is not empty and every CASE glob
// of the query has a series. Otherwise throws Error naming what matched nothing: the ledger
// (`ledger x.ndjson does not exist`, `… holds no run`), the run filters (`no run of ledger
// x.ndjson matches --label nightly --since 2999-01-01`), each glob without a series (`CASE
// "nothing/*" matches no case of ledger x.ndjson`, or, where its results lack the metric or are
// invalidated, says so). Reads the store again: meant for when the answer is short.
void require_series(const Store& store, const HistoryOptions& options,
                    const std::vector<Series>& series);

}  // namespace benchledger::ledger
