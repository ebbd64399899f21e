// A CLI11 check that a flag's number lies in its range from model/ranges.hpp, the table
// benchledger.json's keys are checked against too. CLI11's own Range words a refusal as "Value 0
// not in range 0.000000 to 0.500000" and prints DBL_MAX's 309 digits as a bound; this says what
// the flag takes: "--alpha: must be greater than 0 and at most 0.5, got 0" (CLI11 puts the
// flag's name in front).
#pragma once

#include <string>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "model/ranges.hpp"

namespace benchledger::cli {

inline CLI::Validator in_range(const model::NumberRange& range) {
  return CLI::Validator(
      [range](std::string& text) -> std::string {
        if (model::parse_in_range(range, text)) return "";
        return fmt::format("must be {}, got \"{}\"", model::describe(range), text);
      },
      range.whole ? fmt::format("{}..{}", range.low, range.high)
                  : fmt::format("{}{}..{}", range.low_included ? "" : ">", range.low, range.high));
}

}  // namespace benchledger::cli
