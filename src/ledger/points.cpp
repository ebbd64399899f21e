// A database store's table of points (see points.hpp).
#include "ledger/points.hpp"

#include <array>
#include <cmath>

#include <fmt/format.h>

#include "ledger/columns.hpp"
#include "ledger/history.hpp"
#include "ledger/series_filter.hpp"
#include "model/json_reader.hpp"

namespace benchledger::ledger {

std::vector<PointRow> point_rows(std::int64_t seq, const RunRecord& run,
                                 const ResultRecord& result) {
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

std::vector<PointRow> WantedPoints::of(std::int64_t seq,
                                       const std::optional<std::string_view>& run_bytes,
                                       std::string_view result_bytes) {
  if (!run_bytes) return {};
  if (*run_bytes != m_run_bytes) {
    m_run_bytes = *run_bytes;
    m_run = parsed_as<RunRecord>(m_run_bytes);
  }
  const auto result = parsed_as<ResultRecord>(result_bytes);
  if (!result || !m_run) return {};
  return point_rows(seq, *m_run, *result);
}

namespace {

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

}  // namespace

void verify_points(const std::function<bool(PointSource& result)>& next_result,
                   const std::function<bool(PointRow& row)>& next_point, ChainVerifier& verifier) {
  const std::string changed =
      "the table of points was changed outside benchledger, and `history` reads it";
  const auto extra = [&](const PointRow& row) {
    verifier.add_bad(row.seq, "",
                     fmt::format("the table of points holds a point (metric {}) that the records "
                                 "do not give: {}",
                                 row.metric, changed));
  };
  // Both in (seq, metric) order: a merge of the two.
  WantedPoints wanted;
  PointSource result;
  PointRow point;
  bool more_points = next_point(point);
  while (next_result(result)) {
    const std::int64_t seq = result.seq;
    for (; more_points && point.seq < seq; more_points = next_point(point)) extra(point);
    const std::optional<std::string_view> run_bytes =
        result.run_bytes ? std::optional<std::string_view>(*result.run_bytes) : std::nullopt;
    for (const PointRow& want : wanted.of(seq, run_bytes, result.bytes)) {
      while (more_points && point.seq == seq && point.metric < want.metric) {
        extra(point);
        more_points = next_point(point);
      }
      if (!more_points || point.seq != seq || point.metric != want.metric) {
        verifier.add_bad(
            seq, want.result,
            fmt::format("its point for metric {} is missing: {}", want.metric, changed));
        continue;
      }
      const std::string diff = differing(point, want);
      if (!diff.empty()) {
        verifier.add_bad(seq, want.result,
                         fmt::format("its point for metric {} disagrees with its bytes ({}): {}",
                                     want.metric, diff, changed));
      }
      more_points = next_point(point);
    }
    for (; more_points && point.seq == seq; more_points = next_point(point)) extra(point);
  }
  for (; more_points; more_points = next_point(point)) extra(point);
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
