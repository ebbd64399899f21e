// Descriptive statistics of one sample: the `summary` of a metric (docs/design.md, "Records").
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace benchledger::stats {

struct Summary {
  std::size_t n = 0;
  double mean = 0, median = 0;
  double stddev = 0;  // sample standard deviation (n - 1 in the denominator); 0 when n == 1
  double min = 0, max = 0;
  double p50 = 0, p90 = 0, p95 = 0, p99 = 0, p999 = 0;
};

// The q-quantile (0 <= q <= 1) of values already sorted ascending, interpolated linearly
// between order statistics (Hyndman & Fan type 7, numpy's default). Throws benchledger::Error
// when sorted is empty or q is outside [0, 1].
double quantile_sorted(std::span<const double> sorted, double q);

// The median of values (any order). Throws benchledger::Error when values is empty.
double median(std::span<const double> values);

// n, mean, median, sample standard deviation, min, max and percentiles p50 ... p99.9.
// Throws benchledger::Error when values is empty or holds a NaN or an infinity.
Summary summarize(std::span<const double> values);

// Midranks (1-based; tied values share the mean of their ranks) of values, in input order,
// and the tie term sum(t^3 - t) over groups of t equal values.
struct Ranks {
  std::vector<double> rank;
  double tie_term = 0;
};
Ranks midranks(std::span<const double> values);

}  // namespace benchledger::stats
