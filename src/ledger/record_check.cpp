// The rules of parse_record() (src/model/record_parse.cpp), checked on structs (see
// record_check.hpp).
#include "ledger/record_check.hpp"

#include <benchledger/error.hpp>

#include "model/record_rules.hpp"

namespace benchledger::ledger {

namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& reason) {
  throw Error("field \"" + path + "\": " + reason);
}

void check_ulid(const std::string& value, const std::string& path) {
  if (!is_ulid(value)) refuse(path, "expected a ULID (26 Crockford base32 characters)");
}

void check_header(const Header& header) {
  check_ulid(header.id, "id");
  if (!model::is_rfc3339_utc(header.time)) {
    refuse("time", "expected RFC 3339 UTC with microseconds, like 2026-11-22T04:27:59.123456Z");
  }
}

void check(const RunRecord& run) {
  if (run.label && !model::is_label(*run.label)) {
    refuse("label", "expected 1 to 64 characters of [A-Za-z0-9._-]");
  }
  if (run.env.load_avg && run.env.load_avg->size() != 3) {
    refuse("env.load_avg", "expected 3 numbers or null");
  }
  if (run.source.empty()) refuse("source", "must not be empty");
}

void check(const ResultRecord& result) {
  check_ulid(result.run, "run");
  if (result.bench.empty()) refuse("bench", "must not be empty");
  for (const auto& [name, metric] : result.metrics) {
    if (metric.unit.empty()) refuse("metrics." + name + ".unit", "must not be empty");
    if (metric.summary.n < 0) refuse("metrics." + name + ".summary.n", "must not be negative");
  }
  if (result.metrics.count(result.primary) == 0) {
    refuse("primary", "names no metric of this result: \"" + result.primary + "\"");
  }
  if (result.ops < 0) refuse("ops", "must not be negative");
  if (result.errors < 0) refuse("errors", "must not be negative");
}

void check(const NoteRecord& note) {
  check_ulid(note.target, "target");
}

}  // namespace

void check_record(const Record& record) {
  check_header(header_of(record));
  std::visit([](const auto& typed) { check(typed); }, record);
}

}  // namespace benchledger::ledger
