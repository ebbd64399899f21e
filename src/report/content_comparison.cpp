// The Comparison section of each compared run: a one-paragraph reading (gate, counts, the
// largest changes), the table of verdicts, the remarks, and the distributions under them.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "report/compare_render.hpp"
#include "report/content_sections.hpp"
#include "report/format.hpp"

namespace benchledger::report::content {

// Its symbol is the icon named verdict_icon().
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

std::string verdict_icon(const compare::CaseComparison& c) {
  if (c.accepted) return "accepted";
  return std::string(compare::to_string(c.verdict));
}

std::string p_text(double p) {
  return p < 0.001 ? "<0.001" : format_number(p, 2);
}

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
  text.push_back(plain(
      " A change counts when it lies beyond ±" + percent_of(report.threshold) +
      " (unless a per-benchmark threshold says otherwise) and is significant at a false "
      "discovery rate of " +
      percent_of(report.alpha) + " (" + test_name(report.test) + "); unchanged means the whole " +
      percent_of(1 - report.alpha) + " interval lies within the threshold."));
  add_largest_changes(text, report);
  if (!report.env_differences.empty()) {
    text.push_back(plain(
        " The environments differ (" + plural(report.env_differences.size(), "field", "fields") +
        ", see Warnings): part of any change may come from the machine, not the code."));
  }
  return Paragraph{std::move(text), "summary"};
}

// The row of a case in a comparison's table; the verdict comes second so that a narrow screen
// shows it without scrolling.
std::vector<Cell> comparison_row(const compare::CaseComparison& c, const Params& common) {
  const auto value = [&](const std::optional<double>& v, const std::string& unit) {
    return v ? format_quantity(*v, unit) : std::string(k_missing);
  };
  std::vector<Cell> row;
  row.push_back(Cell{case_text(c.bench, without(c.params, common)), {}, {}});
  const bool bold = c.fails_gate;
  row.push_back(
      Cell{{bold ? strong(verdict_text(c)) : plain(verdict_text(c))},
           c.accepted ? std::string("accepted") : std::string(compare::to_string(c.verdict)),
           verdict_icon(c)});
  row.push_back(Cell{{code(c.metric)}, {}, {}});
  row.push_back(text_cell(value(c.base_center, c.base_unit)));
  row.push_back(text_cell(value(c.current_center, c.unit)));
  row.push_back(text_cell(c.change ? format_change(*c.change) : std::string(k_missing)));
  row.push_back(text_cell(c.ci_low && c.ci_high
                              ? format_change(*c.ci_low) + " to " + format_change(*c.ci_high)
                              : std::string(k_missing)));
  row.push_back(text_cell(c.p_adjusted ? p_text(*c.p_adjusted) : std::string(k_missing)));
  row.push_back(text_cell(format_integer(static_cast<std::int64_t>(c.base_n)) + " / " +
                          format_integer(static_cast<std::int64_t>(c.current_n))));
  return row;
}

// What the table cannot say about a case: the note that accepts it, the change its samples
// could detect when inconclusive, compare's remark; empty when there is nothing.
std::string comparison_remark_text(const compare::CaseComparison& c) {
  std::string remark;
  if (c.accepted)
    remark = "accepted by note " + c.accepted->note + " (" + c.accepted->author +
             "): " + c.accepted->text;
  if (c.verdict == compare::Verdict::inconclusive && c.detectable && std::isfinite(*c.detectable)) {
    remark += std::string(remark.empty() ? "" : "; ") + "these samples could detect a change of ±" +
              percent_of(*c.detectable) + " or more";
  }
  if (!c.remark.empty()) remark += std::string(remark.empty() ? "" : "; ") + c.remark;
  return remark;
}

// The table of one comparison, the params its rows share, the legend and the remarks.
void add_comparison_table(Document& doc, const compare::ComparisonReport& report,
                          const std::vector<const compare::CaseComparison*>& cases) {
  Table table;
  table.header = {"case",
                  "verdict",
                  "metric",
                  "base",
                  "current",
                  "change",
                  percent_of(1 - report.alpha) + " interval",
                  "p (adj.)",
                  "samples"};
  table.align = {Align::left,  Align::left,  Align::left,  Align::right, Align::right,
                 Align::right, Align::right, Align::right, Align::right};
  BulletList remarks;
  std::vector<const Params*> all_params;
  for (const compare::CaseComparison& c : report.cases) all_params.push_back(&c.params);
  const Params common = common_params(all_params);
  for (const compare::CaseComparison* c : cases) {
    table.rows.push_back(comparison_row(*c, common));
    if (const std::string remark = comparison_remark_text(*c); !remark.empty()) {
      Text item = case_text(c->bench, without(c->params, common));
      item.push_back(plain(" "));
      item.push_back(code(c->metric));
      item.push_back(plain(": " + remark));
      remarks.items.push_back(std::move(item));
    }
  }
  doc.blocks.emplace_back(std::move(table));
  if (!common.empty()) doc.blocks.emplace_back(common_params_note(common));
  doc.blocks.emplace_back(Paragraph{{plain("change: current over base minus one, from the "
                                           "Hodges–Lehmann estimate; interval: its " +
                                           percent_of(1 - report.alpha) +
                                           " confidence interval; p (adj.): the test's p-value "
                                           "adjusted for the number of comparisons "
                                           "(Benjamini–Hochberg); samples: base / current.")},
                                    "note"});
  if (!remarks.items.empty()) doc.blocks.emplace_back(std::move(remarks));
}

}  // namespace

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
    add_comparison_table(doc, report, in_run_order(report, *current, *input.base));
    ChartGroup charts = comparison_distributions(input, *current, report);
    if (!charts.charts.empty()) doc.blocks.emplace_back(std::move(charts));
  }
}

}  // namespace benchledger::report::content
