// The shapes of a record's fields that parse_record() (both of its paths) and the ledger's
// check of records about to be written hold them to (docs/records.md, "Validation").
#pragma once

#include <string_view>

namespace benchledger::model {

// RFC 3339 UTC with microseconds: 2026-11-22T04:27:59.123456Z.
inline bool is_rfc3339_utc(std::string_view text) {
  static constexpr std::string_view shape = "dddd-dd-ddTdd:dd:dd.ddddddZ";
  if (text.size() != shape.size()) return false;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 'd' ? (text[i] < '0' || text[i] > '9') : text[i] != shape[i]) return false;
  }
  return true;
}

// A SHA-256 as `prev` holds it: 64 lower-case hex digits.
inline bool is_lower_hex64(std::string_view text) {
  if (text.size() != 64) return false;
  for (const char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// A run's label: 1 to 64 characters of [A-Za-z0-9._-].
inline bool is_label(std::string_view label) {
  if (label.empty() || label.size() > 64) return false;
  for (const char c : label) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum && c != '.' && c != '_' && c != '-') return false;
  }
  return true;
}

}  // namespace benchledger::model
