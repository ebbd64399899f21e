#include "ledger/history.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <benchledger/error.hpp>

#include "ledger/invalidated.hpp"
#include "ledger/series_filter.hpp"
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
  // `+ 0.0` makes -0 a plain 0, as a REAL column of the SQLite store's points keeps it.
  p.centre = metric.value + 0.0;
  if (metric.samples && !metric.samples->empty()) {
    p.values = *metric.samples;
    std::sort(p.values.begin(), p.values.end());
    const stats::MedianInterval interval = stats::median_interval(p.values, 0.95);
    p.low = interval.low + 0.0;
    p.high = interval.high + 0.0;
    p.min = metric.summary.min + 0.0;
    p.max = metric.summary.max + 0.0;
  } else {
    p.values = {metric.value};
    p.low = p.high = p.min = p.max = p.centre;
  }
  p.samples = static_cast<std::int64_t>(p.values.size());
  return p;
}

namespace {

// The series as they are gathered: one per case, metric and unit, in the order of each one's
// first point, each holding its newest `last` points.
class SeriesBuilder {
 public:
  struct Gathered {
    std::int64_t first = 0;  // the position of the series' first point
    Series series;
    std::deque<SeriesPoint> points;
  };

  explicit SeriesBuilder(std::size_t last) : m_last(last) {}

  // The series of a case's metric in a unit, made at its first point, at `position`.
  Gathered& series(std::int64_t position, const std::string& bench, const Params& params,
                   const std::string& metric, const std::string& unit, Better better) {
    const std::string key = case_key(bench, params) + '\n' + metric + '\n' + unit;
    auto [it, inserted] = m_series.try_emplace(key);
    Gathered& g = it->second;
    if (inserted) {
      g.first = position;
      g.series = Series{bench, params, metric, unit, better, {}};
    }
    return g;
  }

  // Adds a series' next point, keeping the newest `last`.
  void add(Gathered& g, SeriesPoint&& point) const {
    g.points.push_back(std::move(point));
    if (m_last != 0 && g.points.size() > m_last) g.points.pop_front();
  }

  std::vector<Series> take() {
    std::vector<Gathered*> order;
    order.reserve(m_series.size());
    for (auto& [key, g] : m_series) order.push_back(&g);
    std::sort(order.begin(), order.end(),
              [](const Gathered* a, const Gathered* b) { return a->first < b->first; });
    std::vector<Series> out;
    out.reserve(order.size());
    for (Gathered* g : order) {
      g->series.points.assign(std::make_move_iterator(g->points.begin()),
                              std::make_move_iterator(g->points.end()));
      out.push_back(std::move(g->series));
    }
    return out;
  }

 private:
  std::size_t m_last;
  std::map<std::string, Gathered> m_series;
};

// The position of the last point that HistoryOptions::through_runs keeps in a store's points:
// that of the newest of the runs' last points; nullopt when some run has no point, or when there
// are none. `keeps_points` says whether the store keeps points at all.
std::optional<std::int64_t> end_of_points(const Store& store, const HistoryOptions& options,
                                          const std::set<std::string>& through,
                                          bool& keeps_points) {
  std::map<std::string, std::int64_t> last;  // each run's last position met
  keeps_points = scan_points(store, options.query, options.metric, [&](StoredPoint&& p) {
    if (through.count(p.point.run_id) == 0) return;
    std::int64_t& at = last[p.point.run_id];
    at = std::max(at, p.position);
  });
  if (through.empty() || last.size() != through.size()) return std::nullopt;
  std::int64_t end = 0;
  for (const auto& [run, position] : last) end = std::max(end, position);
  return end;
}

}  // namespace

std::vector<Series> collect_series(const Store& store, const HistoryOptions& options) {
  const Invalidated invalidated(store.notes());
  const std::set<std::string> through(options.through_runs.begin(), options.through_runs.end());
  SeriesBuilder builder(options.last);
  // Points from the store's columns, when it keeps them and the samples are not needed: they
  // come series by series, and the builder puts the series back in the order of their first
  // points. A series is looked up once for the run of points that share its SeriesCase. Points
  // come case by case, so where `through` ends them is found in a pass of its own.
  bool keeps_points = !options.samples;
  std::optional<std::int64_t> end;
  if (keeps_points && !through.empty()) end = end_of_points(store, options, through, keeps_points);
  std::shared_ptr<const SeriesCase> current;  // held, so that its address is not reused
  SeriesBuilder::Gathered* gathered = nullptr;
  if (keeps_points && scan_points(store, options.query, options.metric, [&](StoredPoint&& p) {
        if (end && p.position > *end) return;
        const SeriesCase& c = *p.series;
        if (invalidated.covers(p.point.run_id, p.result_id, c.bench)) return;
        if (p.series != current) {
          gathered = &builder.series(p.position, c.bench, c.params, c.metric, c.unit, c.better);
          current = std::move(p.series);
        }
        builder.add(*gathered, std::move(p.point));
      })) {
    return builder.take();
  }
  std::int64_t position = 0;  // results arrive in ledger order: a count orders them
  // The runs of `through` not met yet.
  std::set<std::string> pending = through;
  scan_series(store, options.query, [&](const RunRecord& run, ResultRecord&& result) {
    // A run's results follow it in one batch: once every run of `through` has been met, the
    // first result of another run was appended after the newest of them.
    if (through.count(run.header.id) != 0) {
      pending.erase(run.header.id);
    } else if (!through.empty() && pending.empty()) {
      return false;
    }
    if (invalidated.covers(run.header.id, result)) return true;
    const std::string& name = options.metric ? *options.metric : result.primary;
    const auto metric = result.metrics.find(name);
    if (metric == result.metrics.end()) return true;
    builder.add(builder.series(++position, result.bench, result.params, name, metric->second.unit,
                               metric->second.better),
                series_point(run.header.id, run.header.time, run.label, run.git, metric->second));
    return true;
  });
  return builder.take();
}

namespace {

// The run filters as the flags that gave them: ` --label nightly --since 2999-01-01`.
std::string filters_text(const SeriesQuery& query) {
  std::string out;
  if (query.label) out += " --label " + *query.label;
  if (query.branch) out += " --branch " + *query.branch;
  if (query.since) out += " --since " + *query.since;
  return out;
}

// Whether the query (its cases and run filters) selects any result at all.
bool selects_a_result(const Store& store, const SeriesQuery& query) {
  bool found = false;
  scan_series(store, query, [&](const RunRecord&, ResultRecord&&) {
    found = true;
    return false;
  });
  return found;
}

}  // namespace

void require_series(const Store& store, const HistoryOptions& options,
                    const std::vector<Series>& series) {
  std::vector<std::string> unmatched;
  for (const std::string& glob : options.query.cases) {
    if (std::none_of(series.begin(), series.end(),
                     [&](const Series& s) { return case_matches({glob}, s.bench, s.params); })) {
      unmatched.push_back(glob);
    }
  }
  if (!series.empty() && unmatched.empty()) return;
  const std::string ledger = "ledger " + store.uri();
  if (store.log(1).empty()) {
    // The stores read a ledger that is not there yet as an empty one, and say so in a warning.
    for (const std::string& warning : store.warnings()) {
      if (warning.find("does not exist") != std::string::npos)
        throw Error(ledger + " does not exist");
    }
    throw Error(ledger + " holds no run");
  }
  const std::string filters = filters_text(options.query);
  SeriesQuery runs = options.query;
  runs.cases.clear();
  if (!filters.empty() && !selects_a_result(store, runs)) {
    throw Error(fmt::format("no run with results in {} matches{}", ledger, filters));
  }
  const std::string among = filters.empty() ? "" : " among the runs matching" + filters;
  // What a result that is there still lacks: the metric, or it is left out as invalidated.
  const std::string lacking =
      options.metric ? fmt::format("has no result with the metric \"{}\"", *options.metric)
                     : std::string("has only invalidated results");
  std::vector<std::string> reasons;
  for (const std::string& glob : unmatched) {
    SeriesQuery one = runs;
    one.cases = {glob};
    reasons.push_back(
        selects_a_result(store, one)
            ? fmt::format("CASE \"{}\" {} in {}{}", glob, lacking, ledger, among)
            : fmt::format("CASE \"{}\" matches no case of {}{}", glob, ledger, among));
  }
  if (reasons.empty()) reasons.push_back(fmt::format("{}{} {}", ledger, among, lacking));
  throw Error(fmt::format("{}", fmt::join(reasons, "; ")));
}

}  // namespace benchledger::ledger
