// The SQLite store (docs/ledger.md): one table of records in WAL mode, each row the
// exact bytes of a record plus the columns queries need, indexed. A batch is one
// `BEGIN IMMEDIATE` transaction (writers queue on the busy timeout), committed with
// synchronous=FULL, so it is durable when append() returns. Triggers abort every UPDATE and
// DELETE, so the sqlite3 shell cannot change history either.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <benchledger/ledger.hpp>

#include "ledger/chained_store.hpp"
#include "ledger/store_scans.hpp"

struct sqlite3;

namespace benchledger::ledger::sqlite {

// The statement SqliteStore::scan_series runs for a query whose `since` is normalized
// (normalized_since), and the texts of its parameters ?1, ?2... in order.
struct SeriesStatement {
  std::string sql;
  std::vector<std::string> bindings;
};
SeriesStatement series_statement(const SeriesQuery& normalized);
// The statement SqliteStore::scan_points runs, the same way.
SeriesStatement points_statement(const SeriesQuery& normalized,
                                 const std::optional<std::string>& metric);

class Statement;

class SqliteStore final : public ChainedStore, public StoreScans {
 public:
  // Nothing is opened or created here: readers open the file when they first need it, and the
  // first append creates it.
  SqliteStore(std::string uri, std::filesystem::path path);
  ~SqliteStore() override;
  SqliteStore(const SqliteStore&) = delete;
  SqliteStore& operator=(const SqliteStore&) = delete;

  std::string uri() const override { return m_uri; }
  void scan(const std::function<bool(const StoredRecord&)>& visit) const override;
  std::vector<RunRecord> find_runs(const RunSelector& selector, std::size_t limit) const override;
  void scan_results(const std::string& run_id,
                    const std::function<bool(ResultRecord&& result)>& visit) const override;
  bool scan_series(
      const SeriesQuery& query,
      const std::function<bool(const RunRecord& run, ResultRecord&& result)>& visit) const override;
  bool scan_points(const SeriesQuery& query, const std::optional<std::string>& metric,
                   const std::function<void(StoredPoint&& point)>& visit) const override;
  std::vector<NoteRecord> notes() const override;
  VerifyReport verify(const std::optional<std::string>& head) const override;
  VerifyReport verify_since(const std::string& saved_head) const override;
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
  // One transaction under the write lock (BEGIN IMMEDIATE). An empty batch on a ledger that has no
  // table yet makes none: the table and the file's mark come with the first records.
  std::string write_batch(
      const BatchOutline& outline,
      const std::function<std::string(Batch& batch, std::string head)>& body) override;
  Record parse_row(std::int64_t seq, std::string_view bytes) const;
  // verify() with `head`, or verify_since() with `since`.
  VerifyReport check(const std::optional<std::string>& head,
                     const std::optional<std::string>& since) const;
  // A statement of series_statement() or points_statement(), prepared and bound; nullptr when the
  // ledger has no records yet.
  std::unique_ptr<Statement> series_query(const SeriesStatement& statement) const;

  std::string m_uri;
  std::filesystem::path m_path;
  mutable sqlite3* m_db = nullptr;
  mutable bool m_writable = false;  // m_db was opened read-write
  bool m_ready_to_append = false;   // m_db is in WAL mode with synchronous=FULL
};

}  // namespace benchledger::ledger::sqlite
