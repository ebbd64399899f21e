// Numbers as people read them: significant digits, thousands separators, and the unit scaled
// to fit the value (1.23 ms, 18.5 µs, 54.4k ops/s, 512 MiB, +4.3%). The one formatter of values
// with units: run, ledger show, compare (table, Markdown, JUnit) and report all print through
// format_quantity, so that one value reads the same everywhere; JSON and CSV keep raw numbers.
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

#include <benchledger/record.hpp>

#include "model/units.hpp"

namespace benchledger::report {

// Time is scaled between ns, µs, ms and s; bytes in powers of 1024 (B, KiB, MiB, GiB, TiB);
// rates and other units get an SI prefix on the number from 1,000 (54.4k ops/s); a count is
// printed without a unit, whole values without decimals.
using model::seconds_per_unit;
using model::unit_kind;
using model::UnitKind;

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
// more; for bytes the largest binary prefix that does; other kinds are not scaled (a chart's
// axis keeps "ops/s").
struct DisplayUnit {
  std::string unit;  // as shown: "ms", "µs", "MiB", "ops/s"; empty for counts
  double factor = 1;
};
DisplayUnit display_unit(double magnitude, std::string_view unit);

// A value in its unit, scaled, with `digits` significant digits: format_quantity(1234567, "ns")
// == "1.23 ms", format_quantity(54412, "ops/s") == "54.4k ops/s", format_quantity(536870912,
// "bytes") == "512 MiB" (whole multiples of a prefix without decimals: "32 KiB"),
// format_quantity(3, "count") == "3". Never an exponent of 10 for a value from 1e-4 up.
std::string format_quantity(double value, std::string_view unit, int digits = 3);

// A relative change given as a fraction, with its sign: 0.0431 → "+4.3%", -0.2 → "-20.0%",
// 11.35 → "+1,135%". One decimal below 100%, whole percent from there.
std::string format_change(double fraction);

// A fraction as a percentage without sign: 0.0467 → "4.67%", 0 → "0%".
std::string format_percent(double fraction, int digits = 3);

// A count and its noun: plural(1, "result", "results") == "1 result", plural(1000, …) ==
// "1,000 results".
std::string plural(std::size_t n, std::string_view one, std::string_view many);

// The width of UTF-8 text on a terminal: its code points, which is right for what benchledger
// prints (µs, ±, no wide characters), for aligning columns.
std::size_t display_width(std::string_view text);

// A run's commit as every output shows it: its first 12 hex digits, with "+dirty" when the work
// tree had uncommitted changes (`49a18b82c0de+dirty`); "-" when no commit was recorded.
std::string format_commit(const GitState& git);

}  // namespace benchledger::report
