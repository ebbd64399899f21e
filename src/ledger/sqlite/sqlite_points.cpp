// The SQLite store's table of points (see sqlite_points.hpp).
#include "ledger/sqlite/sqlite_points.hpp"

#include <array>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "ledger/columns.hpp"
#include "ledger/history.hpp"

namespace benchledger::ledger::sqlite {
namespace {

constexpr const char* k_insert_sql =
    "INSERT INTO points (bench, params, metric, seq, result, is_primary, unit, better, run, time, "
    "label, branch, git_commit, dirty, centre, low, high, min, max, samples) VALUES (?1, ?2, ?3, "
    "?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)";

// A row of the table, as the records give it or as the table holds it.
struct PointRow {
  std::string bench, params, metric;
  std::int64_t seq = 0;
  std::string result;
  std::int64_t is_primary = 0;
  std::string unit, better, run, time;
  std::optional<std::string> label, branch, git_commit;
  std::int64_t dirty = 0;
  std::vector<double> numbers;  // centre, low, high, min, max
  std::int64_t samples = 0;
};

// The rows the records give for a result of `run` at `seq`, in the order of the metrics' names.
std::vector<PointRow> rows_of(std::int64_t seq, const RunRecord& run, const ResultRecord& result) {
  std::vector<PointRow> rows;
  const std::string params = params_text(result.params);
  for (const auto& [name, metric] : result.metrics) {
    const SeriesPoint q = series_point(run.header.id, run.header.time, run.label, run.git, metric);
    rows.push_back(PointRow{result.bench,
                            params,
                            name,
                            seq,
                            result.header.id,
                            name == result.primary ? 1 : 0,
                            metric.unit,
                            std::string(to_string(metric.better)),
                            q.run_id,
                            q.time,
                            q.label,
                            run.git.branch,
                            q.commit,
                            q.dirty ? 1 : 0,
                            {q.centre, q.low, q.high, q.min, q.max},
                            q.samples});
  }
  return rows;
}

// The names of the columns in which two rows differ, as "centre, low"; NaN equals NaN.
std::string differing(const PointRow& stored, const PointRow& wanted) {
  std::string out;
  const auto note = [&](const char* name, bool same) {
    if (!same) out += (out.empty() ? "" : ", ") + std::string(name);
  };
  note("bench", stored.bench == wanted.bench);
  note("params", stored.params == wanted.params);
  note("result", stored.result == wanted.result);
  note("is_primary", stored.is_primary == wanted.is_primary);
  note("unit", stored.unit == wanted.unit);
  note("better", stored.better == wanted.better);
  note("run", stored.run == wanted.run);
  note("time", stored.time == wanted.time);
  note("label", stored.label == wanted.label);
  note("branch", stored.branch == wanted.branch);
  note("git_commit", stored.git_commit == wanted.git_commit);
  note("dirty", stored.dirty == wanted.dirty);
  constexpr std::array<const char*, 5> k_numbers = {"centre", "low", "high", "min", "max"};
  for (std::size_t i = 0; i < k_numbers.size(); ++i) {
    const double a = stored.numbers[i], b = wanted.numbers[i];
    note(k_numbers[i], a == b || (std::isnan(a) && std::isnan(b)));
  }
  note("samples", stored.samples == wanted.samples);
  return out;
}

// A record of type T from its bytes, or nullopt when they are not one (verify reports them).
template <class T>
std::optional<T> parsed(std::string_view bytes) {
  try {
    auto record = parse_record(bytes);
    if (auto* typed = std::get_if<T>(&record)) return std::move(*typed);
  } catch (const Error&) {
  }
  return std::nullopt;
}

}  // namespace

PointWriter::PointWriter(sqlite3* db, const std::string& context)
    : m_insert(db, k_insert_sql, context),
      m_find_run(db, "SELECT seq, bytes FROM records WHERE id = ?1 AND type = 'run'", context) {}

void PointWriter::run(const RunRecord& run) {
  m_run = run;
}

void PointWriter::result(std::int64_t seq, const ResultRecord& result) {
  if (!m_run || m_run->header.id != result.run) {
    m_find_run.bind(1, std::string_view(result.run));
    const bool found = m_find_run.step();
    std::optional<RunRecord> run;
    if (found) run = parsed<RunRecord>(m_find_run.text(1));
    m_find_run.reset();
    if (!run) return;  // not in the ledger, or a record verify reports: no points, as fill_points
    m_run = std::move(run);
  }
  for (const PointRow& row : rows_of(seq, *m_run, result)) {
    m_insert.bind(1, std::string_view(row.bench))
        .bind(2, std::string_view(row.params))
        .bind(3, std::string_view(row.metric))
        .bind(4, row.seq)
        .bind(5, std::string_view(row.result))
        .bind(6, row.is_primary)
        .bind(7, std::string_view(row.unit))
        .bind(8, std::string_view(row.better))
        .bind(9, std::string_view(row.run))
        .bind(10, std::string_view(row.time))
        .bind(11, row.label)
        .bind(12, row.branch)
        .bind(13, row.git_commit)
        .bind(14, row.dirty);
    for (int i = 0; i < 5; ++i)
      m_insert.bind_real(15 + i, row.numbers[static_cast<std::size_t>(i)]);
    m_insert.bind(20, row.samples);
    m_insert.step();
    m_insert.reset();
  }
}

namespace {

// Every result with its run's bytes (NULL unless the run was appended before it), in ledger
// order; with `after`, only those after the result at seq ?1.
std::string results_sql(bool after) {
  return std::string(
             "SELECT r.seq, r.bytes, run.bytes FROM records r LEFT JOIN records run ON "
             "run.id = r.run AND run.type = 'run' AND run.seq < r.seq WHERE r.type = "
             "'result'") +
         (after ? " AND r.seq > ?1" : "") + " ORDER BY r.seq";
}

// The rows the records give for the results of a results_sql() query, row by row; a run's
// record is parsed once for all of its results.
class WantedRows {
 public:
  std::vector<PointRow> of(const Statement& row) {
    if (row.is_null(2)) return {};
    if (row.text(2) != m_run_bytes) {
      m_run_bytes = row.text(2);
      m_run = parsed<RunRecord>(m_run_bytes);
    }
    const auto result = parsed<ResultRecord>(row.text(1));
    if (!result || !m_run) return {};
    return rows_of(row.integer(0), *m_run, *result);
  }

 private:
  std::string m_run_bytes;
  std::optional<RunRecord> m_run;
};

}  // namespace

bool points_current(sqlite3* db, const std::string& context) {
  Statement last(
      db,
      "SELECT r.seq, r.bench, r.params FROM records r JOIN records run ON run.id = r.run "
      "AND run.type = 'run' AND run.seq < r.seq WHERE r.type = 'result' ORDER BY r.seq "
      "DESC LIMIT 1",
      context);
  if (!last.step()) return true;
  Statement point(db, "SELECT 1 FROM points WHERE bench = ?1 AND params = ?2 AND seq = ?3",
                  context);
  point.bind(1, last.text(1)).bind(2, last.text(2)).bind(3, last.integer(0));
  return point.step();
}

void fill_points(sqlite3* db, const std::string& context) {
  std::int64_t after = 0;
  {
    Statement covered(db, "SELECT coalesce(max(seq), 0) FROM points", context);
    if (covered.step()) after = covered.integer(0);
  }
  PointWriter writer(db, context);
  Statement results(db, results_sql(true).c_str(), context);
  results.bind(1, after);
  while (results.step()) {
    if (results.is_null(2)) continue;  // its run came after it: no points
    // The writer looks each run up once, for all of its results.
    if (const auto result = parsed<ResultRecord>(results.text(1)))
      writer.result(results.integer(0), *result);
  }
}

void verify_points(sqlite3* db, const std::string& name, ChainVerifier& verifier) {
  const std::string context = "cannot read " + name;
  Statement results(db, results_sql(false).c_str(), context);
  Statement points(
      db,
      "SELECT bench, params, metric, seq, result, is_primary, unit, better, run, time, "
      "label, branch, git_commit, dirty, centre, low, high, min, max, samples FROM "
      "points ORDER BY seq, metric",
      context);
  const auto stored_row = [&] {
    PointRow r{
        std::string(points.text(0)), std::string(points.text(1)), std::string(points.text(2)),
        points.integer(3),           std::string(points.text(4)), points.integer(5),
        std::string(points.text(6)), std::string(points.text(7)), std::string(points.text(8)),
        std::string(points.text(9)), points.nullable_text(10),    points.nullable_text(11),
        points.nullable_text(12),    points.integer(13),          {},
        points.integer(19)};
    for (int i = 14; i < 19; ++i) r.numbers.push_back(points.real(i));
    return r;
  };
  const std::string changed =
      "the table of points was changed outside benchledger, and `history` reads it";
  const auto extra = [&](const PointRow& row) {
    verifier.add_bad(row.seq, "",
                     fmt::format("the table of points holds a point (metric {}) that the records "
                                 "do not give: {}",
                                 row.metric, changed));
  };
  // Both in (seq, metric) order: a merge of the two.
  WantedRows wanted;
  bool more_points = points.step();
  while (results.step()) {
    const std::int64_t seq = results.integer(0);
    for (; more_points && points.integer(3) < seq; more_points = points.step()) extra(stored_row());
    for (const PointRow& want : wanted.of(results)) {
      while (more_points && points.integer(3) == seq && points.text(2) < want.metric) {
        extra(stored_row());
        more_points = points.step();
      }
      if (!more_points || points.integer(3) != seq || points.text(2) != want.metric) {
        verifier.add_bad(
            seq, want.result,
            fmt::format("its point for metric {} is missing: {}", want.metric, changed));
        continue;
      }
      const std::string diff = differing(stored_row(), want);
      if (!diff.empty()) {
        verifier.add_bad(seq, want.result,
                         fmt::format("its point for metric {} disagrees with its bytes ({}): {}",
                                     want.metric, diff, changed));
      }
      more_points = points.step();
    }
    for (; more_points && points.integer(3) == seq; more_points = points.step())
      extra(stored_row());
  }
  for (; more_points; more_points = points.step()) extra(stored_row());
}

}  // namespace benchledger::ledger::sqlite
