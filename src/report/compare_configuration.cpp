// The gate configuration's differences and the `accepted by this change` verdict in compare's
// outputs (compare/gate_configuration.hpp says what they mean).
#include <string>
#include <vector>

#include <fmt/format.h>

#include "report/compare_render.hpp"
#include "report/escape.hpp"
#include "report/format.hpp"

namespace benchledger::report {
namespace {

// A value as a code span, or `none` as a word; a backtick inside needs a longer fence.
std::string markdown_value(const std::string& value) {
  if (value == "none") return "none";
  const std::string fence = value.find('`') == std::string::npos ? "`" : "`` ";
  const std::string close = fence == "`" ? "`" : " ``";
  return fence + escape_markdown_cell(value) + close;
}

}  // namespace

std::string setting_change_text(const compare::SettingChange& change) {
  return fmt::format("{}: {} -> {}", change.key, change.base, change.head);
}

std::string accepted_by_change_text(const compare::CaseComparison& c) {
  std::vector<std::string> settings;
  for (const compare::SettingChange& s : c.loosened) {
    settings.push_back(fmt::format("{} {} -> {}", s.key, s.base, s.head));
  }
  const std::string judged(c.judged ? compare::to_string(*c.judged) : "failed");
  if (settings.empty()) return fmt::format("{} by the base's configuration", judged);
  return fmt::format("{} by the base's configuration; {}", judged, fmt::join(settings, ", "));
}

std::string accepted_by_change_suffix(const compare::ComparisonReport& report) {
  const std::size_t accepted = report.count(compare::Verdict::accepted_by_change);
  if (accepted == 0) return {};
  return fmt::format(" ({} accepted by this change)", plural(accepted, "case", "cases"));
}

std::string configuration_text(const compare::ComparisonReport& report) {
  if (report.configuration.empty()) return {};
  std::string out =
      "configuration: the head's benchledger.json differs from the base's, which judges:\n";
  for (const compare::SettingChange& change : report.configuration) {
    out += "  " + setting_change_text(change) + "\n";
  }
  return out + "\n";
}

std::string configuration_markdown(const compare::ComparisonReport& report) {
  if (report.configuration.empty()) return {};
  std::string out =
      "**Gate configuration**: the head's `benchledger.json` differs from the base's, which "
      "judges.\n\n| Setting | Base | Head |\n|---|---|---|\n";
  for (const compare::SettingChange& change : report.configuration) {
    out += fmt::format("| {} | {} | {} |\n", markdown_value(change.key),
                       markdown_value(change.base), markdown_value(change.head));
  }
  return out +
         "\nThe base's settings measure and judge both sides. A case that passes only by the "
         "head's setting is *accepted by this change* (it passes, and is listed first); one that "
         "fails by the head's stricter setting fails; a `gate.run` entry only the head has "
         "measures the head alone (its cases are new).\n\n";
}

}  // namespace benchledger::report
