// The trends of the reported cases: the series `benchledger history` follows, from
// ledger::collect_series, and their change points as `benchledger detect` finds them.
#include <map>
#include <optional>
#include <set>

#include "ledger/invalidated.hpp"
#include "report/report.hpp"

namespace benchledger::report {
namespace {

// What tells one series from another, as ledger::collect_series tells them apart.
std::string series_key(const std::string& bench, const Params& params, const std::string& metric,
                       const std::string& unit) {
  return case_key(bench, params) + '\n' + metric + '\n' + unit;
}

// Adds the points of reported runs that `store` does not hold (runs read from another file) at
// the end of their cases' series, keeping the newest `history`; a point in a metric or unit that
// has no series yet starts one.
void add_runs_from_elsewhere(const ledger::Store& store, const std::vector<RunData>& runs,
                             std::size_t history, std::vector<ledger::Series>& series) {
  std::set<std::string> with_points;
  for (const ledger::Series& s : series) {
    for (const ledger::SeriesPoint& p : s.points) with_points.insert(p.run_id);
  }
  std::map<std::string, std::size_t> by_key;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const ledger::Series& s = series[i];
    by_key.emplace(series_key(s.bench, s.params, s.metric, s.unit), i);
  }
  std::optional<ledger::Invalidated> invalidated;  // the notes, read when a run needs them
  for (const RunData& data : runs) {
    const std::string& id = data.run.header.id;
    // A run with no point may still be in the store: an older one whose points fell out of
    // the last `history`, or one whose results are all invalidated.
    if (!with_points.insert(id).second || store.find_record(id)) continue;
    if (!invalidated) invalidated.emplace(store.notes());
    for (const ResultRecord& r : data.results) {
      const auto metric = r.metrics.find(r.primary);
      if (metric == r.metrics.end() || invalidated->covers(id, r)) continue;
      const Metric& m = metric->second;
      const auto [it, inserted] =
          by_key.try_emplace(series_key(r.bench, r.params, r.primary, m.unit), series.size());
      if (inserted) series.push_back({r.bench, r.params, r.primary, m.unit, m.better, {}});
      std::vector<ledger::SeriesPoint>& points = series[it->second].points;
      points.push_back(
          ledger::series_point(id, data.run.header.time, data.run.label, data.run.git, m));
      if (points.size() > history) points.erase(points.begin());
    }
  }
}

}  // namespace

std::vector<Trend> collect_trends(const ledger::Store& store, const std::vector<RunData>& runs,
                                  std::size_t history) {
  // The cases to follow, in report order.
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::size_t>> series_of;  // case key → its series
  for (const RunData& data : runs) {
    for (const ResultRecord& r : data.results) {
      if (r.metrics.count(r.primary) == 0) continue;
      std::string key = case_key(r.bench, r.params);
      if (series_of.try_emplace(key).second) order.push_back(std::move(key));
    }
  }
  if (history == 0 || order.empty()) return {};

  ledger::HistoryOptions options;
  options.last = history;
  for (const RunData& data : runs) options.through_runs.push_back(data.run.header.id);
  std::vector<ledger::Series> series = ledger::collect_series(store, options);
  add_runs_from_elsewhere(store, runs, history, series);

  for (std::size_t i = 0; i < series.size(); ++i) {
    const auto it = series_of.find(case_key(series[i].bench, series[i].params));
    if (it != series_of.end()) it->second.push_back(i);
  }
  std::vector<Trend> out;
  for (const std::string& key : order) {
    for (const std::size_t i : series_of[key]) out.push_back({std::move(series[i]), {}});
  }
  return out;
}

void mark_change_points(std::vector<Trend>& trends, const compare::DetectOptions& options) {
  for (Trend& trend : trends)
    trend.changes = compare::detect_changes(trend.series, options).changes;
}

}  // namespace benchledger::report
