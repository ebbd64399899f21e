// What a report says, independent of its form: build_document() turns the input into headings,
// tables and chart specifications that markdown.cpp and html.cpp render.
#pragma once

#include <string>
#include <vector>

#include <benchledger/record.hpp>

#include "report/document.hpp"
#include "report/report.hpp"

namespace benchledger::report {

// The whole report. Throws Error when input.runs is empty.
Document build_document(const ReportInput& input);

// Blocks as GitHub-flavoured Markdown, each after a blank line: what render_markdown() writes
// under the title, and compare's comment under its own heading.
std::string render_markdown_blocks(const std::vector<Block>& blocks);

// A table's row as GitHub-flavoured Markdown, with its '\n': what render_markdown_blocks()
// writes for each row of a Table, for a writer that makes its rows one at a time.
std::string render_markdown_row(const std::vector<Cell>& row);

// Text as GitHub-flavoured Markdown, escaped: a paragraph's or a list item's body.
std::string render_markdown_text(const Text& text);

// A cell's icon as Markdown draws it: an emoji and a space (`❌ ` for `regression`), or empty.
std::string markdown_icon(const std::string& icon);

// The suite of a benchmark: its name up to the first '/', or the whole name without one.
std::string suite_of(const std::string& bench);

// `clients=10, scale=1` (sorted keys), leaving out `skip`.
std::string params_text(const Params& params, const std::string& skip = {});

// Two values make a scaling table: suites often sweep a param over two (the bundled pipeline
// suite's pages 10 and 50, latency 20 and 300 ms), and the table with that param as rows reads
// the step from one to the other more easily than the results table, where the rows of one
// step are apart.
inline constexpr std::size_t k_min_scaling_points = 2;

// A report of more cases than this draws charts for this many of them and says so in the
// report: the most changed cases of a comparison, the widest spread of samples without one, the
// first scaling slices; its tables still list every case. Drawing every case of 100,000 took
// minutes (docs/report.md, "Large reports").
inline constexpr std::size_t k_max_charted_cases = 100;

// A case's parameters that vary alone: for each numeric param that takes k_min_scaling_points
// or more values, the groups of cases whose other params are equal and that hold at least
// that many of its values.
struct ScalingSlice {
  std::string bench;
  std::string param;
  Params fixed;                            // the other params, equal across the slice
  std::vector<const ResultRecord*> cases;  // ordered by the param's value
  std::vector<double> values;              // the param's value per case
};
std::vector<ScalingSlice> scaling_slices(const std::vector<ResultRecord>& results);

}  // namespace benchledger::report
