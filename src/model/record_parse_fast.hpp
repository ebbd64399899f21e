// parse_record()'s fast path: the records benchledger itself writes (no unknown members, every
// value of the expected type), read with simdjson at several times nlohmann's speed. Finding a
// run's results in a large ledger parses a thousand records, so this is most of what it costs
// (docs/ledger.md, "Performance").
#pragma once

#include <optional>
#include <string_view>

#include <benchledger/record.hpp>

namespace benchledger::model {

// The record on `line`, exactly as parse_record() would return it, or nullopt when the line is
// anything else: invalid, or valid in a way the fast path leaves to parse_record (unknown
// members, for one), which then accepts it or says what is wrong. Throws nothing but
// std::bad_alloc.
std::optional<Record> parse_record_fast(std::string_view line);

// parse_record() without the fast path: every record, every error message, through nlohmann.
// Tests hold the two paths to each other.
Record parse_record_slow(std::string_view line);

}  // namespace benchledger::model
