// Benjamini & Hochberg (1995), step-up, as adjusted p-values.
#include "stats/multiple_testing.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>
#include <benchledger/error.hpp>

namespace benchledger::stats {

namespace {

// The indices of p in ascending order of p, after checking that each is a probability. Stable,
// so equal p-values keep input order and the output is the same on every platform.
std::vector<std::size_t> ascending_order(std::span<const double> p) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (!(p[i] >= 0.0 && p[i] <= 1.0)) {
      throw Error(fmt::format("p-value {} is {}, not a probability", i, p[i]));
    }
  }
  std::vector<std::size_t> order(p.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  return order;
}

}  // namespace

std::vector<double> benjamini_hochberg(std::span<const double> p) {
  const std::size_t m = p.size();
  const std::vector<std::size_t> order = ascending_order(p);
  std::vector<double> adjusted(m);
  double running_min = 1.0;
  for (std::size_t r = m; r-- > 0;) {
    const std::size_t i = order[r];
    running_min = std::min(running_min, static_cast<double>(m) * p[i] / static_cast<double>(r + 1));
    adjusted[i] = running_min;
  }
  return adjusted;
}

std::vector<double> benjamini_hochberg_levels(std::span<const double> p, double q) {
  if (!(q > 0.0 && q <= 1.0)) throw Error(fmt::format("level {} is outside (0, 1]", q));
  const std::size_t m = p.size();
  const std::vector<std::size_t> order = ascending_order(p);
  const auto sorted = [&](std::size_t k) { return p[order[k - 1]]; };  // k-th smallest, 1-based
  const auto level = [&](std::size_t k) {
    return static_cast<double>(k) * q / static_cast<double>(m);
  };
  // For the hypothesis of rank r, the (k-1)-th smallest of the others is the (k-1)-th smallest
  // of all when k <= r, and the k-th smallest of all when k > r. So rank k works for it when
  // k <= r and sorted(k-1) <= level(k) (always for k = 1), or when k > r and sorted(k) <=
  // level(k): the largest k of the first kind up to r (a prefix maximum), or the largest k of
  // the second kind overall if it exceeds r.
  std::vector<std::size_t> below(m + 1, 0);  // below[r]: largest k <= r of the first kind
  for (std::size_t k = 1; k <= m; ++k) {
    below[k] = k == 1 || sorted(k - 1) <= level(k) ? k : below[k - 1];
  }
  std::size_t above = 0;  // the largest k with sorted(k) <= level(k): the step-up's own cut
  for (std::size_t k = m; k >= 1 && above == 0; --k) {
    if (sorted(k) <= level(k)) above = k;
  }
  std::vector<double> out(m);
  for (std::size_t r = 1; r <= m; ++r) {
    out[order[r - 1]] = level(above > r ? above : below[r]);
  }
  return out;
}

}  // namespace benchledger::stats
