// The hash chain every store keeps (docs/ledger.md): a record's `prev` is the SHA-256
// of the previous record's exact bytes in the same store, 64 zeros for the first. This file
// holds what the stores share: serializing a batch before taking a lock, chaining it onto the
// store's head under the lock, the identity of a record for import, and verification.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <benchledger/ledger.hpp>
#include <benchledger/record.hpp>

namespace benchledger::ledger {

// A serialized record waiting to be chained.
struct PendingRecord {
  std::string bytes;  // canonical bytes, `prev` still 64 zeros
  std::string id;
  std::string_view type;
  std::size_t prev_at = 0;  // offset of the 64 characters of `prev` in bytes
  std::size_t index = 0;    // the record's place in the batch given to serialize_batch
};

// Checks (record_check.hpp) and serializes a batch, so that a store never holds a record its
// readers would refuse. Throws Error naming the first bad record by its place in the batch.
// A large batch is spread over the CPUs this process may use (serializing is most of what an
// append costs, docs/ledger.md "Performance"); the bytes are the same either way.
std::vector<PendingRecord> serialize_batch(const std::vector<Record>& batch);
// The same for a chunk of a larger whole (an import), whose first record is number `first + 1`
// of the whole in messages.
std::vector<PendingRecord> serialize_chunk(const std::vector<Record>& chunk, std::size_t first);
// The same on exactly `threads` threads (at most one a record), for tests; `first` as above.
std::vector<PendingRecord> serialize_batch(const std::vector<Record>& batch, std::size_t threads,
                                           std::size_t first = 0);

// Writes `prev` into each record in order, starting from `head`, and returns the new head: the
// hash of the last record (or `head` itself for an empty batch).
std::string chain_onto(std::vector<PendingRecord>& batch, std::string head);

// What import compares: a record's canonical bytes with `prev` set to 64 zeros.
std::string content_without_prev(std::string_view bytes);

// What an append checks, under the store's lock, before it chains a batch onto a ledger's last
// record `last` (at `position`, when the store knows it cheaply): that record must be a valid
// record whose `prev` is the hash of `before`, the record before it (nullopt when `last` is the
// first). A store never chains new records onto a tail that does not verify, so that one bad
// record cannot be buried under acknowledged ones. Returns the hash of `last`, the head to chain
// onto. Throws IntegrityError naming the ledger and what is wrong; the caller writes nothing.
std::string checked_tail(const std::string& ledger, const std::string& where, std::string_view last,
                         std::optional<std::string_view> before);

// Recomputes a chain record by record and names every record that breaks it. It never stops:
// after a bad record it goes on chaining from that record's bytes (what an append would have
// chained onto), so that one bad record hides nothing after it.
class ChainVerifier {
 public:
  // `unit` names a position in messages: "line" for NDJSON, "record" for databases.
  ChainVerifier(std::string ledger, std::string unit, std::optional<std::string> head);

  // Checks the next record: returns it parsed, or nullopt when it is not a valid record (a
  // break, reported).
  std::optional<Record> add(std::int64_t position, std::string_view bytes);
  // The next record, whose bytes cannot be read (a line over the length limit): a break, and the
  // next record's `prev` cannot be checked.
  void add_unreadable(std::int64_t position, const std::string& problem);
  // A break the store found in a record already added (a database column that disagrees with
  // the record's bytes); `id` may be empty.
  void add_bad(std::int64_t position, std::string_view id, const std::string& problem);
  // A break of the ledger as a whole (a database that fails its own integrity check).
  void add_ledger_break(const std::string& problem);

  // `verify --since`: the records up to and including the saved head's are not checked. Takes
  // the chain up after the record at `position` (id `id`, empty for the empty ledger's head at
  // 0) whose bytes hash to `hash`; called before the first add(), the report then counts the
  // records after it and gives `position` as since_position.
  void start_after(std::int64_t position, std::string_view id, const std::string& hash);
  // The id of a record before the saved head, for a store without a unique index of ids
  // (NDJSON): a record after the head that repeats it is a break, two before it are not.
  void add_earlier_id(std::int64_t position, std::string_view id);

  void warn(std::string warning) { m_report.warnings.push_back(std::move(warning)); }
  bool broken() const { return !m_report.ok; }

  // The report: also checks ids for repeats and the saved head, when one was given.
  VerifyReport finish();

 private:
  void fail(std::int64_t position, std::string_view id, const std::string& problem);

  std::string m_ledger;
  std::string m_unit;
  std::optional<std::string> m_head;
  bool m_head_found = false;
  std::int64_t m_since = 0;  // start_after()'s position: ids repeated up to it are not judged
  VerifyReport m_report;
  std::optional<std::string> m_last_hash;  // nullopt after a record that could not be read
  std::int64_t m_last_position = 0;
  std::string m_last_id;
  // Every valid record's id and position, sorted at the end to find ids used twice.
  struct Seen {
    std::array<char, 26> id;
    std::int64_t position;
  };
  std::vector<Seen> m_ids;
};

// `verify --since` over a ledger read from its first record (NDJSON, or a store of a library
// user's own, through scan_bytes): the records before the saved head are read but neither parsed
// nor hashed, only the one before a record whose `prev` is the saved head (a record's `prev` is
// at a fixed offset in its canonical bytes); from the saved head's record on, ChainVerifier
// checks as verify does. A saved head that no record hashes to is a break of the whole ledger,
// and nothing after it is checked: which records are new cannot be told.
class SinceVerifier {
 public:
  // `unit` as ChainVerifier's.
  SinceVerifier(std::string ledger, std::string unit, std::string saved_head);

  void add(std::int64_t position, std::string_view bytes);
  void add_unreadable(std::int64_t position, const std::string& problem);
  void warn(std::string warning) { m_verifier.warn(std::move(warning)); }

  VerifyReport finish();

 private:
  // The previous record is the saved head's: the chain is checked from the next one on.
  void take_up_after_previous();

  ChainVerifier m_verifier;
  std::string m_saved_head;
  bool m_found = false;
  std::int64_t m_records = 0;  // every record read, for a message
  // The record before the one being read, while the saved head is not found.
  std::string m_previous;
  std::int64_t m_previous_position = 0;
  bool m_previous_readable = false;
};

// The break of a ledger that holds no record whose bytes hash to `saved_head`, of `records`.
std::string unknown_saved_head(const std::string& saved_head, std::int64_t records);

}  // namespace benchledger::ledger
