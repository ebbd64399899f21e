// The Hodges–Lehmann estimate of the shift between two samples and its distribution-free
// confidence interval (Hollander & Wolfe, "Nonparametric Statistical Methods", 4.3), and the
// same on log(values) so that the change between two timings is a ratio.
#pragma once

#include <cstddef>
#include <span>

namespace benchledger::stats {

struct ShiftInterval {
  double estimate = 0;  // median of all m*n differences y_j - x_i
  double low = 0;       // the k-th smallest difference
  double high = 0;      // the k-th largest difference
  double coverage = 0;  // the confidence the interval actually has (>= the one asked for
                        // unless the samples are too small to reach it)
  std::size_t k = 0;    // the order statistic used (1-based)
};

// Shift of y relative to x. The interval is [D(k), D(mn+1-k)] of the sorted differences D,
// k the largest with P(U <= k-1) <= (1 - confidence)/2 under the exact null distribution of
// Mann–Whitney U (both sizes <= k_exact_max_size), else from its normal approximation
// k = floor(mn/2 - 1/2 + z_{(1-confidence)/2} sqrt(mn(m+n+1)/12)) + 1; k is at least 1.
// Throws benchledger::Error on an empty sample, a non-finite value, or confidence outside (0, 1).
ShiftInterval hodges_lehmann_shift(std::span<const double> x, std::span<const double> y,
                                   double confidence);

struct RatioInterval {
  double ratio = 1;  // exp(shift of log y against log x): current / base as a factor
  double low = 1, high = 1;
  double coverage = 0;
};

// hodges_lehmann_shift on log(x), log(y), returned as factors. Throws benchledger::Error when
// a value is not positive.
RatioInterval hodges_lehmann_ratio(std::span<const double> x, std::span<const double> y,
                                   double confidence);

}  // namespace benchledger::stats
