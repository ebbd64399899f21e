// Reading the few fields a query needs straight from a record's canonical bytes, without a
// JSON parse. serialize() writes keys in a fixed order with no whitespace, so a record begins
// `{"schema":"benchledger/1","type":"result","id":"…","time":"…","prev":"…","run":"…"` and
// those fields sit at fixed offsets. Anything that does not have exactly this shape (a record
// written by hand, say) yields nullopt, and the caller falls back to parse_record().
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace benchledger::ledger {

enum class RecordType { run, result, note };

struct CanonicalPeek {
  RecordType type = RecordType::run;
  std::string_view id;    // 26 characters
  std::string_view prev;  // 64 characters
  std::string_view run;   // results only: the run id
};

// The header fields of a canonical record, or nullopt when `line` is not shaped canonically.
std::optional<CanonicalPeek> peek_canonical(std::string_view line);

// A run record's label and git commit, read from canonical bytes; nullopt when the line is not
// a canonical run record (the caller then parses it). An inner nullopt is JSON null.
struct RunPeek {
  std::optional<std::string_view> label;
  std::optional<std::string_view> commit;
};
std::optional<RunPeek> peek_run(std::string_view line);

// Where a canonical record keeps its `prev` value: the offset of its 64 characters, or npos.
std::size_t prev_offset(std::string_view line);

}  // namespace benchledger::ledger
