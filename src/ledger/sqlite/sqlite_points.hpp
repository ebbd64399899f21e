// The SQLite store's table of points (schema version 3, sqlite_file.cpp): each result's metrics
// with its run's fields, written in the transaction that appends the result, filled from the
// records when an older file is upgraded, and recomputed from the records by `verify`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <benchledger/record.hpp>

#include "ledger/chain.hpp"
#include "ledger/points.hpp"
#include "ledger/sqlite/sqlite_file.hpp"

namespace benchledger::ledger::sqlite {

// Inserts the points of results as they are appended, inside the append's transaction.
class PointWriter {
 public:
  PointWriter(sqlite3* db, const std::string& context);

  // A run appended in this transaction: its results that follow need not look it up.
  void run(const RunRecord& run);
  // The points of the result at `seq`. A result whose run was not appended before it (or does
  // not parse) has none: it has no place in a history (scan_series, store_scans.hpp).
  void result(std::int64_t seq, const ResultRecord& result);

 private:
  Statement m_insert;
  Statement m_find_run;
  std::optional<PointRun> m_run;  // the last run written or looked up
};

// Whether the newest result (of a run appended before it) has its points: false when a program
// that does not know the table (an older benchledger) appended results after it was made.
bool points_current(sqlite3* db, const std::string& context);

// Fills the table of points from the results after the newest one it holds: every result when
// the table was just made (an upgrade to version 3), those an older benchledger appended
// otherwise. A record that does not parse gets no points: `verify` reports it, and the append
// that fills the table is not refused for it.
void fill_points(sqlite3* db, const std::string& context);

// `verify` of the table of points, made in the pass over the records after `after` (0: all) as
// verify_row() parses them (PointsCheck, points.hpp): the table's rows after `after` are read
// beside the records, and a result's run from before `after` is looked up by id. Throws Error
// when the table cannot be read (a table made over with other columns).
class PointsVerifier {
 public:
  PointsVerifier(sqlite3* db, const std::string& name, ChainVerifier& verifier, std::int64_t after);

  void add(std::int64_t seq, const std::optional<Record>& record) { m_check.add(seq, record); }
  void finish() { m_check.finish(); }

 private:
  Statement m_points;
  Statement m_find_run;
  PointsCheck m_check;
};

}  // namespace benchledger::ledger::sqlite
