// Quantiles, the median and midranks.
#include "stats/summary.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>
#include <benchledger/error.hpp>

namespace benchledger::stats {

double quantile_sorted(std::span<const double> sorted, double q) {
  if (sorted.empty()) throw Error("cannot take a quantile of no values");
  if (!(q >= 0.0 && q <= 1.0)) throw Error(fmt::format("quantile {} is outside [0, 1]", q));
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

double median(std::span<const double> values) {
  if (values.empty()) throw Error("cannot take the median of no values");
  std::vector<double> copy(values.begin(), values.end());
  const std::size_t mid = copy.size() / 2;
  std::nth_element(copy.begin(), copy.begin() + static_cast<std::ptrdiff_t>(mid), copy.end());
  const double upper = copy[mid];
  if (copy.size() % 2 == 1) return upper;
  const double lower =
      *std::max_element(copy.begin(), copy.begin() + static_cast<std::ptrdiff_t>(mid));
  return lower + (upper - lower) / 2.0;
}

Ranks midranks(std::span<const double> values) {
  const std::size_t n = values.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  Ranks ranks;
  ranks.rank.resize(n);
  std::size_t i = 0;
  while (i < n) {
    std::size_t j = i + 1;
    while (j < n && values[order[j]] == values[order[i]]) ++j;
    // Positions i..j-1 (0-based) hold equal values: each gets the mean rank (i+1 + j) / 2.
    const double rank = static_cast<double>(i + 1 + j) / 2.0;
    for (std::size_t k = i; k < j; ++k) ranks.rank[order[k]] = rank;
    const double t = static_cast<double>(j - i);
    ranks.tie_term += t * t * t - t;
    i = j;
  }
  return ranks;
}

}  // namespace benchledger::stats
