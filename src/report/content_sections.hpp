// The sections of a report, one file each, and the pieces they share. build_document()
// (content.cpp) puts them in order:
//
//   content_runs.cpp           Runs and Environment: one column per run
//   content_comparison.cpp     Comparison: summary, table and remarks per compared run
//   content_results.cpp        Results per suite: the metric columns of a results table
//   content_scaling.cpp        Scaling tables and curves under each suite's results
//   content_trends.cpp         Trends across the ledger's runs, and their Change points
//   content_distributions.cpp  Every sample of a case, per run or per side of a comparison
//   content_profiles.cpp       Where each regressed case's instructions went, function by function
//   content.cpp                title, intro and Warnings
//
// Internal to src/report: nothing outside content*.cpp includes this header.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <benchledger/record.hpp>

#include "report/content.hpp"
#include "report/document.hpp"
#include "report/format.hpp"
#include "report/report.hpp"

namespace benchledger::report::content {

// ---- the sections, in report order

void add_runs(Document& doc, const ReportInput& input);
void add_environment(Document& doc, const ReportInput& input);
void add_comparisons(Document& doc, const ReportInput& input);
void add_results(Document& doc, const ReportInput& input);
void add_trends(Document& doc, const ReportInput& input);
// The change points of the trends, a table per case that has any (both forms).
void add_change_points(Document& doc, const ReportInput& input);
// Without a comparison only: the samples of each case in every reported run.
void add_distributions(Document& doc, const ReportInput& input);
void add_warnings(Document& doc, const ReportInput& input);

// ---- runs (content.cpp)

// What a cell shows for a value that was not recorded.
inline constexpr const char* k_missing = "—";

// A run's label, else its id.
std::string run_name(const RunRecord& run);
// `2026-11-22T04:27:59.123456Z` → `2026-11-22 04:27:59 UTC`; other text is returned as is.
std::string display_time(const std::string& time);
// Every run the report shows: the base first, then the reported runs.
std::vector<const RunRecord*> all_runs(const ReportInput& input);
// The column headers of all_runs(): `base: NAME`, then each run's name.
std::vector<std::string> run_headers(const ReportInput& input);

// ---- cells and notes (content.cpp)

Cell text_cell(std::string text);
// `bench` as code, then its params as case_label writes them: `bench` [k=v, ...].
Text case_text(const std::string& bench, const Params& params);
// The params every one of `cases` has with the same value, when there are two cases or more:
// a table states them once under it instead of on every row.
Params common_params(const std::vector<const Params*>& cases);
// `params` without the keys of `common`.
Params without(const Params& params, const Params& common);
// "Every row has k=v, …", under a table whose rows leave out `common`.
Paragraph common_params_note(const Params& common);
// " This report summarises: of N cases, charts are drawn for the K {chosen}; the tables list
// every case." (bold but for its last words), when a report draws k_max_charted_cases of more.
Text summarised_note(std::size_t cases, const std::string& chosen);

// ---- charts (content.cpp)

// An axis's label: `what`, with the unit it is shown in when it has one.
std::string axis_label(const std::string& what, const DisplayUnit& unit);
// The largest magnitude of `values`, 0 when empty: what display_unit() scales for.
double max_abs(const std::vector<double>& values);

// ---- results tables (content_results.cpp)

// The metrics of a result that a results table has columns for.
struct Figures {
  const Metric* latency = nullptr;
  std::string latency_name;
  const Metric* rate = nullptr;
  std::string rate_name;
  const Metric* memory = nullptr;
  std::string memory_name;
  std::map<std::string, const Metric*> others;
  std::int64_t samples = 0;
};
// The figures of the rows of one table, with one metric name per column across the rows.
std::vector<Figures> table_figures(const std::vector<const ResultRecord*>& results);
// A results table: one row per result, the first column given by `first`.
Table results_table(const std::vector<const ResultRecord*>& results,
                    const std::string& first_header,
                    const std::function<Cell(const ResultRecord&)>& first, Align first_align);

// ---- scaling (content_scaling.cpp)

// The scaling tables and curves of one suite, under its results table. Their titles leave out
// the params that every row of the suite has (`common`): the note under that table names them.
// `budget` is how many more slices the report may draw (k_max_charted_cases in all); the slices
// past it are counted in `left_out`.
void add_scaling(Document& doc, const std::vector<const ResultRecord*>& results,
                 const Params& common, std::size_t& budget, std::size_t& left_out);

// ---- comparison (content_comparison.cpp, content_distributions.cpp)

// The verdict in words: `regression`, `regression, accepted`.
std::string verdict_text(const compare::CaseComparison& c);
// Compare sorts cases by name; the report keeps the order of the current run's results, with
// the cases only the base has (missing) after them in the base's order.
std::vector<const compare::CaseComparison*> in_run_order(const compare::ComparisonReport& report,
                                                         const RunData& current,
                                                         const RunData& base);
// The samples of each compared metric, base against current, under a comparison's table.
ChartGroup comparison_distributions(const ReportInput& input, const RunData& current,
                                    const compare::ComparisonReport& report);
// A profile chart a regressed case whose two runs have profiles (ComparisonSection::profiles),
// at most k_max_charted_cases of them, under the distributions. Empty when there is nothing to
// draw.
ChartGroup profile_charts(const ComparisonSection& section);

}  // namespace benchledger::report::content
