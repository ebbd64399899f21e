// The outputs of `benchledger compare` (docs/ci-gate.md): a terminal table,
// Markdown for a pull-request comment, JSON, JUnit XML and CSV of a ComparisonReport. Pure
// functions: the same report gives the same bytes. Every form but CSV carries the warnings
// (environment differences included); the CLI prints them on stderr for CSV.
//
// Each form has a write_ function that writes to a stream as it goes, so that a comparison of a
// million cases is never held as text (the CLI writes to standard output so), and a render_
// function that returns the same bytes as a string.
//
// The table, Markdown and JSON show `profiles`, when given, the regressed cases' functions
// (compare::explain_regressions, docs/profiles.md), each in its own form (explain_render.hpp).
//
// These files (compare_*.cpp) render what src/compare decides; the rest of src/report renders
// reports.
#pragma once

#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

#include "compare/comparison.hpp"
#include "compare/explain.hpp"
#include "report/document.hpp"

namespace benchledger::report {

// Columns: benchmark, metric, base and current centres with n, change, interval, adjusted p,
// verdict; then the warnings, the count per verdict and the gate. `colour` adds ANSI colours
// to verdicts and the gate line.
// `profiles`: after the remarks, a short table a regressed case.
std::string render_comparison_table(const compare::ComparisonReport& report, bool colour,
                                    const compare::RegressionProfiles* profiles = nullptr);
void write_comparison_table(std::ostream& out, const compare::ComparisonReport& report, bool colour,
                            const compare::RegressionProfiles* profiles = nullptr);

// GitHub-flavoured Markdown, ready to post as a pull-request comment: a heading with the gate,
// the runs, the count per verdict, the warnings folded into one collapsed <details>, then
// comparison_table_blocks() of every case; `profiles`: under it, a collapsed table a regressed
// case.
std::string render_comparison_markdown(const compare::ComparisonReport& report,
                                       const compare::RegressionProfiles* profiles = nullptr);
void write_comparison_markdown(std::ostream& out, const compare::ComparisonReport& report,
                               const compare::RegressionProfiles* profiles = nullptr);

// The one table of a comparison that people read: compare's Markdown, the gate's
// comparison.md and the report's Comparison section all show it. The table (verdict, case,
// metric, the base's and current's medians, the change with its interval, the samples) has a
// row per case of `cases` (which point into report.cases, in the order to show); then the
// params every row shares, a legend of the columns and of the verdicts shown, how the verdicts
// were reached in plain words (the method names a link to docs/statistics.md when the build
// knows where it is published), and a remark per case that has one (the accepting note, the
// change its samples could detect, compare's remark, why the medians moved by an amount
// outside the change's interval).
std::vector<Block> comparison_table_blocks(
    const compare::ComparisonReport& report,
    const std::vector<const compare::CaseComparison*>& cases);
// The Markdown of comparison_table_blocks() of every case in report order, as
// render_markdown_blocks() writes it, each row written as it is made.
void write_comparison_table_blocks(std::ostream& out, const compare::ComparisonReport& report);

// The JSON object of docs/ci-gate.md: base, current, options, warnings, cases, summary, gate;
// `profiles`: a member "profiles" after the cases, every function of every regressed case.
// Changes and intervals are in percent; an infinite detectable change is null. The bytes are
// nlohmann's dump with an indent of 2, and a '\n'.
std::string render_comparison_json(const compare::ComparisonReport& report,
                                   const compare::RegressionProfiles* profiles = nullptr);
void write_comparison_json(std::ostream& out, const compare::ComparisonReport& report,
                           const compare::RegressionProfiles* profiles = nullptr);

// `markdown` when it has at most `limit` bytes; else its first lines and a note that it was cut
// and that the whole of it is `where_whole`, together at most `limit` bytes (a byte count is
// never below GitHub's count of characters).
std::string fit_comment(const std::string& markdown, std::size_t limit,
                        const std::string& where_whole);

// JUnit XML: one testcase per compared metric, a <failure> for each that fails the gate.
std::string render_comparison_junit(const compare::ComparisonReport& report);
void write_comparison_junit(std::ostream& out, const compare::ComparisonReport& report);

// RFC 4180 CSV with a header row, one row per compared metric; base_center is in base_unit,
// current_center in unit (they differ when a case's unit changed); percent columns; the last,
// `remark`, is comparison_remark (what JSON's `remark` holds).
std::string render_comparison_csv(const compare::ComparisonReport& report);
void write_comparison_csv(std::ostream& out, const compare::ComparisonReport& report);

// Helpers shared by the renderers (values with units: report/format.hpp).
std::string comparison_case_label(const compare::CaseComparison& c);  // `bench [k=v, ...]`
std::string format_detectable(const compare::CaseComparison& c);      // `could detect >= 7.3%`
// The count of each verdict present, in the order of compare::Verdict: `1 failed, 2
// regressions, 1 improvement, 3 unchanged`; empty when there are no cases.
std::string verdict_counts(const compare::ComparisonReport& report);
// A run as the human forms name it: `01J… (baseline) git 49a18b82c0de+dirty`.
std::string run_text(const compare::RunSummary& run);
// The gate's word for the terminal (`pass`, `FAIL`, `UNDECIDED (2 cases could not be decided;
// passes: gate.undecided is pass)`) and the comment's title (`gate passed`, `**gate failed**`,
// `**gate undecided**: …`): undecided is never "passed".
std::string gate_verdict_text(const compare::ComparisonReport& report);
std::string gate_title(const compare::ComparisonReport& report);
// The report's words: `Gate: passes`, `Gate: fails`, `Gate: undecided (passes)`.
std::string report_gate_word(const compare::ComparisonReport& report);
// The gate configuration's differences (ComparisonReport::configuration): one
// `key: base -> head` line each under a heading line, or as a Markdown table with a legend of what
// the gate does with them; each empty when there are none.
std::string configuration_text(const compare::ComparisonReport& report);
std::string configuration_markdown(const compare::ComparisonReport& report);
std::string setting_change_text(const compare::SettingChange& change);  // `key: base -> head`
// Why an accepted_by_change case passes: `regression by the base's configuration; threshold 5%
// -> 1000%`.
std::string accepted_by_change_text(const compare::CaseComparison& c);
// ` (1 case accepted by this change)` after a passing gate's word and title; empty without one.
std::string accepted_by_change_suffix(const compare::ComparisonReport& report);
// When the medians moved by an amount outside the interval of the change (skewed samples, or
// rounds that drifted while the pairs did not), why the two disagree: a reader sees both and
// would take it for an error. Empty otherwise.
std::string medians_note(const compare::CaseComparison& c);
// The case's remark followed by format_detectable, "; "-separated; empty when there is neither.
std::string comparison_remark(const compare::CaseComparison& c);

}  // namespace benchledger::report
