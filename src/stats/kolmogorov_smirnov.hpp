// The two-sample Kolmogorov–Smirnov test, two-sided, with the exact null distribution of D:
// a test of the whole distribution rather than of location.
#pragma once

#include <span>

namespace benchledger::stats {

struct KolmogorovSmirnovResult {
  double d = 0;  // max |F_x - F_y| over the pooled values
  double p = 1;  // P(D >= d) under the null hypothesis of continuous, identical distributions
};

// As scipy.stats.ks_2samp(x, y, method="exact"). Throws benchledger::Error on an empty sample,
// a non-finite value, or more than 1,000,000 pairs (m * n).
KolmogorovSmirnovResult kolmogorov_smirnov(std::span<const double> x, std::span<const double> y);

}  // namespace benchledger::stats
