// PostgresStore::scan_series and scan_points: the results a SeriesQuery selects, narrowed in the
// database by bench prefix, label and time, joined to their runs by id, and their points, read
// from the table of points in the order of its key; both through the store's cursor.
#include <optional>
#include <string>

#include <fmt/format.h>

#include <benchledger/error.hpp>

#include "ledger/points.hpp"
#include "ledger/postgres/postgres_store.hpp"
#include "ledger/series_filter.hpp"

namespace benchledger::ledger::postgres {
namespace {

// A string literal under standard_conforming_strings (on by default since PostgreSQL 9.1):
// quotes doubled, backslashes literal. Records cannot hold a NUL byte, so neither can a filter.
std::string literal(const std::string& text) {
  if (text.find('\0') != std::string::npos) throw Error("a series filter holds a NUL byte");
  std::string out = "'";
  for (const char c : text) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

}  // namespace

bool PostgresStore::scan_series(
    const SeriesQuery& query,
    const std::function<bool(const RunRecord& run, ResultRecord&& result)>& visit) const {
  m_warnings.clear();
  SeriesQuery normal = query;
  normal.since = normalized_since(query.since);
  std::string sql =
      "SELECT run.seq, run.bytes, r.seq, r.bytes FROM benchledger_records r "
      "JOIN benchledger_records run ON run.id = r.run AND run.type = 'run' AND run.seq < r.seq "
      "WHERE r.type = 'result'";
  if (const auto ranges = bench_ranges(normal.cases)) {
    // starts_with, not a range: text compares in the database's collation, not byte order.
    std::string any;
    for (const auto& range : *ranges) {
      any += fmt::format("{}starts_with(r.bench, {})", any.empty() ? "" : " OR ",
                         literal(range.first));
    }
    sql += " AND (" + any + ")";
  }
  if (normal.label) sql += " AND run.label = " + literal(*normal.label);
  if (normal.since) sql += " AND run.time >= " + literal(*normal.since);
  sql += " ORDER BY r.seq";

  const auto field = [](const std::optional<std::string_view>& value) {
    return value.value_or(std::string_view());
  };
  // A run's results are contiguous in seq order: its record is parsed once for all of them.
  std::string run_seq;
  std::optional<RunRecord> run;
  query_rows(sql, [&](const std::vector<std::optional<std::string_view>>& row) {
    if (!run || field(row[0]) != run_seq) {
      run_seq = std::string(field(row[0]));
      run = std::get<RunRecord>(parse_row(integer(row[0]), field(row[1])));
    }
    if (!run_matches(normal, *run)) return true;
    auto result = std::get<ResultRecord>(parse_row(integer(row[2]), field(row[3])));
    if (!case_matches(normal.cases, result.bench, result.params)) return true;
    return visit(*run, std::move(result));
  });
  return true;
}

std::string points_query(const SeriesQuery& normalized, const std::optional<std::string>& metric) {
  // In the order of the table's key, so that PostgreSQL reads one range of its index for each
  // bench range and sorts nothing: each case's points come together, oldest first.
  std::string sql =
      "SELECT seq, bench, params, metric, result, unit, better, run, time, label, git_commit, "
      "dirty, centre, low, high, min, max, samples FROM benchledger_points WHERE ";
  sql += metric ? "metric = " + literal(*metric) : std::string("is_primary");
  if (const auto cases = exact_cases(normalized.cases)) {
    // Whole case keys: each case's own range of the key's index, not its bench's.
    std::string any;
    for (const auto& [bench, params] : *cases) {
      any += fmt::format("{}(bench = {} AND params = {})", any.empty() ? "" : " OR ",
                         literal(bench), literal(params));
    }
    sql += " AND (" + any + ")";
  } else if (const auto ranges = bench_ranges(normalized.cases)) {
    std::string any;
    for (const auto& [low, high] : *ranges) {
      // The upper bound only when it is UTF-8 (a raised last byte of a multibyte character
      // is not): the database refuses any other text.
      any += fmt::format(
          "{}(bench >= {}{} AND starts_with(bench, {}))", any.empty() ? "" : " OR ", literal(low),
          static_cast<unsigned char>(high.back()) < 0x80 ? " AND bench < " + literal(high)
                                                         : std::string(),
          literal(low));
    }
    sql += " AND (" + any + ")";
  }
  if (normalized.label) sql += " AND label = " + literal(*normalized.label);
  if (normalized.branch) sql += " AND branch = " + literal(*normalized.branch);
  if (normalized.since) sql += " AND time >= " + literal(*normalized.since);
  return sql + " ORDER BY bench, params, metric, seq";
}

bool PostgresStore::scan_points(const SeriesQuery& query, const std::optional<std::string>& metric,
                                const std::function<void(StoredPoint&& point)>& visit) const {
  m_warnings.clear();
  SeriesQuery normal = query;
  normal.since = normalized_since(query.since);
  if (!points_exist()) return false;
  const std::string sql = points_query(normal, metric);
  PointReader reader(normal.cases, m_name);
  query_rows(sql, [&](const std::vector<std::optional<std::string_view>>& row) {
    const auto text = [&](std::size_t i) { return row[i].value_or(std::string_view()); };
    auto p = reader.point(PointColumns{text(1), text(2), text(3), integer(row[0]), text(4), text(5),
                                       text(6), text(7), text(8), row[9], row[10], text(11) == "t",
                                       real(row[12]), real(row[13]), real(row[14]), real(row[15]),
                                       real(row[16]), integer(row[17])});
    if (p) visit(std::move(*p));
    return true;
  });
  return true;
}

}  // namespace benchledger::ledger::postgres
