// The last lines of a program's output as benchledger records and shows them: a failed run's
// stderr in its result record, a failed build's output in the gate's comment. Both are kept and
// posted where anyone may read them, so the tail is bounded and goes through the one redaction
// rule (model/redact.hpp).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace benchledger::model {

// Enough to show why a program failed (a panic's message and the frames below it), little
// enough for a pull-request comment that lists several failed cases.
inline constexpr std::size_t k_tail_lines = 20;
inline constexpr std::size_t k_tail_bytes = 4096;

// The last `max_lines` lines of `text`, from at most its last `max_bytes` bytes (starting at a
// line where those bytes hold a line break), each through redact_secrets(); of a line with
// carriage returns, what follows the last (a progress bar's last state), bytes that are not UTF-8
// become U+FFFD and control characters other than tab are dropped, so that the result is valid
// in JSON, XML and Markdown alike. Blank lines at either end are left out; the lines are joined
// by '\n' with none at the end. Empty when the text holds nothing but white space.
std::string output_tail(std::string_view text, std::size_t max_lines = k_tail_lines,
                        std::size_t max_bytes = k_tail_bytes);

// The last lines of a log file as output_tail makes them (from its last k_tail_bytes that start a
// line), joined by `separator` (" | " puts them on the line of an error message); empty when the
// file cannot be read or holds nothing but white space. The one reader of a log's last lines: a
// failed initdb's, pgbench's, a gate step's.
std::string file_tail(const std::filesystem::path& path, std::size_t max_lines,
                      std::string_view separator = "\n");

}  // namespace benchledger::model
