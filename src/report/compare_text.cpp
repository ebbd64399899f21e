// The human forms of a comparison: the terminal table and the Markdown comment.
#include <algorithm>
#include <array>
#include <cmath>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "report/compare_render.hpp"
#include "report/content.hpp"
#include "report/escape.hpp"
#include "report/explain_render.hpp"
#include "report/failure_render.hpp"
#include "report/format.hpp"
#include "report/rows_in_order.hpp"
#include "report/text_fields.hpp"
#include "report/text_table.hpp"

namespace benchledger::report {

using compare::CaseComparison;
using compare::ComparisonReport;
using compare::Verdict;

std::string comparison_case_label(const CaseComparison& c) {
  return case_label(c.bench, c.params);
}

std::string format_detectable(const CaseComparison& c) {
  if (!c.detectable) return {};
  // Infinite when the sizes cannot reach significance at all: the remark says so, and why.
  if (std::isinf(*c.detectable)) return {};
  return "could detect >= " + format_percent(*c.detectable);
}

std::string comparison_remark(const CaseComparison& c) {
  const std::string d = format_detectable(c);
  if (d.empty()) return c.remark.str();
  return c.remark.empty() ? d : c.remark.str() + "; " + d;
}

std::string verdict_counts(const ComparisonReport& report) {
  std::vector<std::string> parts;
  for (std::size_t v = 0; v < compare::k_verdict_count; ++v) {
    if (report.counts[v] == 0) continue;
    const auto verdict = static_cast<Verdict>(v);
    const std::string one(compare::to_string(verdict));
    // Only the verdicts that are nouns take a plural: 2 regressions, but 2 unchanged, 2 new.
    const bool noun = verdict == Verdict::regression || verdict == Verdict::improvement;
    parts.push_back(plural(report.counts[v], one, noun ? one + "s" : one));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string gate_verdict_text(const ComparisonReport& report) {
  switch (report.state) {
    case compare::GateState::failed:
      return "FAIL";
    case compare::GateState::undecided:
      return fmt::format(
          "UNDECIDED ({} could not be decided; {})",
          plural(report.count(Verdict::inconclusive), "case", "cases"),
          report.gate_pass ? "passes: gate.undecided is pass" : "fails: gate.undecided is fail");
    case compare::GateState::passed:
      break;
  }
  return "pass" + accepted_by_change_suffix(report);
}

std::string gate_title(const ComparisonReport& report) {
  switch (report.state) {
    case compare::GateState::failed:
      return "**gate failed**";
    case compare::GateState::undecided:
      return fmt::format("**gate undecided**: {} could not be decided{}",
                         plural(report.count(Verdict::inconclusive), "case", "cases"),
                         report.gate_pass ? " (not failed)" : " (failed)");
    case compare::GateState::passed:
      break;
  }
  return "gate passed" + accepted_by_change_suffix(report);
}

std::string report_gate_word(const ComparisonReport& report) {
  switch (report.state) {
    case compare::GateState::failed:
      return "Gate: fails";
    case compare::GateState::undecided:
      return report.gate_pass ? "Gate: undecided (passes)" : "Gate: undecided (fails)";
    case compare::GateState::passed:
      break;
  }
  return "Gate: passes";
}

std::string run_text(const compare::RunSummary& run) {
  std::string text = run.id;
  if (run.label) text += " (" + *run.label + ")";
  if (run.git.commit) text += " git " + format_commit(run.git);
  return text;
}

namespace {

// The cells of every row, kept until the columns' widths are known: one string for all of them
// and where each ends, not a vector of strings a row (a million rows are a million cases).
class Rows {
 public:
  static constexpr std::size_t k_columns = 8;

  void add(const std::vector<std::string>& cells) {
    for (const std::string& cell : cells) {
      m_text += cell;
      m_ends.push_back(m_text.size());
    }
  }
  std::string_view cell(std::size_t row, std::size_t column) const {
    const std::size_t at = row * k_columns + column;
    const std::size_t begin = at == 0 ? 0 : m_ends[at - 1];
    return std::string_view(m_text).substr(begin, m_ends[at] - begin);
  }

 private:
  std::string m_text;
  std::vector<std::size_t> m_ends;  // of each cell in m_text, row by row
};

std::string verdict_text(const CaseComparison& c) {
  std::string text(compare::to_string(c.verdict));
  if (c.verdict == Verdict::accepted_by_change) text += " (" + accepted_by_change_text(c) + ")";
  if (c.accepted) text += " (accepted)";
  if (c.threshold_only && (c.verdict == Verdict::regression || c.verdict == Verdict::improvement ||
                           c.verdict == Verdict::unchanged)) {
    text += " (threshold only)";
  }
  return text;
}

std::string side_text(const std::optional<double>& center, std::size_t n, const std::string& unit) {
  if (!center) return "-";
  return fmt::format("{} (n={})", format_quantity(*center, unit), n);
}

std::vector<std::string> cells_of(const CaseComparison& c) {
  std::string interval = "-";
  if (c.ci_low && c.ci_high) {
    interval = fmt::format("[{}, {}]", format_change(*c.ci_low), format_change(*c.ci_high));
  }
  std::string p = "-";
  if (c.p_adjusted) p = fmt::format("{:.2g}", *c.p_adjusted);
  return {comparison_case_label(c),
          c.metric,
          side_text(c.base_center, c.base_n, c.base_unit),
          side_text(c.current_center, c.current_n, c.unit),
          c.change ? format_change(*c.change) : "-",
          interval,
          p,
          verdict_text(c)};
}

const char* colour_of(Verdict verdict, bool accepted) {
  if (accepted) return "\x1b[33m";
  switch (verdict) {
    case Verdict::accepted_by_change:
      return "\x1b[33m";
    case Verdict::failed:
    case Verdict::regression:
      return "\x1b[1;31m";
    case Verdict::improvement:
      return "\x1b[32m";
    case Verdict::inconclusive:
      return "\x1b[33m";
    case Verdict::new_case:
    case Verdict::missing:
      return "\x1b[36m";
    case Verdict::unchanged:
      break;
  }
  return "";
}

std::string summary_text(const ComparisonReport& report) {
  std::string text = verdict_counts(report);
  if (report.accepted > 0)
    text += fmt::format("{}{} accepted", text.empty() ? "" : ", ", report.accepted);
  return text.empty() ? "no cases" : text;
}

// Which test judged the cases: the signed-rank test of paired rounds, the two-sample test of
// pooled samples, or each for some.
std::string method_text(const ComparisonReport& report) {
  const std::string pooled = fmt::format("{} test", compare::to_string(report.test));
  const std::string paired = "signed-rank test of paired rounds";
  std::size_t paired_cases = 0, pooled_cases = 0;
  for (const CaseComparison& c : report.cases) {
    paired_cases += c.pairs > 0 ? 1 : 0;
    pooled_cases += c.pairs == 0 && c.p ? 1 : 0;
  }
  if (paired_cases == 0) return pooled;
  if (pooled_cases == 0) return paired;
  return fmt::format("{} ({}), {} ({})", paired, plural(paired_cases, "case", "cases"), pooled,
                     plural(pooled_cases, "case", "cases"));
}

std::string settings_text(const ComparisonReport& report) {
  std::vector<std::string> fail_on;
  for (const Verdict v : report.fail_on) fail_on.emplace_back(compare::to_string(v));
  // Deterministic counts are judged by their own threshold alone: said only where there are some.
  const bool counts = std::any_of(report.cases.begin(), report.cases.end(),
                                  [](const compare::CaseComparison& c) { return c.deterministic; });
  const std::string levels =
      report.looks == 0
          ? fmt::format(", {:g}% intervals (Hodges-Lehmann)", 100.0 * (1.0 - report.alpha))
          : fmt::format(" over {} (each at its share of it, with intervals at that level)",
                        plural(report.looks, "look", "looks"));
  return fmt::format(
      "{}, Benjamini-Hochberg false discovery rate {:g}{}, threshold {:g}%{}, fails on {}{}",
      method_text(report), report.alpha, levels, 100.0 * report.threshold,
      counts ? fmt::format(" ({:g}% alone for deterministic counts)",
                           100.0 * report.deterministic_threshold)
             : "",
      fmt::join(fail_on, ", "), report.undecided_fails ? " and undecided" : "");
}

std::string base_text(const ComparisonReport& report) {
  std::string text = report.base.empty() ? "-" : run_text(report.base.front());
  if (report.base.size() > 1)
    text += fmt::format(" and {} older runs pooled", report.base.size() - 1);
  return text;
}

}  // namespace

void write_comparison_table(std::ostream& out, const ComparisonReport& report, bool colour,
                            const compare::RegressionProfiles* profiles) {
  const std::vector<std::string> header{"benchmark", "metric",   "base",     "current",
                                        "change",    "interval", "p (adj.)", "verdict"};
  Rows rows;
  for (const CaseComparison& c : report.cases) rows.add(cells_of(c));
  // The figures (base to p) on the right; the verdict, last, in its colour on a terminal.
  std::vector<Align> align(header.size(), Align::left);
  for (std::size_t i = 2; i <= 6; ++i) align[i] = Align::right;
  TextTable table(align);
  // A row's cells, views of `rows` (a value of its own: the lines are made on two threads).
  const auto cells = [&](std::size_t r) {
    std::array<std::string_view, 8> row;
    for (std::size_t i = 0; i < row.size(); ++i) row[i] = rows.cell(r, i);
    return row;
  };
  table.fit(header);
  for (std::size_t r = 0; r < report.cases.size(); ++r) table.fit(cells(r));
  out << configuration_text(report);
  out << fmt::format("base:    {}\ncurrent: {}\n\n", base_text(report), run_text(report.current));
  out << table.line(header);
  // The lines and the notes are made on two threads, in blocks, and written in order.
  write_rows_in_order(out, report.cases.size(), [&](std::size_t r, std::string& text) {
    const CaseComparison& c = report.cases[r];
    std::array<std::string_view, 8> row = cells(r);
    const std::string_view verdict_colour = colour_of(c.verdict, c.accepted != nullptr);
    std::string coloured;
    if (colour && !verdict_colour.empty()) {
      coloured = std::string(verdict_colour) + std::string(row.back()) + "\x1b[0m";
      row.back() = coloured;
    }
    text += table.line(row);
  });
  const auto remark_of = [](const CaseComparison& c) {
    std::string remark = comparison_remark(c);
    if (const std::string note = medians_note(c); !note.empty())
      remark += (remark.empty() ? "" : "; ") + note;
    if (c.accepted) {
      remark += (remark.empty() ? "" : "; ") + fmt::format("accepted by note {} ({}): {}",
                                                           c.accepted->note, c.accepted->author,
                                                           c.accepted->text);
    }
    return remark;
  };
  const auto first_remark =
      std::find_if(report.cases.begin(), report.cases.end(),
                   [&](const CaseComparison& c) { return !remark_of(c).empty(); });
  if (first_remark != report.cases.end()) {
    out << "\nnotes:";
    const auto first = static_cast<std::size_t>(first_remark - report.cases.begin());
    write_rows_in_order(out, report.cases.size() - first, [&](std::size_t i, std::string& text) {
      const CaseComparison& c = report.cases[first + i];
      const std::string remark = remark_of(c);
      if (remark.empty()) return;
      fmt::format_to(std::back_inserter(text), "\n  {} {}: {}", comparison_case_label(c), c.metric,
                     remark);
    });
    out << "\n";
  }
  out << failure_output_text(report);
  if (profiles != nullptr) write_regression_profiles_text(out, *profiles);
  if (!report.warnings.empty()) {
    out << "\n";
    for (const std::string& warning : report.warnings) out << "warning: " + warning + "\n";
  }
  out << "\n" + summary_text(report) + "\n";
  out << settings_text(report) + "\n";
  const char* gate_colour = report.state == compare::GateState::passed   ? "\x1b[1;32m"
                            : report.state == compare::GateState::failed ? "\x1b[1;31m"
                                                                         : "\x1b[1;33m";
  const std::string gate = "gate: " + gate_verdict_text(report);
  out << (colour ? gate_colour + gate + "\x1b[0m" : gate) + "\n";
}

std::string render_comparison_table(const ComparisonReport& report, bool colour,
                                    const compare::RegressionProfiles* profiles) {
  std::ostringstream out;
  write_comparison_table(out, report, colour, profiles);
  return out.str();
}

void write_comparison_markdown(std::ostream& out, const ComparisonReport& report,
                               const compare::RegressionProfiles* profiles) {
  out << fmt::format("### benchledger compare: {}\n\n", gate_title(report));
  out << configuration_markdown(report);
  out << fmt::format("Base: `{}` · current: `{}`\n\n", escape_markdown_cell(base_text(report)),
                     escape_markdown_cell(run_text(report.current)));
  out << escape_markdown(summary_text(report)) + ".\n";
  if (!report.warnings.empty()) {
    // Hosted runners trigger several of these on every pull request (a container, a VM, load):
    // one collapsed line keeps them from pushing the table down, and a click shows them all.
    std::string title = plural(report.warnings.size(), "warning", "warnings");
    if (!report.env_differences.empty()) {
      title += fmt::format(": the environments differ in {}",
                           plural(report.env_differences.size(), "field", "fields"));
    }
    out << "\n<details><summary>⚠️ " + escape_html(title) + "</summary>\n\n";
    for (const std::string& warning : report.warnings)
      out << "- " + escape_markdown(warning) + "\n";
    out << "\n</details>\n";
  }
  write_comparison_table_blocks(out, report);
  out << failure_output_markdown(report);
  if (profiles != nullptr) write_regression_profiles_markdown(out, *profiles);
}

std::string render_comparison_markdown(const ComparisonReport& report,
                                       const compare::RegressionProfiles* profiles) {
  std::ostringstream out;
  write_comparison_markdown(out, report, profiles);
  return out.str();
}

}  // namespace benchledger::report
