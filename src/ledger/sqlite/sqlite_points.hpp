// The SQLite store's table of points (schema version 3, sqlite_file.cpp): each result's metrics
// with its run's fields, written in the transaction that appends the result, filled from the
// records when an older file is upgraded, and recomputed from the records by `verify`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <benchledger/record.hpp>

#include "ledger/chain.hpp"
#include "ledger/sqlite/sqlite_file.hpp"

namespace benchledger::ledger::sqlite {

// Inserts the points of results as they are appended, inside the append's transaction.
class PointWriter {
 public:
  PointWriter(sqlite3* db, std::string name, const std::string& context);

  // A run appended in this transaction: its results that follow need not look it up.
  void run(const RunRecord& run);
  // The points of the result at `seq`. A result whose run is not in the ledger has none, as a
  // result outside any run has no place in a history.
  void result(std::int64_t seq, const ResultRecord& result);

 private:
  std::string m_name;
  Statement m_insert;
  Statement m_find_run;
  std::optional<RunRecord> m_run;  // the last run written or looked up
};

// Fills the table of points from every result already in the table of records (an upgrade to
// version 3). A record that does not parse gets no points: `verify` reports it, and the append
// that upgrades the file is not refused for it.
void fill_points(sqlite3* db, const std::string& name, const std::string& context);

// `verify` of the table of points: every row must be what the records give, and every point the
// records give must have its row; each difference is a break.
void verify_points(sqlite3* db, const std::string& name, ChainVerifier& verifier);

}  // namespace benchledger::ledger::sqlite
