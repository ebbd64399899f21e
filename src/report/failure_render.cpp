#include "report/failure_render.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/compare_render.hpp"
#include "report/escape.hpp"

namespace benchledger::report {
namespace {

// A fenced code block that the text cannot close: its fence is longer than any run of backticks
// in it.
std::string fenced(const std::string& text) {
  std::size_t longest = 0, run = 0;
  for (const char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(std::max<std::size_t>(3, longest + 1), '`');
  return fence + "text\n" + text + "\n" + fence + "\n";
}

std::string indented(const std::string& text, const std::string& indent) {
  std::string out;
  for (std::size_t at = 0; at <= text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    out += indent + text.substr(at, end - at) + "\n";
    at = end + 1;
  }
  return out;
}

// The cases that have stderr to show, once each (every metric of a case shows the same run),
// with the side that failed.
std::vector<std::pair<const compare::CaseComparison*, std::string>> with_output(
    const compare::ComparisonReport& report) {
  std::vector<std::pair<const compare::CaseComparison*, std::string>> out;
  std::set<std::string> seen;
  for (const compare::CaseComparison& c : report.cases) {
    if (c.failure_output.empty()) continue;
    if (!seen.insert(comparison_case_label(c)).second) continue;
    out.emplace_back(&c, c.verdict == compare::Verdict::failed ? "current" : "base");
  }
  return out;
}

std::string short_commit(const std::string& commit) {
  return commit.substr(0, 12);
}

// `the build of head`, `round 3, gate.run[0] of head`.
std::string step_subject(const GateError::Step& step) {
  return step.step.starts_with("round ") ? fmt::format("{} of {}", step.step, step.side)
                                         : fmt::format("the {} of {}", step.step, step.side);
}

}  // namespace

std::string failure_output_text(const compare::ComparisonReport& report) {
  std::string out;
  for (const auto& [c, side] : with_output(report)) {
    out += fmt::format("  {} ({} side), the last lines of its stderr:\n", comparison_case_label(*c),
                       side);
    out += indented(c->failure_output, "    ");
  }
  return out.empty() ? out : "\nstderr of the failed cases:\n" + out;
}

std::string failure_output_markdown(const compare::ComparisonReport& report) {
  std::string out;
  for (const auto& [c, side] : with_output(report)) {
    out += fmt::format("**{}** ({} side), the last lines of its stderr:\n\n",
                       escape_markdown(comparison_case_label(*c)), side);
    out += fenced(c->failure_output) + "\n";
  }
  return out.empty() ? out : "\n#### Why they failed\n\n" + out;
}

std::string render_gate_error_markdown(const GateError& error) {
  if (!error.step) {
    return "### benchledger gate: **no comparison**\n\nThe gate could not compare the two "
           "revisions (exit 2):\n\n" +
           fenced(error.message) +
           "\nEverything the gate ran, with its output, is in `gate.log` in the job's artifacts.\n";
  }
  const GateError::Step& step = *error.step;
  std::string subject = step_subject(step);
  std::string out = fmt::format("### benchledger gate: **no comparison**: {} failed\n\n", subject);
  subject[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(subject[0])));
  out += fmt::format("{} (`{}`) failed ({}), so nothing was compared and the gate exits 2.\n\n",
                     subject, short_commit(step.commit), escape_markdown(step.outcome));
  out += "Command:\n\n" + fenced(step.command) + "\n";
  out += step.output.empty() ? std::string("It printed nothing.\n\n")
                             : "The last lines of its output:\n\n" + fenced(step.output) + "\n";
  out += "Everything the gate ran, with its output, is in `gate.log` in the job's artifacts.\n";
  return out;
}

std::string render_gate_error_text(const GateError& error) {
  return error.message + "\n\ngate: ERROR (no comparison)\n";
}

std::string render_gate_error_json(const GateError& error) {
  nlohmann::ordered_json json;
  json["state"] = "error";
  json["gate"] = "error";
  nlohmann::ordered_json what;
  what["message"] = error.message;
  if (error.step) {
    what["side"] = error.step->side;
    what["commit"] = error.step->commit;
    what["step"] = error.step->step;
    what["command"] = error.step->command;
    what["outcome"] = error.step->outcome;
    what["output"] = error.step->output;
  }
  json["error"] = what;
  return json.dump(2) + "\n";
}

std::string render_gate_error_junit(const GateError& error) {
  const std::string name = error.step ? step_subject(*error.step) : "the gate";
  const std::string body =
      error.step && !error.step->output.empty() ? error.step->output : error.message;
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites name=\"benchledger gate\" tests=\"1\" failures=\"0\" errors=\"1\">\n";
  out +=
      "  <testsuite name=\"benchledger gate\" tests=\"1\" failures=\"0\" errors=\"1\" "
      "skipped=\"0\">\n";
  out +=
      fmt::format("    <testcase classname=\"benchledger.gate\" name=\"{}\">\n", escape_xml(name));
  out += fmt::format("      <error message=\"{}\">{}</error>\n", escape_xml(error.message),
                     escape_xml(body));
  out += "    </testcase>\n  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace benchledger::report
