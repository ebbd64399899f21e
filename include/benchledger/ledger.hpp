// The append-only ledger (docs/ledger.md): the Store interface that the NDJSON,
// SQLite and PostgreSQL stores implement, run selectors, and opening a store by URI.
//
// Every store keeps the exact bytes of each record and chains them: a record's `prev` is the
// SHA-256 of the previous record's bytes in this store. append() is all or nothing and returns
// only once the batch is durable. Nothing in this interface updates or deletes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <benchledger/error.hpp>
#include <benchledger/record.hpp>

namespace benchledger::ledger {

// One record as the store holds it.
struct StoredRecord {
  std::int64_t position = 0;  // 1-based: the line in NDJSON, the sequence number elsewhere
  std::string bytes;          // exact bytes, without the trailing '\n'
  Record record;
};

struct AppendResult {
  std::int64_t appended = 0;
  std::int64_t skipped = 0;  // import only: ids already present with the same content
  std::string head;          // SHA-256 of the last record's bytes after the append
};

// One break `verify` found: a record that is not valid, a `prev` that does not chain, an id seen
// before, a database row whose columns disagree with its bytes, or something wrong with the ledger
// as a whole (a saved head that is gone, a SQLite file that fails its integrity check).
struct VerifyBreak {
  std::int64_t position = 0;  // the record's line or sequence number; 0 for the whole ledger
  std::string id;             // the record's id when it can be read, else empty
  std::string problem;        // the whole message: "LEDGER: line 7 (id 01J…): what is wrong"
};

// What `verify` found. Verify reads the whole ledger whatever it finds, so a saved head is
// checked against every record, also those after a bad one.
struct VerifyReport {
  bool ok = true;
  std::int64_t records = 0;  // records read, broken ones included
  std::string head;          // hash of the last record's bytes (64 zeros for an empty ledger)
  std::optional<std::int64_t> bad_position;  // the first break's position and id
  std::optional<std::string> bad_id;
  std::string problem;                // the first break's message; empty when ok
  std::vector<VerifyBreak> breaks;    // every break in the order found, at most k_max_breaks
  std::int64_t break_count = 0;       // every break, also those past k_max_breaks
  std::vector<std::string> warnings;  // a torn tail, for example
  // verify_since(): the saved head's position (0 for the empty ledger's head, 64 zeros), the
  // records counted and checked being those after it; unset when the saved head was not found.
  std::optional<std::int64_t> since_position;
  // Past this many, breaks are counted but not kept, so that verifying a file of garbage takes
  // bounded memory.
  static constexpr std::size_t k_max_breaks = 1000;
};

// Which run: `01J…` (id), `baseline` (label), `baseline~2`, `git:abc123`, `latest`, `latest~1`.
// "Newest" is the run appended last; `~N` steps N matching runs back. A path to an NDJSON file
// is resolved by the caller opening that file as a store.
struct RunSelector {
  enum class Kind { id, label, git, latest };
  Kind kind = Kind::latest;
  std::string value;      // id, label or commit prefix
  std::int64_t back = 0;  // the N of `~N`: 0 is the newest match
  std::string text;       // as the user wrote it, for messages
};
RunSelector parse_run_selector(std::string_view text);  // throws Error on bad syntax

// A commit names the code of a clean work tree only: for a `git:` selector, `runs` (the
// matches, newest first) without those made from uncommitted changes (git.dirty true); throws
// Error when every match was such a run, naming them (select one by id). Any other selector:
// `runs` as they are.
std::vector<RunRecord> clean_runs_only(const RunSelector& selector, std::vector<RunRecord> runs);

// A run and the number of its results, for `ledger log`.
struct RunListing {
  RunRecord run;
  std::int64_t results = 0;
};

// Thrown by import() when a record's id is already present with other content (or twice in the
// batch with different content). `index` is the record's place in the batch (0-based), so that a
// caller can name the file and line it came from.
class ConflictError : public Error {
 public:
  ConflictError(const std::string& message, std::size_t index) : Error(message), m_index(index) {}
  std::size_t index() const { return m_index; }

 private:
  std::size_t m_index;
};

// Records to import, read in bounded memory: import() goes over them twice, once to check them
// before the ledger is opened for writing and once, a chunk at a time, to append them, so a source
// must give the same records in the same order every time.
class ImportSource {
 public:
  virtual ~ImportSource() = default;
  // Visits every record in order with its place (0-based), from the first again on every call.
  // Throws Error naming a record that cannot be read.
  virtual void each(const std::function<void(Record&& record, std::size_t index)>& visit) const = 0;
};

// A store is used by one thread at a time; processes share a ledger, not a Store object. What a
// library user needs, and no more: the faster reads the stores keep for `history` and `compare`
// (from a record's bytes, indexes, columns of points) are internal, so that a store's layout can
// change without changing this interface.
class Store {
 public:
  virtual ~Store() = default;

  // The URI, as messages may show it: a password in a postgresql:// URI is replaced by "***".
  virtual std::string uri() const = 0;

  // Appends a batch as one atomic unit: sets each record's `prev` (ids and times must be set),
  // writes, and returns once durable. Throws Error and appends nothing on any failure.
  virtual AppendResult append(const std::vector<Record>& batch) = 0;

  // Like append, for records from elsewhere: a record whose id is present with the same
  // content (`prev` aside) is skipped; one whose id is present with other content refuses the
  // whole import with a ConflictError naming it. All or nothing however many records there are,
  // in memory that does not grow with them (beyond about 70 bytes a record for their ids).
  virtual AppendResult import(const ImportSource& records) = 0;
  // The same for records in memory.
  AppendResult import(const std::vector<Record>& batch);

  // Visits every complete record in order, in constant memory; `visit` returns false to stop.
  // Readers ignore a torn tail (see warnings()).
  virtual void scan(const std::function<bool(const StoredRecord&)>& visit) const = 0;

  // The run a selector names, or nullopt when none matches. The default: the first of
  // find_runs(selector, 1).
  virtual std::optional<RunRecord> find_run(const RunSelector& selector) const;
  // The runs that match a selector, newest first, at most `limit` (for --base-runs K, log).
  virtual std::vector<RunRecord> find_runs(const RunSelector& selector,
                                           std::size_t limit) const = 0;
  // The results of one run, in the order appended, one at a time in constant memory; `visit`
  // returns false to stop.
  virtual void scan_results(const std::string& run_id,
                            const std::function<bool(ResultRecord&& result)>& visit) const = 0;
  // The same, all of them in memory. The default collects scan_results().
  virtual std::vector<ResultRecord> results_of(const std::string& run_id) const;
  // Every note, in the order appended.
  virtual std::vector<NoteRecord> notes() const = 0;

  // Recomputes the chain and checks every record, going on past a bad one; reports every break
  // (VerifyReport). `head`, when given, must be the hash of a record still present, or 64 zeros:
  // the head of the empty ledger, which every ledger begins with (and so checks nothing). Throws
  // Error when there is no ledger to verify (a file that does not exist).
  virtual VerifyReport verify(const std::optional<std::string>& head) const = 0;
  // `verify --since`: checks only what was appended after the record whose bytes hash to
  // `saved_head` (a head an earlier verify printed), as verify checks it (each record valid and
  // chained, the first onto that record, and a store's own tables and columns for them), and
  // that record still hashes to it at its place. Records before it are not checked: a break
  // among them is not reported. A saved head that no record hashes to is a break of the whole
  // ledger (the report is not ok) and nothing is checked. 64 zeros checks every record. Throws
  // Error as verify() does. The default reads every record through scan_bytes().
  virtual VerifyReport verify_since(const std::string& saved_head) const;

  // Warnings from the last read (a torn tail ignored, for example).
  virtual std::vector<std::string> warnings() const = 0;

  // The exact bytes of every complete record in order, unparsed (export, copying); `visit`
  // returns false to stop. The default goes through scan(); the stores read bytes directly.
  virtual void scan_bytes(
      const std::function<bool(std::int64_t position, std::string_view bytes)>& visit) const;
  // The record with this id, of any type, or nullopt.
  virtual std::optional<StoredRecord> find_record(const std::string& id) const;
  // Runs newest first, each with its number of results; at most `limit` (0: all).
  virtual std::vector<RunListing> log(std::size_t limit) const;
};

// Opens a store by URI: `path.ndjson`, `ndjson:PATH`, `sqlite:PATH`, `postgresql://…`.
// Creates NDJSON and SQLite ledgers (and a PostgreSQL ledger's table) on first append, not on
// open. Throws Error.
std::unique_ptr<Store> open_store(const std::string& uri);

// For a postgresql:// ledger shared by CI runners: creates the ledger's table if it is missing,
// creates `role` (with LOGIN, no password: set one with ALTER ROLE) if it does not exist, and
// leaves it only SELECT and INSERT on the table, so that a CI job holding its credentials can
// read and append and nothing else. Refuses, changing nothing, a role that REVOKE cannot bound
// (a superuser, CREATEROLE, an owner of the table, its schema or the database or a member of
// one, privileges through another role, CREATE on the schema) and a table whose triggers are
// missing or disabled. Throws Error, also for a URI of another store.
void grant_append_only(const std::string& uri, const std::string& role);

// The ledger a command uses when given no --ledger: BENCHLEDGER_LEDGER, else the config file's
// `ledger` (a relative path is taken from the config file's directory), else
// `ledger/ledger.ndjson` under the git repository root (or the current directory).
std::string default_ledger_uri();

// One run as a ledger of its own, for `ledger export --run`: the run, then its results, then the
// notes about any of them (each in store order), re-chained from 64 zeros: every field but
// `prev` as stored, so the output verifies by itself and imports anywhere. Throws Error when no run
// matches the selector.
std::vector<std::string> export_run(const Store& store, const RunSelector& selector);

// NDJSON files of records to import (`ledger import FILE...`), read line by line on each pass:
// nothing is held but the current line. Each pass throws Error naming `FILE:LINE: field "…":
// reason` for the first bad line; an empty file, a line over k_max_line_bytes and a last line
// without its '\n' are refused too.
class ImportFiles final : public ImportSource {
 public:
  explicit ImportFiles(std::vector<std::string> paths);
  void each(const std::function<void(Record&& record, std::size_t index)>& visit) const override;
  // The file and 1-based line of the record at `index`, as `FILE:LINE`, once each() has been
  // through it.
  std::string where(std::size_t index) const;

 private:
  std::vector<std::string> m_paths;
  mutable std::vector<std::size_t> m_counts;  // records in each file, from the last pass
};

}  // namespace benchledger::ledger
