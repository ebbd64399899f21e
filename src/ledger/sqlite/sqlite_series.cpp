// SqliteStore::scan_series and scan_points: the results a SeriesQuery selects, found through the
// index on bench (a range from each glob's literal prefix) and joined to their runs by id, and
// their points, read from the table of points in the order of its key.
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include <benchledger/error.hpp>

#include "ledger/points.hpp"
#include "ledger/series_filter.hpp"
#include "ledger/sqlite/sqlite_file.hpp"
#include "ledger/sqlite/sqlite_points.hpp"
#include "ledger/sqlite/sqlite_store.hpp"

namespace benchledger::ledger::sqlite {
namespace {

// A statement being written: its parameters are numbered in the order they are bound.
struct StatementBuilder {
  SeriesStatement out;
  std::string bind(std::string value) {
    out.bindings.push_back(std::move(value));
    return fmt::format("?{}", out.bindings.size());
  }
  // " AND (column >= ?1 AND column < ?2 OR ...)": the bench ranges, for an index range scan.
  void bench_ranges(const std::vector<std::pair<std::string, std::string>>& ranges,
                    const std::string& column) {
    std::string any;
    for (const auto& [low, high] : ranges) {
      any += fmt::format("{}({} >= {} AND {} < {})", any.empty() ? "" : " OR ", column, bind(low),
                         column, bind(high));
    }
    out.sql += " AND (" + any + ")";
  }
};

}  // namespace

SeriesStatement series_statement(const SeriesQuery& normalized) {
  StatementBuilder b;
  const auto ranges = bench_ranges(normalized.cases);
  // With bench ranges, the index on bench must drive the query: left to itself, SQLite walks
  // every result in seq order through records_by_type to spare the sort of ORDER BY, and reads
  // each row's bench from the table (the whole ledger for one case; docs/history.md, "Speed").
  b.out.sql = fmt::format(
      "SELECT run.seq, run.bytes, r.seq, r.bytes FROM records r{} "
      "JOIN records run ON run.id = r.run AND run.type = 'run' AND run.seq < r.seq "
      "WHERE r.type = 'result'",
      ranges ? " INDEXED BY records_by_case" : "");
  if (ranges) b.bench_ranges(*ranges, "r.bench");
  if (normalized.label) b.out.sql += " AND run.label = " + b.bind(*normalized.label);
  if (normalized.since) b.out.sql += " AND run.time >= " + b.bind(*normalized.since);
  b.out.sql += " ORDER BY r.seq";
  return std::move(b.out);
}

SeriesStatement points_statement(const SeriesQuery& normalized,
                                 const std::optional<std::string>& metric) {
  StatementBuilder b;
  // In the order of the table's key, so that SQLite reads one range of it for each bench range
  // and sorts nothing: each case's points come together, oldest first.
  b.out.sql =
      "SELECT bench, params, metric, seq, result, unit, better, run, time, label, git_commit, "
      "dirty, centre, low, high, min, max, samples FROM points WHERE ";
  b.out.sql += metric ? "metric = " + b.bind(*metric) : std::string("is_primary = 1");
  if (const auto ranges = bench_ranges(normalized.cases)) b.bench_ranges(*ranges, "bench");
  if (normalized.label) b.out.sql += " AND label = " + b.bind(*normalized.label);
  if (normalized.branch) b.out.sql += " AND branch = " + b.bind(*normalized.branch);
  if (normalized.since) b.out.sql += " AND time >= " + b.bind(*normalized.since);
  b.out.sql += " ORDER BY bench, params, metric, seq";
  return std::move(b.out);
}

std::unique_ptr<Statement> SqliteStore::series_query(const SeriesStatement& statement) const {
  sqlite3* db = reader();
  const std::string name = "cannot read " + m_path.string();
  if (db == nullptr || !table_exists(db, name)) return nullptr;  // no record appended yet
  auto query = std::make_unique<Statement>(db, statement.sql.c_str(), name);
  for (std::size_t i = 0; i < statement.bindings.size(); ++i) {
    query->bind(static_cast<int>(i + 1), std::string_view(statement.bindings[i]));
  }
  return query;
}

bool SqliteStore::scan_series(
    const SeriesQuery& query,
    const std::function<bool(const RunRecord& run, ResultRecord&& result)>& visit) const {
  m_warnings.clear();
  SeriesQuery normal = query;
  normal.since = normalized_since(query.since);
  const auto rows = series_query(series_statement(normal));
  if (!rows) return true;
  // A run's results are contiguous in seq order: its record is parsed once for all of them.
  std::int64_t run_seq = 0;
  std::optional<RunRecord> run;
  while (rows->step()) {
    if (const std::int64_t seq = rows->integer(0); !run || seq != run_seq) {
      run = std::get<RunRecord>(parse_row(seq, rows->text(1)));
      run_seq = seq;
    }
    if (!run_matches(normal, *run)) continue;
    auto result = std::get<ResultRecord>(parse_row(rows->integer(2), rows->text(3)));
    if (!case_matches(normal.cases, result.bench, result.params)) continue;
    if (!visit(*run, std::move(result))) return true;
  }
  return true;
}

bool SqliteStore::scan_points(const SeriesQuery& query, const std::optional<std::string>& metric,
                              const std::function<void(StoredPoint&& point)>& visit) const {
  m_warnings.clear();
  SeriesQuery normal = query;
  normal.since = normalized_since(query.since);
  sqlite3* db = reader();
  if (db == nullptr || !table_exists(db, m_path.string())) return true;  // an empty ledger
  // A file from before the points, or one an older benchledger appended to since: the records
  // are read until the next append fills the table.
  if (!has_points(db, m_path.string()) || !points_current(db, m_path.string())) return false;
  const auto rows = series_query(points_statement(normal, metric));
  PointReader reader(normal.cases, m_path.string());
  while (rows->step()) {
    const auto text = [&](int column) -> std::optional<std::string_view> {
      if (rows->is_null(column)) return std::nullopt;
      return rows->text(column);
    };
    auto p = reader.point(
        PointColumns{rows->text(0), rows->text(1), rows->text(2), rows->integer(3), rows->text(4),
                     rows->text(5), rows->text(6), rows->text(7), rows->text(8), text(9), text(10),
                     rows->integer(11) != 0, rows->real(12), rows->real(13), rows->real(14),
                     rows->real(15), rows->real(16), rows->integer(17)});
    if (p) visit(std::move(*p));
  }
  return true;
}

}  // namespace benchledger::ledger::sqlite
