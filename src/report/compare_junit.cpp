// JUnit XML of a comparison, in the shape CI systems' test views read (Jenkins, GitLab,
// GitHub test reporters): testsuites > testsuite > testcase, <failure> for gate failures.
#include <iterator>
#include <ostream>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "report/compare_render.hpp"
#include "report/escape.hpp"
#include "report/format.hpp"
#include "report/rows_in_order.hpp"

namespace benchledger::report {
namespace {

std::string describe(const compare::CaseComparison& c) {
  std::string what = c.change ? format_change(*c.change) : std::string("no relative change");
  const compare::Verdict judged = c.judged.value_or(c.verdict);
  if (judged == compare::Verdict::new_case) what = "not in the base run";
  if (judged == compare::Verdict::missing) what = "not in the current run";
  std::string text = fmt::format("{}: {}", compare::to_string(c.verdict), what);
  if (c.verdict == compare::Verdict::accepted_by_change) {
    text =
        fmt::format("{} ({}): {}", compare::to_string(c.verdict), accepted_by_change_text(c), what);
  }
  if (c.ci_low && c.ci_high) {
    text +=
        fmt::format(" (interval {} to {})", format_change(*c.ci_low), format_change(*c.ci_high));
  }
  if (c.p_adjusted) text += fmt::format(", adjusted p {:.3g}", *c.p_adjusted);
  text += fmt::format(", threshold {:g}%", 100.0 * c.threshold);
  if (c.base_center) {
    text += ", base " + format_quantity(*c.base_center, c.base_unit);
  }
  if (c.current_center) text += ", current " + format_quantity(*c.current_center, c.unit);
  if (!c.remark.empty()) text += "; " + c.remark.str();
  if (const std::string d = format_detectable(c); !d.empty()) text += "; " + d;
  return text;
}

}  // namespace

void write_comparison_junit(std::ostream& out, const compare::ComparisonReport& report) {
  std::size_t failures = 0;
  for (const compare::CaseComparison& c : report.cases) failures += c.fails_on_verdict ? 1 : 0;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << fmt::format("<testsuites name=\"benchledger compare\" tests=\"{}\" failures=\"{}\">\n",
                     report.cases.size(), failures);
  out << fmt::format(
      "  <testsuite name=\"benchledger compare\" tests=\"{}\" failures=\"{}\" errors=\"0\" "
      "skipped=\"0\">\n",
      report.cases.size(), failures);
  out << "    <properties>\n";
  const auto property = [&](const std::string& name, const std::string& value) {
    out << fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", escape_xml(name),
                       escape_xml(value));
  };
  for (const compare::RunSummary& run : report.base) property("base", run.id);
  property("current", report.current.id);
  property("gate", report.gate_pass ? "pass" : "fail");
  property("state", std::string(compare::to_string(report.state)));
  for (const compare::SettingChange& change : report.configuration)
    property("configuration", setting_change_text(change));
  for (const std::string& warning : report.warnings) property("warning", warning);
  out << "    </properties>\n";
  write_rows_in_order(out, report.cases.size(), [&](std::size_t i, std::string& text) {
    const compare::CaseComparison& c = report.cases[i];
    auto to = std::back_inserter(text);
    const std::string classname = c.bench.substr(0, c.bench.find('/'));
    fmt::format_to(to, "    <testcase classname=\"{}\" name=\"{}\"", escape_xml(classname),
                   escape_xml(comparison_case_label(c) + " " + c.metric));
    const std::string what = describe(c);
    if (c.fails_on_verdict) {
      const std::string body = c.failure_output.empty()
                                   ? what
                                   : what + "\nthe last lines of its stderr:\n" + c.failure_output;
      fmt::format_to(to,
                     ">\n      <failure type=\"{}\" message=\"{}\">{}</failure>\n    </testcase>\n",
                     compare::to_string(c.verdict), escape_xml(what), escape_xml(body));
    } else if (c.accepted) {
      fmt::format_to(
          to,
          ">\n      <system-out>{}; accepted by note {} ({}): {}</system-out>\n    </testcase>\n",
          escape_xml(what), escape_xml(c.accepted->note), escape_xml(c.accepted->author),
          escape_xml(c.accepted->text));
    } else {
      fmt::format_to(to, ">\n      <system-out>{}</system-out>\n    </testcase>\n",
                     escape_xml(what));
    }
  });
  if (!report.warnings.empty()) {
    out << "    <system-err>";
    for (const std::string& warning : report.warnings)
      out << "warning: " + escape_xml(warning) + "\n";
    out << "</system-err>\n";
  }
  out << "  </testsuite>\n</testsuites>\n";
}

std::string render_comparison_junit(const compare::ComparisonReport& report) {
  std::ostringstream out;
  write_comparison_junit(out, report);
  return out.str();
}

}  // namespace benchledger::report
