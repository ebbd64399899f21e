// Fuzz target `record_parser`, the record parser: parse_record() on any bytes either throws
// benchledger::Error or returns a record that round-trips through its canonical bytes; its fast
// path (simdjson) and its full path (nlohmann) agree; and the ledger's fixed-offset reads and
// append()'s record check agree with the parse. Anything else (a
// crash, another exception, a broken round trip) is a finding.
#include <string_view>

#include <benchledger/error.hpp>
#include <benchledger/record.hpp>

#include "fuzz_targets.hpp"
#include "ledger/canonical.hpp"
#include "ledger/record_check.hpp"
#include "model/record_parse_fast.hpp"

namespace benchledger::fuzz {

void record_parser(std::string_view line) {
  // parse_record's simdjson fast path returns exactly what the nlohmann path returns, or
  // leaves the line to it: it never accepts what the other refuses.
  const auto fast = benchledger::model::parse_record_fast(line);
  benchledger::Record record;
  try {
    record = benchledger::model::parse_record_slow(line);
  } catch (const benchledger::Error&) {
    require(!fast.has_value());
    return;  // refused with a message: what bad input should get
  }
  if (fast) {
    require(*fast == record);
    // == does not tell -0.0 from 0.0; the canonical bytes do (and a record the fast path
    // returns can always be written: an exception here is a finding too).
    require(benchledger::serialize(*fast) == benchledger::serialize(record));
  }
  benchledger::ledger::check_record(record);  // what append() checks must accept it too
  std::string bytes;
  try {
    bytes = benchledger::serialize(record);
  } catch (const benchledger::Error&) {
    return;  // e.g. an unknown field holding a string nlohmann cannot write back
  }
  const benchledger::Record again = benchledger::parse_record(bytes);
  require(again == record);
  require(benchledger::serialize(again) == bytes);

  const auto peek = benchledger::ledger::peek_canonical(bytes);
  require(peek.has_value());  // serialize() always writes the canonical shape
  require(peek->id == benchledger::header_of(record).id);
  require(peek->prev == benchledger::header_of(record).prev);
  require(benchledger::type_name(record) ==
          (peek->type == benchledger::ledger::RecordType::run      ? "run"
           : peek->type == benchledger::ledger::RecordType::result ? "result"
                                                                   : "note"));
  if (const auto* result = std::get_if<benchledger::ResultRecord>(&record)) {
    require(peek->run == result->run);
  }
  if (const auto* run = std::get_if<benchledger::RunRecord>(&record)) {
    const auto fields = benchledger::ledger::peek_run(bytes);
    if (fields) {
      require(fields->label.has_value() == run->label.has_value());
      if (run->label) require(*fields->label == *run->label);
      require(fields->commit.has_value() == run->git.commit.has_value());
    }
  }
  // The same bytes read by the fixed-offset reader from the input, when it is canonical.
  if (const auto input_peek = benchledger::ledger::peek_canonical(line)) {
    require(input_peek->id == benchledger::header_of(record).id);
  }
}

}  // namespace benchledger::fuzz
