// Unit kinds and conversions between units of one kind.
#include "model/units.hpp"

#include <array>
#include <utility>

namespace benchledger::model {
namespace {

constexpr std::array<std::pair<std::string_view, double>, 4> k_seconds{{
    {"ns", 1e-9},
    {"us", 1e-6},
    {"ms", 1e-3},
    {"s", 1.0},
}};

}  // namespace

UnitKind unit_kind(std::string_view unit) {
  if (seconds_per_unit(unit)) return UnitKind::time;
  if (unit == "bytes" || unit == "B") return UnitKind::bytes;
  if (unit == "count") return UnitKind::count;
  if (unit.size() > 2 && unit.ends_with("/s")) return UnitKind::rate;
  return UnitKind::other;
}

std::optional<double> seconds_per_unit(std::string_view unit) {
  for (const auto& [name, seconds] : k_seconds) {
    if (unit == name) return seconds;
  }
  return std::nullopt;
}

std::optional<double> unit_factor(std::string_view from, std::string_view to) {
  if (from == to) return 1.0;
  const auto from_seconds = seconds_per_unit(from), to_seconds = seconds_per_unit(to);
  if (from_seconds && to_seconds) return *from_seconds / *to_seconds;
  if (unit_kind(from) == UnitKind::bytes && unit_kind(to) == UnitKind::bytes) return 1.0;
  return std::nullopt;
}

}  // namespace benchledger::model
