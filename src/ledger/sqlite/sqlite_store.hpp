// The SQLite store (docs/ledger.md): one table of records in WAL mode, each row the
// exact bytes of a record plus the columns queries need, indexed. A batch is one
// `BEGIN IMMEDIATE` transaction (writers queue on the busy timeout), committed with
// synchronous=FULL, so it is durable when append() returns. Triggers abort every UPDATE and
// DELETE, so the sqlite3 shell cannot change history either.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include <benchledger/ledger.hpp>

struct sqlite3;

namespace benchledger::ledger::sqlite {

class SqliteStore final : public Store {
 public:
  // Nothing is opened or created here: readers open the file when they first need it, and the
  // first append creates it.
  SqliteStore(std::string uri, std::filesystem::path path);
  ~SqliteStore() override;
  SqliteStore(const SqliteStore&) = delete;
  SqliteStore& operator=(const SqliteStore&) = delete;

  std::string uri() const override { return m_uri; }
  AppendResult append(const std::vector<Record>& batch) override;
  using Store::import;
  AppendResult import(const ImportSource& records) override;
  void scan(const std::function<bool(const StoredRecord&)>& visit) const override;
  std::vector<RunRecord> find_runs(const RunSelector& selector, std::size_t limit) const override;
  void scan_results(const std::string& run_id,
                    const std::function<bool(ResultRecord&& result)>& visit) const override;
  void scan_series(
      const SeriesQuery& query,
      const std::function<bool(const RunRecord& run, ResultRecord&& result)>& visit) const override;
  std::vector<NoteRecord> notes() const override;
  VerifyReport verify(const std::optional<std::string>& head) const override;
  std::vector<std::string> warnings() const override { return m_warnings; }
  void scan_bytes(const std::function<bool(std::int64_t position, std::string_view bytes)>& visit)
      const override;
  std::optional<StoredRecord> find_record(const std::string& id) const override;
  std::vector<RunListing> log(std::size_t limit) const override;

  // The open connection, the one append() used if it was called (nullptr before the first
  // use): for tests that check how a connection that appends is set up.
  sqlite3* connection() const { return m_db; }

 private:
  // The connection for reading; nullptr when the file does not exist (an empty ledger).
  sqlite3* reader() const;
  sqlite3* writer();
  // Inserts one record with its bytes (chained) as the next row.
  using Inserter = std::function<void(const Record& record, std::string_view bytes)>;
  // One transaction under the write lock: `body` gets the head and inserts what it appends,
  // returning the new head. `empty`: there is nothing to append, so a ledger that has no table
  // yet gets none (the table and the file's mark come with the first records). Throws Error,
  // with nothing written.
  AppendResult write_batch(bool empty,
                           const std::function<std::string(Inserter& insert, std::string head,
                                                           AppendResult& result)>& body);
  Record parse_row(std::int64_t seq, std::string_view bytes) const;

  std::string m_uri;
  std::filesystem::path m_path;
  mutable sqlite3* m_db = nullptr;
  mutable bool m_writable = false;  // m_db was opened read-write
  bool m_ready_to_append = false;   // m_db is in WAL mode with synchronous=FULL
  mutable std::vector<std::string> m_warnings;
};

}  // namespace benchledger::ledger::sqlite
