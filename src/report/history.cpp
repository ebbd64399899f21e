// The trend of each reported case across the ledger's history, read in one scan.
#include <deque>
#include <map>
#include <set>

#include "ledger/invalidated.hpp"
#include "report/report.hpp"

namespace benchledger::report {
namespace {

struct RunInfo {
  std::string time;
  std::optional<std::string> label;
  GitState git;
};

}  // namespace

std::vector<Trend> collect_history(const ledger::Store& store, const std::vector<RunData>& runs,
                                   std::size_t history) {
  // The cases to follow, in report order; the newest reported run decides a case's metric.
  std::vector<std::string> order;
  std::map<std::string, Trend> trends;
  std::map<std::string, std::deque<ledger::SeriesPoint>> points;
  for (const RunData& data : runs) {
    for (const ResultRecord& r : data.results) {
      const auto metric = r.metrics.find(r.primary);
      if (metric == r.metrics.end()) continue;
      const std::string key = case_key(r.bench, r.params);
      auto [it, inserted] = trends.try_emplace(key);
      if (inserted) order.push_back(key);
      it->second.bench = r.bench;
      it->second.params = r.params;
      it->second.metric = r.primary;
      it->second.unit = metric->second.unit;
      it->second.better = metric->second.better;
    }
  }
  if (history == 0 || order.empty()) return {};

  const ledger::Invalidated invalidated(store.notes());

  std::set<std::string> pending;  // reported runs not yet met in the scan
  for (const RunData& data : runs) pending.insert(data.run.header.id);
  std::map<std::string, RunInfo> seen_runs;
  const auto add = [&](const std::string& run_id, const RunInfo& info, const ResultRecord& r) {
    const auto trend = trends.find(case_key(r.bench, r.params));
    if (trend == trends.end()) return;
    const auto metric = r.metrics.find(trend->second.metric);
    if (metric == r.metrics.end() || metric->second.unit != trend->second.unit) return;
    std::deque<ledger::SeriesPoint>& q = points[trend->first];
    q.push_back(ledger::series_point(run_id, info.time, info.label, info.git, metric->second));
    if (q.size() > history) q.pop_front();
  };
  // Records of a run follow its run record in one batch; stop at the first run record after
  // the last reported run has been met, so that later runs stay out of its history.
  bool all_met = false;
  store.scan([&](const ledger::StoredRecord& stored) {
    if (const auto* run = std::get_if<RunRecord>(&stored.record)) {
      if (all_met) return false;
      seen_runs[run->header.id] = RunInfo{run->header.time, run->label, run->git};
      pending.erase(run->header.id);
      all_met = pending.empty();
      return true;
    }
    if (const auto* result = std::get_if<ResultRecord>(&stored.record)) {
      const auto run = seen_runs.find(result->run);
      if (run == seen_runs.end() || invalidated.covers(result->run, *result)) return true;
      add(result->run, run->second, *result);
    }
    return true;
  });
  // Reported runs read from elsewhere end the trends of their cases.
  for (const RunData& data : runs) {
    if (pending.count(data.run.header.id) == 0) continue;
    const RunInfo info{data.run.header.time, data.run.label, data.run.git};
    for (const ResultRecord& r : data.results) add(data.run.header.id, info, r);
  }

  std::vector<Trend> out;
  for (const std::string& key : order) {
    Trend trend = trends[key];
    const auto& q = points[key];
    trend.points.assign(q.begin(), q.end());
    out.push_back(std::move(trend));
  }
  return out;
}

void mark_change_points(std::vector<Trend>& trends, const compare::DetectOptions& options) {
  std::vector<ledger::Series> series;
  series.reserve(trends.size());
  for (const Trend& trend : trends) {
    series.push_back(
        {trend.bench, trend.params, trend.metric, trend.unit, trend.better, trend.points});
  }
  std::vector<compare::CaseChanges> found = compare::detect_changes(series, options);
  for (std::size_t i = 0; i < trends.size(); ++i) trends[i].changes = std::move(found[i].changes);
}

}  // namespace benchledger::report
