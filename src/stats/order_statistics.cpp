// Quantiles, the median and midranks.
#include "stats/order_statistics.hpp"

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

CentreAndBounds median_and_bounds(std::vector<double>& values, std::size_t k) {
  const std::size_t size = values.size();
  if (size == 0) throw Error("cannot take order statistics of no values");
  if (k < 1 || k > (size + 1) / 2) {
    throw Error(fmt::format("order statistic {} is outside 1 .. {}", k, (size + 1) / 2));
  }
  const auto at = [&](std::size_t index) {
    return values.begin() + static_cast<std::ptrdiff_t>(index);
  };
  CentreAndBounds result;
  const std::size_t mid = size / 2;
  std::nth_element(values.begin(), at(mid), values.end());
  const double upper_mid = values[mid];
  if (size % 2 == 1) {
    result.median = upper_mid;
  } else {
    const double lower_mid = *std::max_element(values.begin(), at(mid));
    result.median = lower_mid + (upper_mid - lower_mid) / 2.0;
  }
  // The k-th smallest lies in [0, mid] and the k-th largest in [mid, size) after the first
  // selection: each later selection sees only its half.
  const std::size_t low_index = k - 1, high_index = size - k;
  if (low_index < mid) std::nth_element(values.begin(), at(low_index), at(mid));
  result.low = low_index <= mid ? values[low_index] : upper_mid;
  if (high_index > mid) std::nth_element(at(mid + 1), at(high_index), values.end());
  result.high = values[high_index];
  return result;
}

std::optional<double> relative_change(double base, double current) {
  if (base != 0.0) return (current - base) / std::abs(base);
  if (current == 0.0) return 0.0;
  return std::nullopt;
}

}  // namespace benchledger::stats
