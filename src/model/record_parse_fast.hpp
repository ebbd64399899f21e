// parse_record()'s fast path: the records benchledger itself writes (no unknown members, every
// value of the expected type), read with simdjson at several times nlohmann's speed. Finding a
// run's results in a large ledger parses a thousand records, so this is most of what it costs
// (docs/ledger.md, "Performance").
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>

#include <benchledger/record.hpp>

namespace benchledger::model {

// The record on `line`, exactly as parse_record() would return it, or nullopt when the line is
// anything else: invalid, or valid in a way the fast path leaves to parse_record (unknown
// members, for one), which then accepts it or says what is wrong. Throws nothing but
// std::bad_alloc.
std::optional<Record> parse_record_fast(std::string_view line);

// A result record as the fast path reads it, without building a ResultRecord: views into the
// line's parse and into storage of the thread, valid until the next read_result_fast() on it.
struct ResultView {
  std::string_view id, time, prev, run, bench, primary;
  const Params* params = nullptr;
  std::span<const std::pair<std::string_view, Metric>> metrics;  // in the line's order
  std::int64_t ops = 0, errors = 0;
};

// The result on `line`, exactly as parse_record_fast() would return it (the same checks, the same
// values), or nullopt when that would return nullopt or a record of another type, or for a line
// over 1 MiB: for a reader that needs a few fields of many results (compare) and leaves the rest
// to parse_record(). Throws nothing but std::bad_alloc.
std::optional<ResultView> read_result_fast(std::string_view line);

// parse_record() without the fast path: every record, every error message, through nlohmann.
// Tests hold the two paths to each other.
Record parse_record_slow(std::string_view line);

}  // namespace benchledger::model
