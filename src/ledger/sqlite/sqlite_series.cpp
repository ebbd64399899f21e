// SqliteStore::scan_series: the results a SeriesQuery selects, found through the indexes on bench
// (a range from each glob's literal prefix), label and time, joined to their runs by id.
#include <sqlite3.h>

#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include <benchledger/error.hpp>

#include "ledger/series_filter.hpp"
#include "ledger/sqlite/sqlite_store.hpp"

namespace benchledger::ledger::sqlite {
namespace {

using Prepared = std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)>;

Prepared prepare(sqlite3* db, const std::string& sql, const std::string& name) {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
    sqlite3_finalize(statement);
    throw Error(fmt::format("cannot read {}: {}", name, sqlite3_errmsg(db)));
  }
  return Prepared(statement, &sqlite3_finalize);
}

std::string_view column_text(sqlite3_stmt* statement, int column) {
  const auto* data = reinterpret_cast<const char*>(sqlite3_column_text(statement, column));
  return data == nullptr
             ? std::string_view()
             : std::string_view(data,
                                static_cast<std::size_t>(sqlite3_column_bytes(statement, column)));
}

}  // namespace

SeriesStatement series_statement(const SeriesQuery& normalized) {
  SeriesStatement out;
  const auto ranges = bench_ranges(normalized.cases);
  // With bench ranges, the index on bench must drive the query: left to itself, SQLite walks
  // every result in seq order through records_by_type to spare the sort of ORDER BY, and reads
  // each row's bench from the table (the whole ledger for one case; docs/history.md, "Speed").
  out.sql = fmt::format(
      "SELECT run.seq, run.bytes, r.seq, r.bytes FROM records r{} "
      "JOIN records run ON run.id = r.run AND run.type = 'run' WHERE r.type = 'result'",
      ranges ? " INDEXED BY records_by_case" : "");
  const auto bind_next = [&](std::string value) {
    out.bindings.push_back(std::move(value));
    return fmt::format("?{}", out.bindings.size());
  };
  if (ranges) {
    std::string any;
    for (const auto& [low, high] : *ranges) {
      any += fmt::format("{}(r.bench >= {} AND r.bench < {})", any.empty() ? "" : " OR ",
                         bind_next(low), bind_next(high));
    }
    out.sql += " AND (" + any + ")";
  }
  if (normalized.label) out.sql += " AND run.label = " + bind_next(*normalized.label);
  if (normalized.since) out.sql += " AND run.time >= " + bind_next(*normalized.since);
  out.sql += " ORDER BY r.seq";
  return out;
}

void SqliteStore::scan_series(
    const SeriesQuery& query,
    const std::function<bool(const RunRecord& run, ResultRecord&& result)>& visit) const {
  m_warnings.clear();
  SeriesQuery normal = query;
  normal.since = normalized_since(query.since);
  sqlite3* db = reader();
  const std::string name = m_path.string();
  if (db == nullptr) return;
  {
    const Prepared table =
        prepare(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'records'", name);
    if (sqlite3_step(table.get()) != SQLITE_ROW) return;  // no record appended yet
  }

  const auto [sql, bindings] = series_statement(normal);

  const Prepared statement = prepare(db, sql, name);
  for (std::size_t i = 0; i < bindings.size(); ++i) {
    if (sqlite3_bind_text(statement.get(), static_cast<int>(i + 1), bindings[i].data(),
                          static_cast<int>(bindings[i].size()), SQLITE_STATIC) != SQLITE_OK) {
      throw Error(fmt::format("cannot read {}: {}", name, sqlite3_errmsg(db)));
    }
  }
  // A run's results are contiguous in seq order: its record is parsed once for all of them.
  std::int64_t run_seq = 0;
  std::optional<RunRecord> run;
  for (;;) {
    const int rc = sqlite3_step(statement.get());
    if (rc == SQLITE_DONE) return;
    if (rc != SQLITE_ROW) throw Error(fmt::format("cannot read {}: {}", name, sqlite3_errmsg(db)));
    if (const std::int64_t seq = sqlite3_column_int64(statement.get(), 0); !run || seq != run_seq) {
      run = std::get<RunRecord>(parse_row(seq, column_text(statement.get(), 1)));
      run_seq = seq;
    }
    if (!run_matches(normal, *run)) continue;
    auto result = std::get<ResultRecord>(
        parse_row(sqlite3_column_int64(statement.get(), 2), column_text(statement.get(), 3)));
    if (!case_matches(normal.cases, result.bench, result.params)) continue;
    if (!visit(*run, std::move(result))) return;
  }
}

}  // namespace benchledger::ledger::sqlite
