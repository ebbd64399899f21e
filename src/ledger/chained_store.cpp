// The append and import skeleton of every store (see chained_store.hpp).
#include "ledger/chained_store.hpp"

#include <algorithm>

#include <fmt/format.h>

#include <benchledger/error.hpp>

#include "ledger/chain.hpp"
#include "ledger/import_plan.hpp"
#include "model/redact.hpp"

namespace benchledger::ledger {

AppendResult ChainedStore::append(const std::vector<Record>& given) {
  // A ledger keeps what it is given for ever: whoever built the batch (run, gate, bisect, a
  // note), no credential goes in (model/redact.hpp). Copied only when there is one to hide.
  std::vector<Record> redacted;
  if (std::any_of(given.begin(), given.end(), model::holds_secret)) {
    redacted = given;
    for (Record& record : redacted) model::redact_record(record);
  }
  const std::vector<Record>& batch = redacted.empty() ? given : redacted;
  // Everything that can refuse the batch by itself is checked before the ledger is opened (or
  // created) for writing: a refused batch leaves no trace.
  std::vector<PendingRecord> pending = serialize_batch(batch);
  AppendResult result;
  BatchOutline outline{pending.empty(), pending.empty() ? "-" : pending.front().id};
  result.head = write_batch(outline, [&](Batch& out, std::string head) {
    if (pending.empty()) return head;
    head = chain_onto(pending, head);
    std::int64_t bytes = 0;
    for (const auto& record : pending) bytes += static_cast<std::int64_t>(record.bytes.size()) + 1;
    out.begin_writes(bytes, head);
    out.write(pending, batch);
    result.appended = static_cast<std::int64_t>(pending.size());
    return head;
  });
  return result;
}

AppendResult ChainedStore::import(const ImportSource& records) {
  // The first pass checks every record before the ledger is opened (or created) for writing: a
  // refused import leaves no trace.
  ImportPlan plan(records);
  AppendResult result;
  BatchOutline outline{plan.distinct_ids() == 0, "the import's first record"};
  result.head = write_batch(outline, [&](Batch& out, std::string head) {
    // Idempotent by id: the same content (prev aside) is skipped, other content refused.
    out.find_present(plan);
    result.skipped = plan.skipped();
    if (plan.kept() == 0) return head;
    out.begin_writes(plan.kept_bytes(), std::string(k_zero_hash));
    head = plan.append_chunks(
        records, head, [&](std::vector<PendingRecord>& pending, const std::vector<Record>& from) {
          out.write(pending, from);
        });
    result.appended = plan.kept();
    return head;
  });
  return result;
}

Record ChainedStore::parse_stored(std::string_view bytes, const std::string& ledger,
                                  std::string_view unit, std::int64_t position) {
  try {
    return parse_record(bytes);
  } catch (const Error& e) {
    throw IntegrityError(fmt::format("{} {} {}: {} (run `benchledger ledger verify`)", ledger, unit,
                                     position, e.what()));
  }
}

}  // namespace benchledger::ledger
