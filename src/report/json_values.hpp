// Optional figures and texts as benchledger's JSON outputs write them (compare's and explain's).
#pragma once

#include <cmath>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace benchledger::report {

// The figure times `scale`; null when it is absent or not finite.
inline nlohmann::ordered_json optional_number(const std::optional<double>& value,
                                              double scale = 1.0) {
  if (!value || !std::isfinite(*value)) return nullptr;
  return *value * scale;
}

inline nlohmann::ordered_json optional_text(const std::optional<std::string>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

}  // namespace benchledger::report
