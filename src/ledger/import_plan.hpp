// Importing in bounded memory (docs/ledger.md, "Import and export"). An import reads its records
// twice. The first pass, made before a store opens its ledger for writing, checks and serializes
// every record and keeps of each only its id, the SHA-256 of its content (`prev` aside) and its
// length: a bad record, or an id repeated with other content, refuses the import there and
// leaves no trace. Under the store's lock the plan learns which of its ids the ledger holds
// (present()); the second pass (append_chunks()) serializes the records again, a chunk at a time,
// chains the ones to append onto the ledger's head and hands them to the store, checking that
// the source gave the same records as the first time.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <benchledger/ledger.hpp>

#include "ledger/chain.hpp"

namespace benchledger::ledger {

// The records an ImportSource holds, with a std::vector<Record> as the source.
class RecordsSource final : public ImportSource {
 public:
  explicit RecordsSource(const std::vector<Record>& records) : m_records(records) {}
  void each(const std::function<void(Record&& record, std::size_t index)>& visit) const override;

 private:
  const std::vector<Record>& m_records;
};

class ImportPlan {
 public:
  // Records serialized at a time in the second pass (and checked at a time in the first): about
  // 1 MB of bytes, and enough for serialize_batch() to spread over the CPUs.
  static constexpr std::size_t k_chunk = 1000;

  // The first pass. Throws Error naming a bad record, ConflictError naming the first record whose
  // id came earlier in the source with other content.
  explicit ImportPlan(const ImportSource& source);

  // Whether a record to import has this id.
  bool wants(std::string_view id) const;
  // The ledger holds `id` with these bytes, at `position` (for messages): the records with this
  // id are skipped when their content (`prev` aside) is the same; otherwise ConflictError, whose
  // message names the record as already in `ledger` at `position`.
  void present(std::string_view id, std::string_view bytes, const std::string& ledger,
               const std::string& position);
  // Every id to import, sorted, at most once each (for stores that look ids up).
  std::vector<std::string> ids(std::size_t from, std::size_t count) const;
  std::size_t distinct_ids() const { return m_by_id.size(); }

  std::int64_t kept() const { return m_kept; }
  std::int64_t skipped() const { return static_cast<std::int64_t>(m_entries.size()) - m_kept; }
  // The bytes the kept records take in an NDJSON file, each line's '\n' included.
  std::int64_t kept_bytes() const { return m_kept_bytes; }

  // The second pass: `write` gets the kept records a chunk at a time, in order, chained onto
  // `head`, with the records they were serialized from (pending[i].index is the place in
  // `records`). Returns the new head. Throws Error when the source no longer gives the records
  // of the first pass (a file changed in between), before the chunk that differs is handed on.
  std::string append_chunks(
      const ImportSource& source, std::string head,
      const std::function<void(std::vector<PendingRecord>& pending,
                               const std::vector<Record>& records)>& write) const;

 private:
  struct Entry {
    std::array<char, 26> id;                // a ULID: check_record() refuses anything else
    std::array<unsigned char, 32> content;  // SHA-256 of the bytes with `prev` as 64 zeros
    std::uint32_t length = 0;               // of the bytes, without '\n'
    bool skip = false;                      // a repeat in the source, or already in the ledger
  };
  // Serializes `records` and visits each with its place in the source.
  static void serialize_chunk(std::vector<Record>& records, std::size_t first,
                              const std::function<void(PendingRecord&, std::size_t)>& visit);

  std::vector<Entry> m_entries;        // by place in the source
  std::vector<std::uint32_t> m_by_id;  // the first record of each id, sorted by id
  std::int64_t m_kept = 0;
  std::int64_t m_kept_bytes = 0;
};

}  // namespace benchledger::ledger
