// What the units of records measure: the kind of a unit, and the factor between two units of
// the same kind (ns and ms, B and bytes). Formatting for people is report/format.hpp's job; this
// is what comparing values needs.
#pragma once

#include <optional>
#include <string_view>

namespace benchledger::model {

// What a unit measures, as far as scaling is concerned.
enum class UnitKind {
  time,   // ns, us, ms, s
  bytes,  // bytes or B
  rate,   // ops/s and other "…/s"
  count,  // count
  other,  // anything else
};
UnitKind unit_kind(std::string_view unit);

// Seconds per one of a time unit ("ns" → 1e-9), or nullopt when the unit is not a time unit.
std::optional<double> seconds_per_unit(std::string_view unit);

// The factor that turns a value in `from` into one in `to` (value_to = value_from * factor): 1
// for the same unit, 1e-3 from "us" to "ms", 1 from "B" to "bytes"; nullopt when the two do not
// measure the same thing in convertible units (ns and ops/s, count and bytes, two rates).
std::optional<double> unit_factor(std::string_view from, std::string_view to);

}  // namespace benchledger::model
