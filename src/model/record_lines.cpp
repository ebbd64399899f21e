// NDJSON text to records, for the outputs of programs that print their records.
#include "model/record_lines.hpp"

#include <fmt/format.h>
#include <benchledger/error.hpp>

#include "model/lines.hpp"

namespace benchledger::model {

std::vector<Record> parse_record_lines(std::string_view text, std::string_view origin) {
  std::vector<Record> records;
  for (const TextLine& line : Lines(text)) {
    try {
      records.push_back(parse_record(line.text));
    } catch (const Error& e) {
      throw Error(fmt::format("{}: output line {}: {}", origin, line.number, e.what()));
    }
  }
  return records;
}

}  // namespace benchledger::model
