#include "ledger/history.hpp"

#include <algorithm>
#include <deque>
#include <map>

#include "ledger/invalidated.hpp"
#include "stats/median_interval.hpp"

namespace benchledger::ledger {
SeriesPoint series_point(const std::string& run_id, const std::string& time,
                         const std::optional<std::string>& label, const GitState& git,
                         const Metric& metric) {
  SeriesPoint p;
  p.run_id = run_id;
  p.time = time;
  p.label = label;
  p.commit = git.commit;
  p.dirty = git.dirty.value_or(false);
  p.centre = metric.value;
  if (metric.samples && !metric.samples->empty()) {
    p.values = *metric.samples;
    std::sort(p.values.begin(), p.values.end());
    const stats::MedianInterval interval = stats::median_interval(p.values, 0.95);
    p.low = interval.low;
    p.high = interval.high;
    p.min = metric.summary.min;
    p.max = metric.summary.max;
  } else {
    p.values = {metric.value};
    p.low = p.high = p.min = p.max = metric.value;
  }
  p.samples = static_cast<std::int64_t>(p.values.size());
  return p;
}

std::vector<Series> collect_series(const Store& store, const HistoryOptions& options) {
  const Invalidated invalidated(store.notes());
  std::vector<std::string> order;
  std::map<std::string, Series> series;
  std::map<std::string, std::deque<SeriesPoint>> points;
  store.scan_series(options.query, [&](const RunRecord& run, ResultRecord&& result) {
    if (invalidated.covers(run.header.id, result)) return true;
    const std::string& name = options.metric ? *options.metric : result.primary;
    const auto metric = result.metrics.find(name);
    if (metric == result.metrics.end()) return true;
    const std::string key =
        case_key(result.bench, result.params) + '\n' + name + '\n' + metric->second.unit;
    auto [it, inserted] = series.try_emplace(key);
    if (inserted) {
      order.push_back(key);
      it->second =
          Series{result.bench, result.params, name, metric->second.unit, metric->second.better, {}};
    }
    std::deque<SeriesPoint>& q = points[key];
    q.push_back(series_point(run.header.id, run.header.time, run.label, run.git, metric->second));
    if (options.last != 0 && q.size() > options.last) q.pop_front();
    return true;
  });
  std::vector<Series> out;
  out.reserve(order.size());
  for (const std::string& key : order) {
    Series s = std::move(series[key]);
    auto& q = points[key];
    s.points.assign(std::make_move_iterator(q.begin()), std::make_move_iterator(q.end()));
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace benchledger::ledger
