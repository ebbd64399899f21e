// A database store's table of points (see points.hpp).
#include "ledger/points.hpp"

#include <array>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "ledger/columns.hpp"
#include "ledger/history.hpp"
#include "ledger/series_filter.hpp"
#include "model/json_reader.hpp"

namespace benchledger::ledger {

PointRun point_run(const RunRecord& run) {
  return PointRun{run.header.id, run.header.time, run.label, run.git};
}

std::vector<PointRow> point_rows(std::int64_t seq, const PointRun& run,
                                 const ResultRecord& result) {
  std::vector<PointRow> rows;
  const std::string params = params_text(result.params);
  for (const auto& [name, metric] : result.metrics) {
    const SeriesPoint q = series_point(run.id, run.time, run.label, run.git, metric);
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

namespace {

constexpr const char* k_points_changed =
    "the table of points was changed outside benchledger, and `history` reads it";

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

// Past this many runs kept, they are forgotten, and a result of one of them looks it up again:
// a run's results follow it closely, and the memory stays bounded whatever the ledger's size.
constexpr std::size_t k_runs_kept = 65536;

}  // namespace

PointsCheck::PointsCheck(FindRun find_run, NextPoint next_point, ChainVerifier& verifier)
    : m_find_run(std::move(find_run)), m_next_point(std::move(next_point)), m_verifier(verifier) {}

void PointsCheck::extra(const PointRow& row) {
  m_verifier.add_bad(row.seq, "",
                     fmt::format("the table of points holds a point (metric {}) that the records "
                                 "do not give: {}",
                                 row.metric, k_points_changed));
}

void PointsCheck::extras_before(std::int64_t seq) {
  if (!m_started) {
    m_started = true;
    m_more = m_next_point(m_point);
  }
  for (; m_more && m_point.seq < seq; m_more = m_next_point(m_point)) extra(m_point);
}

const std::optional<PointRun>& PointsCheck::keep(const std::string& id,
                                                 std::optional<PointRun> run) {
  if (m_runs.size() >= k_runs_kept) m_runs.clear();
  return m_runs.insert_or_assign(id, std::move(run)).first->second;
}

const std::optional<PointRun>& PointsCheck::run_of(const std::string& id, std::int64_t seq) {
  if (const auto kept = m_runs.find(id); kept != m_runs.end()) return kept->second;
  std::optional<PointRun> run;
  if (const auto bytes = m_find_run(id, seq)) {
    if (const auto parsed = parsed_as<RunRecord>(*bytes)) run = point_run(*parsed);
  }
  return keep(id, std::move(run));
}

void PointsCheck::add(std::int64_t seq, const std::optional<Record>& record) {
  // Both in (seq, metric) order: a merge of the two.
  extras_before(seq);
  if (record) {
    if (const auto* run = std::get_if<RunRecord>(&*record)) {
      keep(run->header.id, point_run(*run));
    } else if (const auto* result = std::get_if<ResultRecord>(&*record)) {
      if (const auto& of = run_of(result->run, seq)) {
        for (const PointRow& want : point_rows(seq, *of, *result)) {
          while (m_more && m_point.seq == seq && m_point.metric < want.metric) {
            extra(m_point);
            m_more = m_next_point(m_point);
          }
          if (!m_more || m_point.seq != seq || m_point.metric != want.metric) {
            m_verifier.add_bad(seq, want.result,
                               fmt::format("its point for metric {} is missing: {}", want.metric,
                                           k_points_changed));
            continue;
          }
          const std::string diff = differing(m_point, want);
          if (!diff.empty()) {
            m_verifier.add_bad(
                seq, want.result,
                fmt::format("its point for metric {} disagrees with its bytes ({}): {}",
                            want.metric, diff, k_points_changed));
          }
          m_more = m_next_point(m_point);
        }
      }
    }
  }
  for (; m_more && m_point.seq == seq; m_more = m_next_point(m_point)) extra(m_point);
}

void PointsCheck::finish() {
  extras_before(std::numeric_limits<std::int64_t>::max());  // reads the first row if no record came
  for (; m_more; m_more = m_next_point(m_point)) extra(m_point);
}

PointReader::PointReader(std::vector<std::string> cases, std::string name)
    : m_cases(std::move(cases)), m_name(std::move(name)) {}

std::optional<StoredPoint> PointReader::point(const PointColumns& row) {
  if (row.bench != m_bench || row.params != m_params_json) {
    m_bench = row.bench;
    m_params_json = row.params;
    try {
      m_params = params_from_json(
          model::parse_bounded_json(m_params_json, model::RepeatedNames::keep_last));
    } catch (const std::exception& e) {
      throw IntegrityError(
          fmt::format("{}: the params of point {} ({}): {} (run `benchledger ledger verify`)",
                      m_name, row.seq, m_params_json, e.what()));
    }
    m_matches = case_matches(m_cases, m_bench, m_params);
    m_series.reset();
  }
  if (!m_matches) return std::nullopt;
  if (!m_series || row.metric != m_series->metric || row.unit != m_series->unit ||
      row.better != to_string(m_series->better)) {
    const auto better = better_from(row.better);
    if (!better) {
      throw IntegrityError(
          fmt::format("{}: point {} says better is {} (run `benchledger ledger verify`)", m_name,
                      row.seq, row.better));
    }
    m_series = std::make_shared<const SeriesCase>(
        SeriesCase{m_bench, m_params, std::string(row.metric), std::string(row.unit), *better});
  }
  StoredPoint p;
  p.position = row.seq;
  p.result_id = row.result;
  p.series = m_series;
  p.point.run_id = row.run;
  p.point.time = row.time;
  if (row.label) p.point.label = std::string(*row.label);
  if (row.git_commit) p.point.commit = std::string(*row.git_commit);
  p.point.dirty = row.dirty;
  p.point.centre = row.centre;
  p.point.low = row.low;
  p.point.high = row.high;
  p.point.min = row.min;
  p.point.max = row.max;
  p.point.samples = row.samples;
  return p;
}

}  // namespace benchledger::ledger
