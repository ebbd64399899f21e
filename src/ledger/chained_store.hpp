// The append and import that every store shares (docs/ledger.md): what can refuse a batch by
// itself (a bad record, an id repeated with other content) is checked before the ledger is opened
// for writing, so a refused batch leaves no trace; under the store's writers' lock the records are
// chained onto the checked head and written as one all-or-nothing unit; an import skips the ids
// the ledger holds with the same content and refuses those it holds with other content. An
// append writes each record through model::redact_record() (no credential is kept); an import
// copies records as they are, their bytes being chained. A store supplies only what is its own:
// the lock, the head, looking ids up and writing rows or lines.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <benchledger/ledger.hpp>

namespace benchledger::ledger {

struct PendingRecord;
class ImportPlan;

class ChainedStore : public Store {
 public:
  AppendResult append(const std::vector<Record>& batch) final;
  using Store::import;
  AppendResult import(const ImportSource& records) final;
  std::vector<std::string> warnings() const final { return m_warnings; }

  // The record held as `bytes` at `position`, or IntegrityError naming the ledger and the place
  // (`LEDGER record 7`, `LEDGER line 7`, `unit` being "record" or "line") and what to run.
  static Record parse_stored(std::string_view bytes, const std::string& ledger,
                             std::string_view unit, std::int64_t position);

  // One batch being written under the store's lock (write_batch()).
  class Batch {
   public:
    virtual ~Batch() = default;
    // Hands plan.present() each record the ledger holds whose id the plan wants (an import).
    virtual void find_present(ImportPlan& plan) = 0;
    // Called once, before the first write: the records about to be written take `bytes` as NDJSON
    // lines ('\n' included), and `head` is the hash of their last one, or 64 zeros when it is
    // known only once they are all written (an import's).
    virtual void begin_writes(std::int64_t bytes, const std::string& head) {
      static_cast<void>(bytes);
      static_cast<void>(head);
    }
    // Writes chained records after the last one, in order: pending[i] was serialized from
    // records[pending[i].index].
    virtual void write(std::vector<PendingRecord>& pending, const std::vector<Record>& records) = 0;
  };

  // What write_batch() may know before it opens the ledger.
  struct BatchOutline {
    bool empty = false;    // nothing to write: a ledger not created yet need not be
    std::string first_id;  // for a message that must name the batch before it is written
  };

 protected:
  // Opens the ledger for writing (creating it unless the batch is empty), takes the writers' lock
  // and reads the head, checked (checked_tail()); `body` writes through the Batch and returns the
  // new head, which write_batch() returns once what was written is durable. Throws Error with
  // nothing written (ConflictError and IntegrityError as `body` or the head check threw them).
  virtual std::string write_batch(
      const BatchOutline& outline,
      const std::function<std::string(Batch& batch, std::string head)>& body) = 0;

  mutable std::vector<std::string> m_warnings;  // from the last read or write
};

}  // namespace benchledger::ledger
