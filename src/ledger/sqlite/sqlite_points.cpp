// The SQLite store's table of points (see sqlite_points.hpp).
#include "ledger/sqlite/sqlite_points.hpp"

#include <vector>

#include "ledger/points.hpp"

namespace benchledger::ledger::sqlite {
namespace {

constexpr const char* k_insert_sql =
    "INSERT INTO points (bench, params, metric, seq, result, is_primary, unit, better, run, time, "
    "label, branch, git_commit, dirty, centre, low, high, min, max, samples) VALUES (?1, ?2, ?3, "
    "?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)";

}  // namespace

PointWriter::PointWriter(sqlite3* db, const std::string& context)
    : m_insert(db, k_insert_sql, context),
      m_find_run(db, "SELECT seq, bytes FROM records WHERE id = ?1 AND type = 'run'", context) {}

void PointWriter::run(const RunRecord& run) {
  m_run = point_run(run);
}

void PointWriter::result(std::int64_t seq, const ResultRecord& result) {
  if (!m_run || m_run->id != result.run) {
    m_find_run.bind(1, std::string_view(result.run));
    const bool found = m_find_run.step();
    std::optional<RunRecord> run;
    if (found) run = parsed_as<RunRecord>(m_find_run.text(1));
    m_find_run.reset();
    if (!run) return;  // not in the ledger, or a record verify reports: no points, as fill_points
    m_run = point_run(*run);
  }
  for (const PointRow& row : point_rows(seq, *m_run, result)) {
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
    if (const auto result = parsed_as<ResultRecord>(results.text(1)))
      writer.result(results.integer(0), *result);
  }
}

PointsVerifier::PointsVerifier(sqlite3* db, const std::string& name, ChainVerifier& verifier,
                               std::int64_t after)
    : m_points(db,
               "SELECT bench, params, metric, seq, result, is_primary, unit, better, run, time, "
               "label, branch, git_commit, dirty, centre, low, high, min, max, samples FROM "
               "points WHERE seq > ?1 ORDER BY seq, metric",
               "cannot read " + name),
      m_find_run(db, "SELECT bytes FROM records WHERE id = ?1 AND type = 'run' AND seq < ?2",
                 "cannot read " + name),
      m_check(
          [this](const std::string& id, std::int64_t before) -> std::optional<std::string> {
            m_find_run.bind(1, std::string_view(id)).bind(2, before);
            std::optional<std::string> bytes;
            if (m_find_run.step()) bytes = std::string(m_find_run.text(0));
            m_find_run.reset();
            return bytes;
          },
          [this](PointRow& r) {
            if (!m_points.step()) return false;
            const Statement& p = m_points;
            r = PointRow{std::string(p.text(0)), std::string(p.text(1)), std::string(p.text(2)),
                         p.integer(3),           std::string(p.text(4)), p.integer(5),
                         std::string(p.text(6)), std::string(p.text(7)), std::string(p.text(8)),
                         std::string(p.text(9)), p.nullable_text(10),    p.nullable_text(11),
                         p.nullable_text(12),    p.integer(13),          {},
                         p.integer(19)};
            for (int i = 14; i < 19; ++i) r.numbers.push_back(p.real(i));
            return true;
          },
          verifier) {
  m_points.bind(1, after);
}

}  // namespace benchledger::ledger::sqlite
