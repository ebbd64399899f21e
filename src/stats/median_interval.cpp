#include "stats/median_interval.hpp"

#include <cmath>

#include <benchledger/error.hpp>

namespace benchledger::stats {

MedianInterval median_interval(std::span<const double> sorted, double confidence) {
  if (sorted.empty()) throw Error("median_interval: no values");
  if (!(confidence > 0 && confidence < 1)) {
    throw Error("median_interval: confidence must lie in (0, 1)");
  }
  const std::size_t n = sorted.size();
  // P(B <= j) for B ~ Binomial(n, 1/2), summed in log space so that large n does not underflow.
  const double log_half_n = static_cast<double>(n) * std::log(0.5);
  const auto pmf = [&](std::size_t j) {
    return std::exp(std::lgamma(static_cast<double>(n) + 1) -
                    std::lgamma(static_cast<double>(j) + 1) -
                    std::lgamma(static_cast<double>(n - j) + 1) + log_half_n);
  };
  // k = 1 is [min, max]; each step inward loses 2 P(B = k) of coverage.
  std::size_t k = 1;
  double below = pmf(0);  // P(B <= k - 1)
  double coverage = 1 - 2 * below;
  while (2 * (k + 1) <= n + 1) {
    const double wider = below + pmf(k);  // P(B <= k): what coverage k + 1 leaves out, halved
    if (1 - 2 * wider < confidence) break;
    below = wider;
    coverage = 1 - 2 * below;
    ++k;
  }
  return MedianInterval{sorted[k - 1], sorted[n - k], coverage};
}

}  // namespace benchledger::stats
