// Exact two-sample KS by lattice paths (Hodges 1957): every ordering of the m + n values is
// equally likely under the null hypothesis, i.e. every monotone path from (0, 0) to (m, n);
// D >= d exactly when the path touches a point with |i n - j m| >= d m n. The walk carries
// probabilities, not counts, so it stays in range for any size.
#include "stats/kolmogorov_smirnov.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include <fmt/format.h>
#include <benchledger/error.hpp>

namespace benchledger::stats {

KolmogorovSmirnovResult kolmogorov_smirnov(std::span<const double> x, std::span<const double> y) {
  const std::size_t m = x.size(), n = y.size();
  if (m == 0 || n == 0) throw Error("the kolmogorov-smirnov test needs values on both sides");
  if (m * n > 1000000) {
    throw Error(fmt::format("samples of {} and {} values are too large for the exact test", m, n));
  }
  std::vector<double> xs(x.begin(), x.end()), ys(y.begin(), y.end());
  for (const double v : xs) {
    if (!std::isfinite(v)) throw Error(fmt::format("value {} is not a finite number", v));
  }
  for (const double v : ys) {
    if (!std::isfinite(v)) throw Error(fmt::format("value {} is not a finite number", v));
  }
  std::sort(xs.begin(), xs.end());
  std::sort(ys.begin(), ys.end());
  // D in units of 1/(m n): max over distinct values v of |#(x <= v) n - #(y <= v) m|.
  const auto mi = static_cast<std::int64_t>(m), ni = static_cast<std::int64_t>(n);
  std::int64_t d_units = 0;
  std::size_t i = 0, j = 0;
  while (i < m || j < n) {
    const double v = j == n || (i < m && xs[i] <= ys[j]) ? xs[i] : ys[j];
    while (i < m && xs[i] == v) ++i;
    while (j < n && ys[j] == v) ++j;
    d_units = std::max(
        d_units, std::abs(static_cast<std::int64_t>(i) * ni - static_cast<std::int64_t>(j) * mi));
  }
  KolmogorovSmirnovResult result;
  result.d = static_cast<double>(d_units) / static_cast<double>(mi * ni);
  if (d_units == 0) return result;  // p = 1

  // inside[j] = P(path reaches (a, j) without touching |a n - j m| >= d_units).
  std::vector<double> inside(n + 1, 0.0);
  const auto allowed = [&](std::size_t a, std::size_t b) {
    return std::abs(static_cast<std::int64_t>(a) * ni - static_cast<std::int64_t>(b) * mi) <
           d_units;
  };
  inside[0] = 1.0;
  for (std::size_t b = 1; b <= n; ++b) {
    // Only y steps so far: the next value is a y with probability (n-b+1)/(m+n-b+1).
    inside[b] = allowed(0, b) ? inside[b - 1] * static_cast<double>(n - b + 1) /
                                    static_cast<double>(m + n - b + 1)
                              : 0.0;
  }
  for (std::size_t a = 1; a <= m; ++a) {
    // Step probabilities: from (a-1, b) an x comes next with (m-a+1)/(m+n-a+1-b), from (a, b-1)
    // a y comes next with (n-b+1)/(m+n-a-b+1).
    inside[0] = allowed(a, 0) ? inside[0] * static_cast<double>(m - a + 1) /
                                    static_cast<double>(m + n - a + 1)
                              : 0.0;
    for (std::size_t b = 1; b <= n; ++b) {
      if (!allowed(a, b)) {
        inside[b] = 0.0;
        continue;
      }
      const double remaining = static_cast<double>(m + n - a - b + 1);
      inside[b] = inside[b] * static_cast<double>(m - a + 1) / remaining +
                  inside[b - 1] * static_cast<double>(n - b + 1) / remaining;
    }
  }
  result.p = std::clamp(1.0 - inside[n], 0.0, 1.0);
  return result;
}

}  // namespace benchledger::stats
