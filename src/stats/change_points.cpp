#include "stats/change_points.hpp"

#include "stats/mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include <boost/math/distributions/students_t.hpp>

#include <benchledger/error.hpp>

namespace benchledger::stats {
namespace {

struct Candidate {
  std::size_t index = 0;
  double qhat = 0;
};

// Student's t-test with pooled variance of x[a, b) against x[b, c), with the population
// standard deviations (ddof 0) that Otava passes to scipy's ttest_ind_from_stats.
ChangePoint student_test(std::span<const double> x, std::size_t a, std::size_t b, std::size_t c,
                         double qhat) {
  const auto moments = [&](std::size_t from, std::size_t to) {
    double sum = 0;
    for (std::size_t i = from; i < to; ++i) sum += x[i];
    const double n = static_cast<double>(to - from);
    const double mean = sum / n;
    double squares = 0;
    for (std::size_t i = from; i < to; ++i) squares += (x[i] - mean) * (x[i] - mean);
    return std::pair{mean, to - from >= 2 ? std::sqrt(squares / n) : 0.0};
  };
  const auto [mean_1, std_1] = moments(a, b);
  const auto [mean_2, std_2] = moments(b, c);
  ChangePoint point{b, mean_1, mean_2, 1.0, qhat};
  const double n1 = static_cast<double>(b - a), n2 = static_cast<double>(c - b);
  if (n1 + n2 <= 2) return point;
  const double df = n1 + n2 - 2;
  const double pooled = ((n1 - 1) * std_1 * std_1 + (n2 - 1) * std_2 * std_2) / df;
  const double se = std::sqrt(pooled * (1 / n1 + 1 / n2));
  const double diff = mean_1 - mean_2;
  if (se == 0) {
    point.p = diff == 0 ? 1.0 : 0.0;  // scipy: 0 for d/0; nan, never significant, for 0/0
    return point;
  }
  const boost::math::students_t t(df);
  point.p = 2 * boost::math::cdf(t, -std::abs(diff / se));
  return point;
}

// The two segments x[a, b) and x[b, c) by the options' test; before and after are their means.
ChangePoint segment_test(std::span<const double> x, std::size_t a, std::size_t b, std::size_t c,
                         double qhat, SegmentTest test) {
  ChangePoint point = student_test(x, a, b, c, qhat);
  if (test == SegmentTest::rank) {
    // A segment of one point cannot reach a small p here (at best 2 / (n + 1)), so an outlier
    // makes no change point, and its rank weighs no more than any other point's.
    point.p = mann_whitney_u(x.subspan(a, b - a), x.subspan(b, c - b)).p;
  }
  return point;
}

// The E-Divisive candidate in x[s, e): the split τ (s < τ < e) and end κ (τ < κ <= e) that
// maximize Q(x[s, τ), x[τ, κ)); the first maximum in order of τ, then κ, as numpy's argmax.
Candidate best_split(std::span<const double> x, std::size_t s, std::size_t e) {
  const std::size_t length = e - s;
  // below[c][b - s] = Σ_{i ∈ [s, b)} |x_i - x_c| for c in [s, e), b in [s, e].
  std::vector<std::vector<double>> below(length, std::vector<double>(length + 1, 0));
  for (std::size_t c = 0; c < length; ++c) {
    for (std::size_t b = 0; b < length; ++b) {
      below[c][b + 1] = below[c][b] + std::abs(x[s + b] - x[s + c]);
    }
  }
  Candidate best{s + 1, -INFINITY};
  double within_left = 0;  // Σ |x_i - x_k| over s <= i < k < τ
  for (std::size_t tau = 1; tau < length; ++tau) {
    if (tau >= 2) within_left += below[tau - 1][tau - 1];
    double cross = 0, within_right = 0;
    const double n = static_cast<double>(tau);
    for (std::size_t kappa = tau + 1; kappa <= length; ++kappa) {
      const std::size_t last = kappa - 1;  // the point the step from κ - 1 to κ adds
      cross += below[last][tau];
      within_right += below[last][last] - below[last][tau];
      const double m = static_cast<double>(kappa - tau);
      double q = 2 / (m + n) * cross;
      if (n > 1) q -= 2 * m / ((m + n) * (n - 1)) * within_left;
      if (m > 1) q -= 2 * n / ((m + n) * (m - 1)) * within_right;
      if (q > best.qhat) best = Candidate{s + tau, q};
    }
  }
  return best;
}

// The segment bounds the change points make of [0, n): 0, each index, n.
std::vector<std::size_t> bounds_of(const std::vector<ChangePoint>& points, std::size_t n) {
  std::vector<std::size_t> out{0};
  for (const ChangePoint& p : points) out.push_back(p.index);
  out.push_back(n);
  return out;
}

// E-Divisive in the window x[start, end): candidates split the segments between the change
// points found so far, while the best of them is significant at `max_p`.
std::vector<ChangePoint> window_change_points(std::span<const double> x, std::size_t start,
                                              std::size_t end, double max_p, SegmentTest test) {
  const std::span<const double> window = x.subspan(start, end - start);
  std::vector<ChangePoint> found;
  for (;;) {
    const auto bounds = bounds_of(found, window.size());
    std::optional<Candidate> candidate;
    std::size_t segment = 0;
    for (std::size_t i = 0; i + 1 < bounds.size(); ++i) {
      if (bounds[i + 1] - bounds[i] < 2) continue;
      const Candidate c = best_split(window, bounds[i], bounds[i + 1]);
      if (!candidate || c.qhat > candidate->qhat) {
        candidate = c;
        segment = i;
      }
    }
    if (!candidate) break;
    const ChangePoint point = segment_test(window, bounds[segment], candidate->index,
                                           bounds[segment + 1], candidate->qhat, test);
    if (!(point.p <= max_p)) break;
    found.insert(std::upper_bound(found.begin(), found.end(), point.index,
                                  [](std::size_t i, const ChangePoint& p) { return i < p.index; }),
                 point);
  }
  for (ChangePoint& p : found) p.index += start;
  return found;
}

// Each change point's test against its neighbouring segments.
void retest(std::span<const double> x, std::vector<ChangePoint>& points, std::size_t at,
            SegmentTest test) {
  if (at >= points.size()) return;
  const std::size_t a = at == 0 ? 0 : points[at - 1].index;
  const std::size_t c = at + 1 == points.size() ? x.size() : points[at + 1].index;
  points[at] = segment_test(x, a, points[at].index, c, points[at].qhat, test);
}

// The change point to drop next, or nullopt when every one stays: Otava's weakest, the largest p
// when it fails max_p, else the smallest change when that is not above min_magnitude.
std::optional<std::size_t> weakest(const std::vector<ChangePoint>& points,
                                   const ChangePointOptions& options) {
  std::size_t worst = 0;
  for (std::size_t i = 1; i < points.size(); ++i) {
    if (points[i].p > points[worst].p) worst = i;
  }
  if (points[worst].p < options.max_p) {
    std::size_t smallest = 0;
    for (std::size_t i = 1; i < points.size(); ++i) {
      if (change_magnitude(points[i].before, points[i].after) <
          change_magnitude(points[smallest].before, points[smallest].after))
        smallest = i;
    }
    if (change_magnitude(points[smallest].before, points[smallest].after) > options.min_magnitude) {
      return std::nullopt;
    }
    return smallest;
  }
  return worst;
}

}  // namespace

double change_magnitude(double before, double after) {
  const double forward = before == 0 ? 0 : after / before - 1;
  const double backward = after == 0 ? 0 : before / after - 1;
  return std::max(std::abs(forward), std::abs(backward));
}

namespace {

void check_options(std::span<const double> series, const ChangePointOptions& options) {
  if (options.window < 2 || options.window > k_max_change_point_window) {
    throw Error("change points: the window must hold 2 to " +
                std::to_string(k_max_change_point_window) + " points");
  }
  if (!(options.max_p > 0 && options.max_p <= 1)) {
    throw Error("change points: the significance level must lie in (0, 1]");
  }
  if (!(options.min_magnitude >= 0)) {
    throw Error("change points: the minimum change must not be negative");
  }
  for (std::size_t i = 0; i < series.size(); ++i) {
    if (!std::isfinite(series[i])) {
      throw Error("change points: point " + std::to_string(i) + " is not a finite number");
    }
  }
}

// The fewest points whose best split can get a p below max_p (see ChangePointReach).
std::size_t points_needed(const ChangePointOptions& options) {
  // Student's t of 1 point against 2 is 0 when the two are equal and differ from the one.
  if (options.test == SegmentTest::student) return 3;
  std::size_t n = 2;
  while (mann_whitney_min_p(n / 2, n - n / 2) >= options.max_p) ++n;
  return n;
}

}  // namespace

std::optional<ChangePointReach> unreachable_change_point(std::span<const double> series,
                                                         const ChangePointOptions& options) {
  check_options(series, options);
  ChangePointReach reach;
  reach.points_needed = points_needed(options);
  const std::size_t n = series.size();
  if (n >= reach.points_needed) return std::nullopt;
  reach.before = n;
  std::vector<double> sorted(series.begin(), series.end());
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t tau = 1; tau < n; ++tau) {
    const double p = segment_test(sorted, 0, tau, n, 0, options.test).p;
    if (tau == 1 || p < reach.smallest_p) {
      reach.smallest_p = p;
      reach.before = tau;
      reach.after = n - tau;
    }
  }
  // The merge keeps a change point only while its p is below max_p.
  if (reach.smallest_p < options.max_p) return std::nullopt;
  return reach;
}

std::vector<ChangePoint> e_divisive_change_points(std::span<const double> series,
                                                  const ChangePointOptions& options) {
  check_options(series, options);
  const std::size_t n = series.size();
  // Split: weak change points at a relaxed level in overlapping windows (Otava's first pass).
  const double first_pass = options.max_p < 0.05  ? options.max_p * 10
                            : options.max_p < 0.5 ? options.max_p * 2
                                                  : options.max_p;
  std::vector<ChangePoint> points;
  const std::size_t step = options.window / 2;
  for (std::size_t start = 0; start < n;) {
    const std::size_t end = std::min(start + options.window, n);
    const auto found = window_change_points(series, start, end, first_pass, options.test);
    start = std::max(found.empty() ? 0 : found.back().index, start + step);
    for (const ChangePoint& p : found) {
      const bool seen = std::any_of(points.begin(), points.end(),
                                    [&](const ChangePoint& q) { return q.index == p.index; });
      if (!seen) points.push_back(p);
    }
  }
  std::sort(points.begin(), points.end(),
            [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });
  for (std::size_t i = 0; i < points.size(); ++i) retest(series, points, i, options.test);
  // Merge: drop the weakest and retest its neighbours, whose segments it joined, until every
  // change point left is significant and large enough.
  while (!points.empty()) {
    const auto drop = weakest(points, options);
    if (!drop) break;
    points.erase(points.begin() + static_cast<std::ptrdiff_t>(*drop));
    if (options.retest_both_neighbours) {
      if (*drop > 0) retest(series, points, *drop - 1, options.test);
      retest(series, points, *drop, options.test);
    } else {
      retest(series, points, *drop, options.test);
      retest(series, points, *drop + 1, options.test);
    }
  }
  return points;
}

}  // namespace benchledger::stats
