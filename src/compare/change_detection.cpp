#include "compare/change_detection.hpp"

#include <fmt/format.h>

#include "stats/order_statistics.hpp"

namespace benchledger::compare {
namespace {

std::string runs_text(std::size_t n) {
  return fmt::format("{} {}", n, n == 1 ? "run" : "runs");
}

// The remark of a series too short for the test (stats::unreachable_change_point).
std::string unreachable_remark(const stats::ChangePointReach& reach, std::size_t points,
                               double max_p) {
  const std::string best =
      points < 2 ? std::string("a change needs runs on both sides")
                 : fmt::format("the smallest attainable p, a split of {} against {}, is {:.3g}",
                               runs_text(reach.before), reach.after, reach.smallest_p);
  return fmt::format("cannot reach significance at p < {:.3g} with {}: {}; need >= {}", max_p,
                     runs_text(points), best, runs_text(reach.points_needed));
}

}  // namespace

CaseChanges detect_changes(const ledger::Series& s, const DetectOptions& options) {
  CaseChanges c{s.bench, s.params, s.metric, s.unit, s.better, s.points.size(), {}, {}};
  std::vector<double> centres;
  centres.reserve(s.points.size());
  for (const auto& p : s.points) centres.push_back(p.centre);
  stats::ChangePointOptions method = options.method;
  method.min_magnitude =
      options.min_change ? *options.min_change
                         : options.config.threshold_for(s.bench, options.fallback_threshold) / 100;
  if (const auto reach = stats::unreachable_change_point(centres, method)) {
    c.remark = unreachable_remark(*reach, centres.size(), method.max_p);
  }
  for (const stats::ChangePoint& cp : stats::e_divisive_change_points(centres, method)) {
    const ledger::SeriesPoint& at = s.points[cp.index];
    DetectedChange d;
    d.index = cp.index;
    d.run_id = at.run_id;
    d.time = at.time;
    d.commit = at.commit;
    d.dirty = at.dirty;
    d.before = cp.before;
    d.after = cp.after;
    // A change from 0 has no relative size: 0, and the values before and after say the rest.
    d.change = stats::relative_change(cp.before, cp.after).value_or(0);
    d.p = cp.p;
    d.regression = s.better == Better::lower ? cp.after > cp.before : cp.after < cp.before;
    c.changes.push_back(std::move(d));
  }
  return c;
}

std::vector<CaseChanges> detect_changes(const std::vector<ledger::Series>& series,
                                        const DetectOptions& options) {
  std::vector<CaseChanges> out;
  out.reserve(series.size());
  for (const ledger::Series& s : series) out.push_back(detect_changes(s, options));
  return out;
}

bool recent_regression(const CaseChanges& changes, std::size_t recent) {
  for (const DetectedChange& d : changes.changes) {
    if (d.regression && d.index + recent >= changes.points) return true;
  }
  return false;
}

}  // namespace benchledger::compare
