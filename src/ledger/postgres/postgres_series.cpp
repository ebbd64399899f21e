// PostgresStore::scan_series: the results a SeriesQuery selects, narrowed in the database by
// bench prefix, label and time, joined to their runs by id, read through the store's cursor.
#include <optional>
#include <string>

#include <fmt/format.h>

#include <benchledger/error.hpp>

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

}  // namespace benchledger::ledger::postgres
