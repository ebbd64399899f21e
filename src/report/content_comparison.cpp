// The Comparison section of each compared run: a one-paragraph reading (gate, counts, the
// largest changes), the table of verdicts with its legend and remarks, and the distributions
// under them. The table is comparison_table_blocks(), which compare's Markdown shows too.
#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <string_view>

#include <fmt/format.h>

#include "report/compare_render.hpp"
#include "report/content.hpp"
#include "report/content_sections.hpp"
#include "report/format.hpp"
#include "report/rows_in_order.hpp"

namespace benchledger::report::content {

std::string verdict_text(const compare::CaseComparison& c) {
  if (c.accepted) return std::string(compare::to_string(c.verdict)) + ", accepted";
  return std::string(compare::to_string(c.verdict));
}

std::vector<const compare::CaseComparison*> in_run_order(const compare::ComparisonReport& report,
                                                         const RunData& current,
                                                         const RunData& base) {
  std::map<std::string, std::size_t> rank;
  for (const RunData* data : {&current, &base}) {
    for (const ResultRecord& r : data->results)
      rank.try_emplace(case_key(r.bench, r.params), rank.size());
  }
  // Each case's rank, found once (not in every comparison of the sort).
  std::vector<std::pair<std::size_t, const compare::CaseComparison*>> ranked;
  for (const compare::CaseComparison& c : report.cases) {
    const auto r = rank.find(case_key(c.bench, c.params));
    ranked.emplace_back(r == rank.end() ? rank.size() : r->second, &c);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<const compare::CaseComparison*> cases;
  for (const auto& [r, c] : ranked) cases.push_back(c);
  return cases;
}

namespace {

// 0.05 → "5%", 0.0503 → "5.03%": thresholds and confidence levels, without trailing zeros.
std::string percent_of(double fraction) {
  return fmt::format("{:.3g}%", fraction * 100);
}

std::string test_name(compare::DecidingTest test) {
  switch (test) {
    case compare::DecidingTest::mann_whitney:
      return "Mann–Whitney U test";
    case compare::DecidingTest::brunner_munzel:
      return "Brunner–Munzel test";
    case compare::DecidingTest::kolmogorov_smirnov:
      return "Kolmogorov–Smirnov test";
  }
  return std::string(compare::to_string(test));
}

// The largest regression and improvement, else, when no change counts, the largest estimates
// each way: a case, its metric, the change and its interval.
void add_largest_changes(Text& text, const compare::ComparisonReport& report) {
  using compare::Verdict;
  // The largest change each way among significant verdicts.
  const compare::CaseComparison* worst = nullptr;
  const compare::CaseComparison* best = nullptr;
  for (const compare::CaseComparison& c : report.cases) {
    if (!c.change) continue;
    if (c.verdict == Verdict::regression &&
        (!worst || std::fabs(*c.change) > std::fabs(*worst->change)))
      worst = &c;
    if (c.verdict == Verdict::improvement &&
        (!best || std::fabs(*c.change) > std::fabs(*best->change)))
      best = &c;
  }
  // A case, its metric, the change and its interval; the verdict too when it is not one of
  // the significant ones, so that an estimate is never read as a finding.
  const auto change_text = [&](const compare::CaseComparison& c, bool with_verdict) {
    for (Span& span : case_text(c.bench, c.params)) text.push_back(std::move(span));
    std::string detail = " " + c.metric + " " + format_change(*c.change);
    std::vector<std::string> notes;
    if (c.ci_low && c.ci_high)
      notes.push_back("interval " + format_change(*c.ci_low) + " to " + format_change(*c.ci_high));
    if (with_verdict) notes.push_back(verdict_text(c));
    for (std::size_t i = 0; i < notes.size(); ++i)
      detail += (i == 0 ? " (" : ", ") + notes[i] + (i + 1 == notes.size() ? ")" : "");
    text.push_back(plain(detail));
  };
  const auto describe = [&](const char* what, const compare::CaseComparison& c) {
    text.push_back(plain(std::string(" ") + what + ": "));
    change_text(c, false);
    text.push_back(plain("."));
  };
  if (worst) describe("Largest regression", *worst);
  if (best) describe("Largest improvement", *best);
  if (!worst && !best) {
    // Nothing counts, but the reader still wants to see what moved: the largest estimate
    // upwards and downwards (the first in compare's order on a tie), each with its verdict.
    const compare::CaseComparison* up = nullptr;
    const compare::CaseComparison* down = nullptr;
    for (const compare::CaseComparison& c : report.cases) {
      if (!c.change || !std::isfinite(*c.change)) continue;
      if (*c.change > 0 && (!up || *c.change > *up->change)) up = &c;
      if (*c.change < 0 && (!down || *c.change < *down->change)) down = &c;
    }
    if (up || down) {
      text.push_back(plain(up && down ? " No change counts; the largest estimates: "
                                      : " No change counts; the largest estimate: "));
      if (up) change_text(*up, true);
      if (up && down) text.push_back(plain(" and "));
      if (down) change_text(*down, true);
      text.push_back(plain("."));
    }
  }
}

// The one-paragraph reading of a comparison: gate, counts, the largest changes, environment.
// How a change counts is said under the table, in comparison_table_blocks().
Paragraph comparison_summary(const compare::ComparisonReport& report, const std::string& base_name,
                             const std::string& current_name) {
  Text text{strong(report_gate_word(report) + ".")};
  const std::string counts = verdict_counts(report);
  text.push_back(plain(" " + current_name + " against " + base_name + ": " +
                       (counts.empty() ? std::string("nothing to compare") : counts) + " among " +
                       plural(report.cases.size(), "comparison", "comparisons") + "."));
  if (report.accepted > 0) {
    text.push_back(plain(" " + plural(report.accepted, "case is", "cases are") +
                         " accepted by a note and " + (report.accepted == 1 ? "does" : "do") +
                         " not fail the gate."));
  }
  add_largest_changes(text, report);
  if (!report.env_differences.empty()) {
    text.push_back(plain(
        " The environments differ (" + plural(report.env_differences.size(), "field", "fields") +
        ", see Warnings): part of any change may come from the machine, not the code."));
  }
  return Paragraph{std::move(text), "summary"};
}

}  // namespace
}  // namespace benchledger::report::content

namespace benchledger::report {
namespace {

using content::case_text;
using content::k_missing;
using content::percent_of;
using content::text_cell;

// Where docs/statistics.md is published, set at build time (BENCHLEDGER_DOCS_URL in CMake);
// empty when it is not, and then the method names are plain text.
constexpr std::string_view k_docs_url = BENCHLEDGER_DOCS_URL;

// The change the verdict rests on, with its interval when it has one: `+8.1% (+2.0% to +14%)`.
std::string change_text(const compare::CaseComparison& c) {
  if (!c.change) return k_missing;
  std::string text = format_change(*c.change);
  if (c.ci_low && c.ci_high)
    text += " (" + format_change(*c.ci_low) + " to " + format_change(*c.ci_high) + ")";
  return text;
}

// The row of a case; the verdict comes first so that a narrow screen (a pull-request comment on
// a phone) shows it without scrolling.
std::vector<Cell> comparison_row(const compare::CaseComparison& c, const Params& common) {
  const auto value = [&](const std::optional<double>& v, const std::string& unit) {
    return v ? format_quantity(*v, unit) : std::string(k_missing);
  };
  const std::string verdict = content::verdict_text(c);
  // A case accepted by a note or by this change's own settings: one symbol and colour for both.
  const std::string kind = c.accepted || c.verdict == compare::Verdict::accepted_by_change
                               ? std::string("accepted")
                               : std::string(compare::to_string(c.verdict));
  std::vector<Cell> row;
  row.push_back(Cell{{c.fails_on_verdict ? strong(verdict) : plain(verdict)}, kind, kind});
  row.push_back(Cell{case_text(c.bench, content::without(c.params, common)), {}, {}});
  row.push_back(Cell{{code(c.metric)}, {}, {}});
  row.push_back(text_cell(value(c.base_center, c.base_unit)));
  row.push_back(text_cell(value(c.current_center, c.unit)));
  row.push_back(text_cell(change_text(c)));
  row.push_back(text_cell(c.pairs > 0
                              ? plural(c.pairs, "pair", "pairs")
                              : format_integer(static_cast<std::int64_t>(c.base_n)) + " / " +
                                    format_integer(static_cast<std::int64_t>(c.current_n))));
  return row;
}

// What the table cannot say about a case: the note that accepts it, the change its samples
// could detect when inconclusive, compare's remark, why the medians disagree with the change;
// empty when there is nothing.
std::string remark_text(const compare::CaseComparison& c) {
  std::vector<std::string> parts;
  if (c.verdict == compare::Verdict::accepted_by_change)
    parts.push_back(accepted_by_change_text(c));
  if (c.accepted)
    parts.push_back("accepted by note " + c.accepted->note + " (" + c.accepted->author +
                    "): " + c.accepted->text);
  if (c.verdict == compare::Verdict::inconclusive && c.detectable && std::isfinite(*c.detectable))
    parts.push_back("these samples could detect a change of ±" + percent_of(*c.detectable) +
                    " or more");
  if (!c.remark.empty()) parts.push_back(c.remark);
  if (std::string note = medians_note(c); !note.empty()) parts.push_back(std::move(note));
  return fmt::format("{}", fmt::join(parts, "; "));
}

// What each verdict in the table means, for the verdicts it shows.
std::string verdict_legend(const compare::ComparisonReport& report) {
  using compare::Verdict;
  const std::string within = "±" + percent_of(report.threshold);
  std::vector<std::string> parts;
  const auto add = [&](Verdict v, const std::string& meaning) {
    if (report.count(v) > 0) parts.push_back(std::string(compare::to_string(v)) + ": " + meaning);
  };
  add(Verdict::failed, "the current side did not measure");
  add(Verdict::regression, "worse by more than " + within + ", beyond noise");
  add(Verdict::improvement, "better by more than " + within + ", beyond noise");
  add(Verdict::unchanged, "the whole range lies within " + within);
  add(Verdict::inconclusive, "neither could be shown; more samples might tell");
  add(Verdict::new_case, "in the current side only");
  add(Verdict::missing, "in the base only");
  add(Verdict::accepted_by_change,
      "fails by the base revision's gate configuration, passes by this change's looser one");
  if (report.accepted > 0)
    parts.push_back("accepted: a note in the ledger accepts it, and it does not fail the gate");
  return fmt::format("{}", fmt::join(parts, "; "));
}

// Which tests judged the cases, by their names: the signed-rank test of paired rounds, the
// two-sample test of pooled samples, or each for some.
std::string method_names(const compare::ComparisonReport& report) {
  std::size_t paired = 0, pooled = 0;
  for (const compare::CaseComparison& c : report.cases) {
    paired += c.pairs > 0 ? 1 : 0;
    pooled += c.pairs == 0 && c.p ? 1 : 0;
  }
  std::vector<std::string> names;
  if (paired > 0) names.push_back("Wilcoxon signed-rank test of paired rounds");
  if (pooled > 0 || paired == 0) names.push_back(content::test_name(report.test));
  if (paired > 0 && pooled > 0) {
    names[0] += " (" + plural(paired, "case", "cases") + ")";
    names[1] += " (" + plural(pooled, "case", "cases") + ")";
  }
  names.emplace_back("Hodges–Lehmann estimate and interval");
  names.emplace_back("Benjamini–Hochberg false discovery rate");
  return fmt::format("{}", fmt::join(names, ", "));
}

// How the verdicts were reached, in plain words, the method names behind a link to
// docs/statistics.md.
Paragraph statistics_paragraph(const compare::ComparisonReport& report) {
  const std::string within = "±" + percent_of(report.threshold);
  const bool own_thresholds = std::any_of(
      report.cases.begin(), report.cases.end(),
      [&](const compare::CaseComparison& c) { return c.threshold != report.threshold; });
  const bool counts = std::any_of(report.cases.begin(), report.cases.end(),
                                  [](const compare::CaseComparison& c) { return c.deterministic; });
  std::vector<std::string> fail_on;
  for (const compare::Verdict v : report.fail_on) fail_on.emplace_back(compare::to_string(v));
  if (report.undecided_fails &&
      std::find(fail_on.begin(), fail_on.end(), "inconclusive") == fail_on.end())
    fail_on.emplace_back("inconclusive");
  std::string words = "A change counts when it is beyond " + within +
                      (own_thresholds ? " (or the benchmark's own threshold)" : "") +
                      " and too consistent to be noise: of the changes called out, at most " +
                      percent_of(report.alpha) +
                      " are expected to be noise. Unchanged means the whole " +
                      percent_of(1 - report.alpha) + " range lies within the threshold.";
  if (counts)
    words += " Counts that do not vary between runs (instructions) are judged by ±" +
             percent_of(report.deterministic_threshold) + " alone.";
  if (report.looks > 0)
    words += " The results were looked at " + plural(report.looks, "time", "times") +
             " as rounds were added, each look held to its share of the " +
             percent_of(report.alpha) + ".";
  if (!fail_on.empty()) {
    const std::string last = fail_on.back();
    fail_on.pop_back();
    words += " The gate fails on " +
             (fail_on.empty() ? last : fmt::format("{} and {}", fmt::join(fail_on, ", "), last)) +
             ".";
  }
  words += " Methods: ";
  Text text{plain(words)};
  if (k_docs_url.empty()) {
    text.push_back(
        plain(method_names(report) + " (statistics.md in benchledger's documentation)."));
  } else {
    text.push_back(link_to(method_names(report), std::string(k_docs_url) + "/statistics.md"));
    text.push_back(plain("."));
  }
  return Paragraph{std::move(text), "note"};
}

}  // namespace

std::string medians_note(const compare::CaseComparison& c) {
  if (!c.ci_low || !c.ci_high || !c.base_center || !c.current_center) return {};
  if (!(*c.base_center > 0 && *c.current_center > 0)) return {};
  const double medians = *c.current_center / *c.base_center - 1.0;
  if (medians >= *c.ci_low && medians <= *c.ci_high) return {};
  return "the medians differ by " + format_change(medians) +
         ", outside the interval of the change: the verdict rests on the change, " +
         (c.pairs > 0 ? "measured within each pair of rounds, which leaves out drift between "
                        "rounds that the medians keep"
                      : "which weighs every pair of samples where the medians weigh the middle "
                        "one of each side");
}

namespace {

// The table without its rows: the header and each column's alignment.
Table comparison_table_frame(const compare::ComparisonReport& report) {
  Table table;
  table.header = {"verdict", "case",    "metric",
                  "base",    "current", "change (" + percent_of(1 - report.alpha) + " interval)",
                  "samples"};
  table.align = {Align::left,  Align::left,  Align::left, Align::right,
                 Align::right, Align::right, Align::right};
  return table;
}

// The params every case of the report shares.
Params comparison_common_params(const compare::ComparisonReport& report) {
  std::vector<const Params*> all_params;
  for (const compare::CaseComparison& c : report.cases) all_params.push_back(&c.params);
  return content::common_params(all_params);
}

// The remark of a case as a list item, `case metric: remark`; empty when it has none.
Text remark_item(const compare::CaseComparison& c, const Params& common) {
  const std::string remark = remark_text(c);
  if (remark.empty()) return {};
  Text item = case_text(c.bench, content::without(c.params, common));
  item.push_back(plain(" "));
  item.push_back(code(c.metric));
  item.push_back(plain(": " + remark));
  return item;
}

// What follows the table: the shared params, the legends and how the verdicts were reached.
std::vector<Block> comparison_table_notes(const compare::ComparisonReport& report,
                                          const Params& common) {
  std::vector<Block> blocks;
  if (!common.empty()) blocks.emplace_back(content::common_params_note(common));
  blocks.emplace_back(Paragraph{
      {plain("base, current: each side's median. change: how much larger current is than base, as "
             "the Hodges–Lehmann estimate the verdict used (the median ratio over every pair of a "
             "current and a base sample, or over the paired rounds), which is not the ratio of "
             "the two medians; in parentheses, the range that holds the true change with " +
             percent_of(1 - report.alpha) +
             " confidence. With fewer than 3 samples a side: the ratio of the medians, without "
             "a range. samples: base / current, or the pairs of rounds.")},
      "note"});
  if (const std::string verdicts = verdict_legend(report); !verdicts.empty())
    blocks.emplace_back(Paragraph{{plain(verdicts + ".")}, "note"});
  blocks.emplace_back(statistics_paragraph(report));
  return blocks;
}

}  // namespace

std::vector<Block> comparison_table_blocks(
    const compare::ComparisonReport& report,
    const std::vector<const compare::CaseComparison*>& cases) {
  Table table = comparison_table_frame(report);
  BulletList remarks;
  const Params common = comparison_common_params(report);
  for (const compare::CaseComparison* c : cases) {
    table.rows.push_back(comparison_row(*c, common));
    if (Text item = remark_item(*c, common); !item.empty())
      remarks.items.push_back(std::move(item));
  }
  std::vector<Block> blocks;
  blocks.emplace_back(std::move(table));
  for (Block& block : comparison_table_notes(report, common)) blocks.push_back(std::move(block));
  if (!remarks.items.empty()) blocks.emplace_back(std::move(remarks));
  return blocks;
}

void write_comparison_table_blocks(std::ostream& out, const compare::ComparisonReport& report) {
  const Params common = comparison_common_params(report);
  out << render_markdown_blocks({comparison_table_frame(report)});
  // The rows are made in blocks on two threads and written in order (rows_in_order.hpp): the
  // rows of a million cases are never held at once.
  write_rows_in_order(out, report.cases.size(), [&](std::size_t i, std::string& text) {
    text += render_markdown_row(comparison_row(report.cases[i], common));
  });
  out << render_markdown_blocks(comparison_table_notes(report, common));
  // The list of remarks, after a blank line when it has any item.
  const auto first_remark = std::find_if(
      report.cases.begin(), report.cases.end(),
      [&](const compare::CaseComparison& c) { return !remark_item(c, common).empty(); });
  if (first_remark == report.cases.end()) return;
  out << "\n";
  const auto first = static_cast<std::size_t>(first_remark - report.cases.begin());
  write_rows_in_order(out, report.cases.size() - first, [&](std::size_t i, std::string& text) {
    const Text item = remark_item(report.cases[first + i], common);
    if (item.empty()) return;
    text += "- ";
    text += render_markdown_text(item);
    text += '\n';
  });
}

}  // namespace benchledger::report

namespace benchledger::report::content {

void add_comparisons(Document& doc, const ReportInput& input) {
  if (!input.base) return;
  const std::string base_name = run_name(input.base->run);
  for (const ComparisonSection& section : input.comparisons) {
    const auto current = std::find_if(input.runs.begin(), input.runs.end(), [&](const RunData& d) {
      return d.run.header.id == section.current_run_id;
    });
    if (current == input.runs.end()) continue;
    const compare::ComparisonReport& report = section.report;
    const std::string current_name = run_name(current->run);
    doc.blocks.emplace_back(Heading{2, "Comparison: " + current_name + " against " + base_name});
    doc.blocks.emplace_back(comparison_summary(report, base_name, current_name));
    if (report.cases.empty()) continue;
    for (Block& block :
         comparison_table_blocks(report, in_run_order(report, *current, *input.base)))
      doc.blocks.push_back(std::move(block));
    ChartGroup charts = comparison_distributions(input, *current, report);
    if (!charts.charts.empty()) doc.blocks.emplace_back(std::move(charts));
    if (section.profiles && !section.profiles->unreadable.empty()) {
      doc.blocks.emplace_back(
          Paragraph{{plain("The profiles of the regressed cases cannot be read: " +
                           section.profiles->unreadable)},
                    "note"});
    }
    ChartGroup profiles = profile_charts(section);
    if (!profiles.charts.empty()) doc.blocks.emplace_back(std::move(profiles));
  }
}

}  // namespace benchledger::report::content
