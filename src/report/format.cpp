// Number and unit formatting for reports. fmt formats, and from_chars reads, independently of the
// C locale, so the bytes do not depend on the machine or on a locale the program sets.
#include "report/format.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <utility>

#include <fmt/format.h>

namespace benchledger::report {
namespace {

struct TimeUnit {
  std::string_view name;  // as written in records
  std::string_view shown;
  double seconds;
};
// The display names of model::seconds_per_unit's units, smallest first.
constexpr std::array<TimeUnit, 4> k_time_units{{
    {"ns", "ns", 1e-9},
    {"us", "µs", 1e-6},
    {"ms", "ms", 1e-3},
    {"s", "s", 1.0},
}};

constexpr std::array<std::string_view, 6> k_byte_units{"B", "KiB", "MiB", "GiB", "TiB", "PiB"};

constexpr std::array<std::pair<std::string_view, double>, 4> k_si_prefixes{{
    {"k", 1e3},
    {"M", 1e6},
    {"G", 1e9},
    {"T", 1e12},
}};

std::string non_finite(double value) {
  if (std::isnan(value)) return "nan";
  return value > 0 ? "inf" : "-inf";
}

// Inserts thousands separators into a run of digits (optionally signed).
std::string group_thousands(std::string_view digits) {
  std::string sign;
  if (!digits.empty() && (digits.front() == '-' || digits.front() == '+')) {
    sign = std::string(1, digits.front());
    digits.remove_prefix(1);
  }
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return sign + out;
}

// The decimal exponent of `value` once rounded to `digits` significant digits (9.996 at three
// digits is 10.0, exponent 1).
// Read back with from_chars, not strtod or atoi: fmt writes '.', which strtod under a locale whose
// decimal point is a comma would stop at.
int rounded_exponent(double value, int digits) {
  const std::string text = fmt::format("{:.{}e}", value, digits - 1);
  const std::size_t e = text.find('e');
  // from_chars takes no '+': fmt writes the exponent's sign always.
  const std::size_t digits_at = e + (text[e + 1] == '+' ? 2 : 1);
  int exponent = 0;
  std::from_chars(text.data() + digits_at, text.data() + text.size(), exponent);
  return exponent;
}

double round_significant(double value, int digits) {
  if (value == 0 || !std::isfinite(value)) return value;
  const std::string text = fmt::format("{:.{}e}", value, digits - 1);
  double rounded = value;
  std::from_chars(text.data(), text.data() + text.size(), rounded);
  return rounded;
}

}  // namespace

std::string format_integer(std::int64_t value) {
  return group_thousands(fmt::format("{}", value));
}

std::string format_fixed(double value, int decimals) {
  if (!std::isfinite(value)) return non_finite(value);
  std::string text = fmt::format("{:.{}f}", value, decimals);
  if (text.front() == '-' && text.find_first_not_of("-0.") == std::string::npos) text.erase(0, 1);
  const std::size_t dot = text.find('.');
  const std::string whole = text.substr(0, dot);
  return group_thousands(whole) + (dot == std::string::npos ? "" : text.substr(dot));
}

std::string format_number(double value, int digits) {
  if (!std::isfinite(value)) return non_finite(value);
  if (digits < 1) digits = 1;
  if (value == 0) return "0";
  const int exponent = rounded_exponent(value, digits);
  if (exponent >= 3) return format_fixed(std::round(value), 0);
  if (exponent < -4) return fmt::format("{:.{}e}", value, digits - 1);
  return format_fixed(value, std::max(0, digits - 1 - exponent));
}

DisplayUnit display_unit(double magnitude, std::string_view unit) {
  magnitude = std::fabs(magnitude);
  switch (unit_kind(unit)) {
    case UnitKind::time: {
      const double seconds = *seconds_per_unit(unit);
      const TimeUnit* chosen = nullptr;
      if (magnitude == 0 || !std::isfinite(magnitude)) {
        for (const TimeUnit& t : k_time_units) {
          if (t.name == unit) chosen = &t;
        }
      } else {
        chosen = &k_time_units.front();
        for (const TimeUnit& t : k_time_units) {
          if (magnitude * seconds >= t.seconds * (1 - 1e-12)) chosen = &t;
        }
      }
      return {std::string(chosen->shown), seconds / chosen->seconds};
    }
    case UnitKind::bytes: {
      std::size_t index = 0;
      double factor = 1;
      while (std::isfinite(magnitude) && index + 1 < k_byte_units.size() &&
             magnitude * factor / 1024 >= 1) {
        factor /= 1024;
        ++index;
      }
      return {std::string(k_byte_units[index]), factor};
    }
    case UnitKind::count:
      return {"", 1};
    case UnitKind::rate:
    case UnitKind::other:
      break;
  }
  return {std::string(unit), 1};
}

std::string format_quantity(double value, std::string_view unit, int digits) {
  if (!std::isfinite(value))
    return non_finite(value) + (unit.empty() ? "" : " " + std::string(unit));
  const UnitKind kind = unit_kind(unit);
  if (kind == UnitKind::count && value == std::round(value) && std::fabs(value) < 1e15) {
    return format_integer(static_cast<std::int64_t>(value));  // counts are whole: 3, not 3.00
  }
  if (kind == UnitKind::rate || kind == UnitKind::other) {
    // An SI prefix on the number, chosen on the rounded value: 999,960 ops/s is "1.00M ops/s".
    const double rounded = std::fabs(round_significant(value, digits));
    std::string_view prefix;
    double scale = 1;
    for (const auto& [name, factor] : k_si_prefixes) {
      if (rounded >= factor) {
        prefix = name;
        scale = factor;
      }
    }
    const std::string number = format_number(value / scale, digits) + std::string(prefix);
    return unit.empty() ? number : number + " " + std::string(unit);
  }
  // Choose the unit on the rounded value, so that 999.9 ns is "1.00 µs", not "1,000 ns".
  DisplayUnit shown = display_unit(value, unit);
  shown = display_unit(round_significant(value * shown.factor, digits) / shown.factor, unit);
  const double scaled = value * shown.factor;
  // Whole multiples of a binary prefix are exact: 32 KiB, 16 GiB, not 32.0 KiB.
  const bool whole = unit_kind(unit) == UnitKind::bytes && scaled == std::round(scaled) &&
                     std::fabs(scaled) < 1e15;
  const std::string number =
      whole ? format_integer(static_cast<std::int64_t>(scaled)) : format_number(scaled, digits);
  return shown.unit.empty() ? number : number + " " + shown.unit;
}

std::string format_change(double fraction) {
  if (!std::isfinite(fraction)) return non_finite(fraction);
  const double percent = fraction * 100;
  if (std::fabs(percent) < 99.95) {
    const std::string text = fmt::format("{:+.1f}%", percent);
    return text == "+0.0%" || text == "-0.0%" ? "0.0%" : text;
  }
  const auto whole = static_cast<std::int64_t>(std::llround(percent));
  return (whole > 0 ? "+" : "") + format_integer(whole) + "%";
}

std::string format_percent(double fraction, int digits) {
  return format_number(fraction * 100, digits) + "%";
}

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
  return format_integer(static_cast<std::int64_t>(n)) + " " + std::string(n == 1 ? one : many);
}

std::size_t display_width(std::string_view text) {
  std::size_t width = 0;
  for (const char c : text) width += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return width;
}

std::string format_commit(const GitState& git) {
  if (!git.commit) return "-";
  return git.commit->substr(0, 12) + (git.dirty.value_or(false) ? "+dirty" : "");
}

}  // namespace benchledger::report
