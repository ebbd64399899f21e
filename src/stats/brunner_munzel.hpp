// The Brunner–Munzel test of two independent samples (Brunner & Munzel 2000): a rank test of
// P(X < Y) + P(X = Y)/2 = 1/2 that, unlike Mann–Whitney U, does not assume equal spreads.
#pragma once

#include <span>

namespace benchledger::stats {

struct BrunnerMunzelResult {
  double statistic = 0;  // scipy's W: positive when y tends to be larger than x
  double df = 0;         // Welch–Satterthwaite degrees of freedom of the t approximation
  double p = 1;          // two-sided; NaN when both samples' placement variances are 0
};

// As scipy.stats.brunnermunzel(x, y, distribution="t"). Needs at least 2 values a side; throws
// benchledger::Error otherwise or on a non-finite value. When the samples are completely
// separated without spread in their placements the statistic is infinite and p is NaN, as in
// scipy: the caller decides what that means.
BrunnerMunzelResult brunner_munzel(std::span<const double> x, std::span<const double> y);

}  // namespace benchledger::stats
