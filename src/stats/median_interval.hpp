// The distribution-free confidence interval of a median from order statistics (Conover,
// "Practical Nonparametric Statistics", 3rd ed., section 3.2): the bound `history` prints beside
// each run's centre.
#pragma once

#include <span>

namespace benchledger::stats {

struct MedianInterval {
  double low = 0, high = 0;
  double coverage = 0;  // the interval's exact coverage under any continuous distribution
};

// For values sorted ascending: [x(k), x(n+1-k)] (1-based) with the largest k whose coverage
// 1 - 2 P(Binomial(n, 1/2) < k) is at least `confidence`. When even [min, max] covers less
// (n < 6 at 0.95), [min, max] with its coverage 1 - 2^(1-n). Throws benchledger::Error when
// sorted is empty or confidence is not in (0, 1).
MedianInterval median_interval(std::span<const double> sorted, double confidence);

}  // namespace benchledger::stats
