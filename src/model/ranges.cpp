// The ranges of numbers flags and config keys take (see ranges.hpp).
#include "model/ranges.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>

#include <fmt/format.h>

namespace benchledger::model {

std::string describe(const NumberRange& range) {
  if (range.whole) return fmt::format("a whole number from {} to {}", range.low, range.high);
  if (range.low_included) return fmt::format("a number from {} to {}", range.low, range.high);
  return fmt::format("greater than {} and at most {}", range.low, range.high);
}

bool contains(const NumberRange& range, double value) {
  if (!std::isfinite(value) || value > range.high) return false;
  if (range.low_included ? value < range.low : !(value > range.low)) return false;
  return !range.whole || std::floor(value) == value;
}

std::optional<double> parse_in_range(const NumberRange& range, std::string_view text) {
  const char* end = text.data() + text.size();
  if (range.whole) {
    std::int64_t value = 0;
    const auto [at, error] = std::from_chars(text.data(), end, value);
    if (text.empty() || error != std::errc() || at != end) return std::nullopt;
    const auto number = static_cast<double>(value);
    return contains(range, number) ? std::optional<double>(number) : std::nullopt;
  }
  // from_chars, not strtod: "2.5" is two and a half whatever the process's locale (a
  // BENCHLEDGER_MAIN program may set one whose decimal point is a comma).
  double value = 0;
  const auto [at, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || at != end) return std::nullopt;
  return contains(range, value) ? std::optional<double>(value) : std::nullopt;
}

}  // namespace benchledger::model
