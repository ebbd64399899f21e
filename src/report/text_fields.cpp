#include "report/text_fields.hpp"

#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace benchledger::report {

std::string case_label(const std::string& bench, const Params& params) {
  if (params.empty()) return bench;
  std::vector<std::string> parts;
  for (const auto& [key, value] : params) parts.push_back(key + "=" + to_string(value));
  return fmt::format("{} [{}]", bench, fmt::join(parts, ", "));
}

std::string csv_field(const std::string& text) {
  std::string out;
  append_csv_field(out, text);
  return out;
}

void append_csv_field(std::string& line, std::string_view text) {
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) {
    line += text;
    return;
  }
  line += '"';
  for (const char ch : text) {
    if (ch == '"') line += '"';
    line += ch;
  }
  line += '"';
}

}  // namespace benchledger::report
