// NDJSON text to records, for the outputs of programs that print their records (a
// BENCHLEDGER_MAIN program's, a round of `benchledger gate`).
#pragma once

#include <string_view>
#include <vector>

#include <benchledger/record.hpp>

namespace benchledger::model {

// One record per line, read by the rule of model/lines.hpp (blank lines skipped, CRLF and a last
// line without '\n' read). Throws benchledger::Error `<origin>: output line N: <the message of
// parse_record>`.
std::vector<Record> parse_record_lines(std::string_view text, std::string_view origin);

}  // namespace benchledger::model
