// Numbers as people read them in reports and tables: significant digits, thousands separators,
// and the unit scaled to fit the value (1.23 ms, 9,377 ops/s, 512 MiB, +4.3%).
//
// Every function here is pure and locale-independent (the same value gives the same bytes on
// every machine), so that golden files of the outputs that use them stay stable. Non-finite
// values are formatted as "nan", "inf" and "-inf" rather than refused: a report shows what the
// record holds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace benchledger::report {

// What a unit measures, as far as scaling is concerned.
enum class UnitKind {
  time,   // ns, us, ms, s: scaled between ns, µs, ms and s
  bytes,  // bytes: scaled in powers of 1024 (B, KiB, MiB, GiB, TiB)
  rate,   // ops/s and other "…/s": never scaled, whole numbers with separators from 1,000
  count,  // count: printed without a unit, whole values without decimals
  other,  // anything else: the number and the unit as written
};
UnitKind unit_kind(std::string_view unit);

// Seconds per one of a time unit ("ns" → 1e-9), or nullopt when the unit is not a time unit.
std::optional<double> seconds_per_unit(std::string_view unit);

// `value` with `digits` significant digits (trailing zeros kept: 1.20), except that values whose
// magnitude reaches 1,000 are rounded to whole numbers with thousands separators (9,377).
// Magnitudes below 1e-4 use scientific notation (1.23e-05). Zero is "0".
std::string format_number(double value, int digits = 3);

// A whole number with thousands separators: 1,000,000.
std::string format_integer(std::int64_t value);

// `value` with exactly `decimals` decimals and thousands separators: 1,234.50.
std::string format_fixed(double value, int decimals);

// The unit a value is best shown in, and the factor that converts into it:
// shown = value * factor. For time the largest of ns/µs/ms/s that keeps the magnitude at 1 or
// more; for bytes the largest binary prefix that does; other kinds are not scaled.
struct DisplayUnit {
  std::string unit;  // as shown: "ms", "µs", "MiB", "ops/s"; empty for counts
  double factor = 1;
};
DisplayUnit display_unit(double magnitude, std::string_view unit);

// A value in its unit, scaled: format_quantity(1234567, "ns") == "1.23 ms",
// format_quantity(9377.4, "ops/s") == "9,377 ops/s", format_quantity(536870912, "bytes") ==
// "512 MiB" (whole multiples of a prefix without decimals: "32 KiB"), format_quantity(3,
// "count") == "3".
std::string format_quantity(double value, std::string_view unit, int digits = 3);

// A relative change given as a fraction, with its sign: 0.0431 → "+4.3%", -0.2 → "-20.0%",
// 11.35 → "+1,135%". One decimal below 100%, whole percent from there.
std::string format_change(double fraction);

// A fraction as a percentage without sign: 0.0467 → "4.67%", 0 → "0%".
std::string format_percent(double fraction, int digits = 3);

}  // namespace benchledger::report
