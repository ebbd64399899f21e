// NDJSON text to records, for the outputs of programs that print their records.
#include "model/record_lines.hpp"

#include <fmt/format.h>
#include <benchledger/error.hpp>

namespace benchledger::model {

std::vector<Record> parse_record_lines(std::string_view text, std::string_view origin) {
  std::vector<Record> records;
  std::int64_t number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++number;
    if (line.empty()) continue;
    try {
      records.push_back(parse_record(line));
    } catch (const Error& e) {
      throw Error(fmt::format("{}: output line {}: {}", origin, number, e.what()));
    }
  }
  return records;
}

}  // namespace benchledger::model
