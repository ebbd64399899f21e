// The PostgreSQL store (docs/ledger.md): one ledger shared by many machines and CI
// runners. One table, `benchledger_records`, holds each record's exact bytes plus the columns
// queries need, indexed. A batch is one transaction that first takes a transaction-scoped
// advisory lock, so appenders from any machine queue and the chain never forks; COMMIT runs with
// synchronous_commit on, so a batch is durable when append() returns. Triggers refuse every
// UPDATE, DELETE and TRUNCATE and any row not placed after the last one, whoever sends them, and
// derive the table of points that `history` and the dashboards' views read.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <benchledger/ledger.hpp>

#include "ledger/chain.hpp"
#include "ledger/chained_store.hpp"
#include "ledger/store_scans.hpp"

namespace benchledger::ledger::postgres {

// The query PostgresStore::scan_points runs for a query whose `since` is normalized
// (normalized_since), its values quoted in (SQL text).
std::string points_query(const SeriesQuery& normalized, const std::optional<std::string>& metric);

class PostgresStore final : public ChainedStore, public StoreScans {
 public:
  // Nothing is connected here: the first use connects, and the first append creates the table.
  explicit PostgresStore(std::string uri);
  ~PostgresStore() override;
  PostgresStore(const PostgresStore&) = delete;
  PostgresStore& operator=(const PostgresStore&) = delete;

  std::string uri() const override { return m_name; }  // without its password
  void scan(const std::function<bool(const StoredRecord&)>& visit) const override;
  std::vector<RunRecord> find_runs(const RunSelector& selector, std::size_t limit) const override;
  void scan_results(const std::string& run_id,
                    const std::function<bool(ResultRecord&& result)>& visit) const override;
  bool scan_series(
      const SeriesQuery& query,
      const std::function<bool(const RunRecord& run, ResultRecord&& result)>& visit) const override;
  // From the table of points; false while it does not exist (a ledger made before it, until its
  // owner's next append), and scan_series() is then the way.
  bool scan_points(const SeriesQuery& query, const std::optional<std::string>& metric,
                   const std::function<void(StoredPoint&& point)>& visit) const override;
  std::vector<NoteRecord> notes() const override;
  VerifyReport verify(const std::optional<std::string>& head) const override;
  VerifyReport verify_since(const std::string& saved_head) const override;
  void scan_bytes(const std::function<bool(std::int64_t position, std::string_view bytes)>& visit)
      const override;
  std::optional<StoredRecord> find_record(const std::string& id) const override;
  std::vector<RunListing> log(std::size_t limit) const override;

  // Creates the table if missing, and lets `role` (created, with LOGIN, if it does not exist)
  // read and append and nothing else. See grant_append_only() in ledger.hpp.
  void grant_append_only(const std::string& role);

 private:
  struct Connection;
  Connection& connection() const;
  // One transaction under the appenders' lock. Throws Error, with nothing written (or, when the
  // connection is lost during COMMIT, saying that it cannot tell and naming outline.first_id to
  // look for).
  std::string write_batch(
      const BatchOutline& outline,
      const std::function<std::string(Batch& batch, std::string head)>& body) override;
  // Runs `sql` in a read-only transaction and hands each row's columns to `row` (seq first,
  // then bytes, then the rest), in batches from a cursor so that memory stays constant; `row`
  // returns false to stop. Returns false, with a warning, while the table does not exist.
  bool query_rows(
      const std::string& sql,
      const std::function<bool(const std::vector<std::optional<std::string_view>>&)>& row) const;
  Record parse_row(std::int64_t seq, std::string_view bytes) const;
  // A column the schema makes a bigint (seq, a count) as a number; throws Error naming the
  // store and the text when it is none (a server that answers something else).
  std::int64_t integer(const std::optional<std::string_view>& field) const;
  // A double precision column the same way (PostgreSQL writes each double in the fewest digits
  // that read back as it).
  double real(const std::optional<std::string_view>& field) const;
  // Whether the table of points exists (connecting if need be).
  bool points_exist() const;
  // verify of the records after `after` (0: all) and of their points (PointsCheck, points.hpp),
  // in one pass over the records and one snapshot.
  void verify_after(ChainVerifier& verifier, std::int64_t after) const;
  // An exception's text for a message, or a note in its place when it quotes the password.
  std::string message_of(const std::exception& e) const;

  std::string m_uri;
  std::string m_name;  // the URI through model::redact_secrets(), for messages
  mutable std::unique_ptr<Connection> m_connection;
};

}  // namespace benchledger::ledger::postgres
