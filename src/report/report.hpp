// `benchledger report`: the Markdown that people write by hand about their benchmarks, and a
// self-contained HTML page with charts, both made from ledger records (docs/report.md).
//
// The renderers are pure: the same ReportInput gives the same bytes, and nothing in them reads
// the clock, the environment or the network. The date a report shows is the time of its newest
// run record. collect_trends() is the only part that reads a store.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <benchledger/ledger.hpp>
#include <benchledger/record.hpp>

#include "compare/change_detection.hpp"
#include "compare/comparison.hpp"
#include "compare/explain.hpp"
#include "ledger/history.hpp"

namespace benchledger::report {

// One run with its results, as appended.
struct RunData {
  RunRecord run;
  std::vector<ResultRecord> results;
};

// A series of a reported case's primary metric across the last runs of the ledger that measured
// it, oldest first, as `benchledger history` gives it (one series per case, metric and unit): its
// points are charted, the centre with min to max as whiskers.
struct Trend {
  ledger::Series series;
  // The change points among the series' points, as `benchledger detect` finds them
  // (mark_change_points).
  std::vector<compare::DetectedChange> changes;
};

// The comparison of one reported run against the --against run, as compare made it.
struct ComparisonSection {
  std::string current_run_id;
  compare::ComparisonReport report;
  // Where its regressed cases' instructions went (compare::explain_regressions): HTML draws a
  // chart a case that both runs profiled. Nothing when no case regressed.
  std::optional<compare::RegressionProfiles> profiles = std::nullopt;
};

struct ReportInput {
  std::vector<RunData> runs;    // the reported runs, in the order asked for; not empty
  std::optional<RunData> base;  // the --against run
  std::vector<ComparisonSection> comparisons;  // with base: one per reported run
  // One per case of the reported runs: charts in HTML, their change points in both forms.
  std::vector<Trend> trends;
  std::size_t history = 20;           // how many runs a trend covers at most
  std::vector<std::string> warnings;  // from reading the ledger (torn tail, skipped records)
};

// The report as GitHub-flavoured Markdown. Throws Error when input.runs is empty.
std::string render_markdown(const ReportInput& input);

// The same content as one HTML file: inline CSS and SVG, no script, nothing fetched.
// Throws Error when input.runs is empty.
std::string render_html(const ReportInput& input);

// The trends of every case of `runs`: the series of each case's primary metric (one per metric
// and unit, as ledger::collect_series gives them, so a change of unit starts another trend) over
// the last `history` runs of `store` that measured it, up to the newest of `runs` in the store's
// order (later runs are not part of that run's history), in the order of the cases in `runs`.
// Runs and results that an `invalidate` note targets are left out. A reported run the store does
// not hold (one read from another file) ends its cases' trends. Throws Error when the store
// cannot be read.
std::vector<Trend> collect_trends(const ledger::Store& store, const std::vector<RunData>& runs,
                                  std::size_t history);

// Fills each trend's `changes` with the change points of its points, found by
// compare::detect_changes exactly as `benchledger detect` finds them in a series. Throws Error
// from the detection (a value that is not finite).
void mark_change_points(std::vector<Trend>& trends, const compare::DetectOptions& options);

}  // namespace benchledger::report
