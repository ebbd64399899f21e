// How large a change the samples at hand could detect: printed beside an inconclusive verdict.
#pragma once

#include <cstddef>
#include <span>

namespace benchledger::stats {

// The spread of log values with each sample centred on its own mean: sqrt of the pooled
// variance, (sum of squared deviations of both) / (m + n - 2). Throws benchledger::Error when
// a value is not positive or there are fewer than 3 values in all.
double pooled_log_stddev(std::span<const double> x, std::span<const double> y);

// The smallest change, as a fraction (0.07 = 7%), that a two-sided Mann–Whitney test at level
// alpha detects with probability `power` for samples of m and n values whose log spread is
// sigma_log: the shift delta = (t_{1-alpha/2} + t_power) sigma_log sqrt(1/m + 1/n) /
// sqrt(3/pi) (t quantiles with m + n - 2 degrees of freedom; 3/pi is the test's
// asymptotic efficiency against normal noise), returned as
// exp(delta) - 1. Infinity when the exact test cannot reach alpha at these sizes at all
// (2 / binomial(m + n, m) > alpha, e.g. 3 against 3 at 0.05). Throws benchledger::Error when
// a size is 0, alpha or power is outside (0, 1), or sigma_log is negative or not finite.
double minimal_detectable_change(std::size_t m, std::size_t n, double sigma_log, double alpha,
                                 double power = 0.8);

// The smallest change (fraction, ratio - 1) that n pairs with this standard deviation of the
// log-ratios could detect with about 80% power at two-sided `level`, by the signed-rank test
// (Noether: the t formula for one sample divided by sqrt(3/pi)): exp(delta) - 1 with
// delta = (t_{1-level/2} + t_{0.8}) log_ratio_stddev / sqrt(n) / sqrt(3/pi), t quantiles with
// n - 1 degrees of freedom. Infinite when smallest_signed_rank_p(n) > level (five pairs at
// 0.05). Throws benchledger::Error when level is outside (0, 1) or log_ratio_stddev is
// negative or not finite.
double paired_detectable_change(std::size_t n, double log_ratio_stddev, double level);

}  // namespace benchledger::stats
