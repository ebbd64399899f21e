// Small pieces of text every output of a case shares: its label and a CSV field.
#pragma once

#include <string>
#include <string_view>

#include <benchledger/record.hpp>

namespace benchledger::report {

// A case as the human forms name it: `bench [k=v, ...]`, or `bench` without params.
std::string case_label(const std::string& bench, const Params& params);

// One RFC 4180 field: quoted when it holds a comma, quote or line break, quotes doubled.
std::string csv_field(const std::string& text);
// The same field at the end of `line`.
void append_csv_field(std::string& line, std::string_view text);

}  // namespace benchledger::report
