// Order statistics of one sample: quantiles, the median, midranks. A metric's `summary` is built by
// metric_from_samples() (benchledger/record.hpp).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace benchledger::stats {

// The q-quantile (0 <= q <= 1) of values already sorted ascending, interpolated linearly
// between order statistics (Hyndman & Fan type 7, numpy's default). Throws benchledger::Error
// when sorted is empty or q is outside [0, 1].
double quantile_sorted(std::span<const double> sorted, double q);

// The median of values (any order). Throws benchledger::Error when values is empty.
double median(std::span<const double> values);

// Midranks (1-based; tied values share the mean of their ranks) of values, in input order,
// and the tie term sum(t^3 - t) over groups of t equal values.
struct Ranks {
  std::vector<double> rank;
  double tie_term = 0;
};
Ranks midranks(std::span<const double> values);

// The median of values and its k-th smallest and k-th largest (1 <= k <= (size + 1) / 2), by
// three selections instead of a sort; reorders values. What a Hodges–Lehmann estimate and its
// interval take from the pairwise differences or Walsh averages. Throws benchledger::Error when
// values is empty or k is out of range.
struct CentreAndBounds {
  double median = 0;
  double low = 0;   // the k-th smallest
  double high = 0;  // the k-th largest
};
CentreAndBounds median_and_bounds(std::vector<double>& values, std::size_t k);

// The change from `base` to `current` relative to |base|, the one definition of compare's and
// detect's "change": -10 -> -11 is -10% (lower), where current / base - 1 would say +10%. 0 when
// both are 0; nullopt when only base is (no relative change from nothing).
std::optional<double> relative_change(double base, double current);

}  // namespace benchledger::stats
