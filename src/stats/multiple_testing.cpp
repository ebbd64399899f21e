// Benjamini & Hochberg (1995), step-up, as adjusted p-values.
#include "stats/multiple_testing.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>
#include <benchledger/error.hpp>

namespace benchledger::stats {

std::vector<double> benjamini_hochberg(std::span<const double> p) {
  const std::size_t m = p.size();
  for (std::size_t i = 0; i < m; ++i) {
    if (!(p[i] >= 0.0 && p[i] <= 1.0)) {
      throw Error(fmt::format("p-value {} is {}, not a probability", i, p[i]));
    }
  }
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), std::size_t{0});
  // Stable, so equal p-values keep input order and the output is the same on every platform.
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  std::vector<double> adjusted(m);
  double running_min = 1.0;
  for (std::size_t r = m; r-- > 0;) {
    const std::size_t i = order[r];
    running_min = std::min(running_min, static_cast<double>(m) * p[i] / static_cast<double>(r + 1));
    adjusted[i] = running_min;
  }
  return adjusted;
}

}  // namespace benchledger::stats
