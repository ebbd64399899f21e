// Mann–Whitney U. The exact distribution follows the recurrence of Mann & Whitney (1947),
// f(m, n, u) = m/(m+n) f(m-1, n, u-n) + n/(m+n) f(m, n-1, u), in probabilities so that only
// positive terms are added (no cancellation in the tails). The normal approximation and its
// tie correction are those of scipy.stats.mannwhitneyu (Hollander & Wolfe).
#include "stats/mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <utility>

#include <fmt/format.h>
#include <benchledger/error.hpp>

#include "stats/order_statistics.hpp"

namespace benchledger::stats {
namespace {

constexpr std::size_t k_max_exact_pairs = 10000;

void check_sample(std::span<const double> sample, const char* name) {
  if (sample.empty()) throw Error(fmt::format("sample {} is empty", name));
  for (std::size_t i = 0; i < sample.size(); ++i) {
    if (!std::isfinite(sample[i])) {
      throw Error(fmt::format("sample {} value {} is {}, not a finite number", name, i, sample[i]));
    }
  }
}

std::vector<double> build_null_cdf(std::size_t m, std::size_t n) {
  // row[j] holds the distribution of U for sizes (i, j) while i runs from 0 to m.
  std::vector<std::vector<double>> row(n + 1, std::vector<double>{1.0});
  for (std::size_t i = 1; i <= m; ++i) {
    std::vector<std::vector<double>> next(n + 1);
    next[0] = {1.0};
    for (std::size_t j = 1; j <= n; ++j) {
      std::vector<double>& f = next[j];
      f.assign(i * j + 1, 0.0);
      const double take_x = static_cast<double>(i) / static_cast<double>(i + j);
      const double take_y = static_cast<double>(j) / static_cast<double>(i + j);
      // The largest value is an x (all j values of y below it add j to U) or a y.
      const std::vector<double>& without_x = row[j];  // sizes (i-1, j)
      for (std::size_t u = 0; u < without_x.size(); ++u) f[u + j] += take_x * without_x[u];
      const std::vector<double>& without_y = next[j - 1];  // sizes (i, j-1)
      for (std::size_t u = 0; u < without_y.size(); ++u) f[u] += take_y * without_y[u];
    }
    row = std::move(next);
  }
  std::vector<double> cdf = std::move(row[n]);
  double sum = 0;
  for (double& value : cdf) {
    sum += value;
    value = std::min(sum, 1.0);
  }
  return cdf;
}

}  // namespace

std::shared_ptr<const std::vector<double>> mann_whitney_null_cdf(std::size_t m, std::size_t n) {
  if (m * n > k_max_exact_pairs) {
    throw Error(fmt::format(
        "the exact Mann-Whitney distribution for sizes {} and {} is too large (more than {} "
        "pairs); use the normal approximation",
        m, n, k_max_exact_pairs));
  }
  static std::mutex mutex;
  static std::map<std::pair<std::size_t, std::size_t>, std::shared_ptr<const std::vector<double>>>
      cache;
  const std::lock_guard lock(mutex);
  auto& entry = cache[{m, n}];
  if (!entry) {
    // The distribution is symmetric in the sizes; build along the shorter side.
    entry = std::make_shared<const std::vector<double>>(m <= n ? build_null_cdf(m, n)
                                                               : build_null_cdf(n, m));
  }
  return entry;
}

double mann_whitney_min_p(std::size_t m, std::size_t n) {
  // 2 / C(m+n, m) computed as a product of ratios to stay in range.
  double p = 2.0;
  const std::size_t k = std::min(m, n);
  for (std::size_t i = 1; i <= k; ++i) {
    p *= static_cast<double>(i) / static_cast<double>(m + n - k + i);
  }
  return std::min(p, 1.0);
}

MannWhitneyResult mann_whitney_u(std::span<const double> x, std::span<const double> y,
                                 MannWhitneyMethod method, bool continuity) {
  check_sample(x, "x");
  check_sample(y, "y");
  const std::size_t m = x.size(), n = y.size();
  std::vector<double> combined(x.begin(), x.end());
  combined.insert(combined.end(), y.begin(), y.end());
  const Ranks ranks = midranks(combined);
  double rank_sum_x = 0;
  for (std::size_t i = 0; i < m; ++i) rank_sum_x += ranks.rank[i];
  const double md = static_cast<double>(m), nd = static_cast<double>(n);
  MannWhitneyResult result;
  result.u = rank_sum_x - md * (md + 1.0) / 2.0;
  result.ties = ranks.tie_term > 0;
  const double u_max = std::max(result.u, md * nd - result.u);

  if (method == MannWhitneyMethod::automatic) {
    method = !result.ties && m <= k_exact_max_size && n <= k_exact_max_size
                 ? MannWhitneyMethod::exact
                 : MannWhitneyMethod::asymptotic;
  }
  if (method == MannWhitneyMethod::exact) {
    result.exact = true;
    const auto cdf = mann_whitney_null_cdf(m, n);
    // P(U >= u_max) = P(U <= mn - u_max) by symmetry; a tied U of x.5 is truncated as scipy does.
    const auto u_int = static_cast<std::size_t>(std::floor(u_max));
    result.p = std::min(1.0, 2.0 * (*cdf)[m * n - u_int]);
    return result;
  }
  const double total = md + nd;
  const double variance =
      md * nd / 12.0 * ((total + 1.0) - ranks.tie_term / (total * (total - 1.0)));
  if (!(variance > 0)) {  // every value equal: no evidence of any difference
    result.p = 1.0;
    return result;
  }
  const double z = (u_max - md * nd / 2.0 - (continuity ? 0.5 : 0.0)) / std::sqrt(variance);
  result.p = std::clamp(std::erfc(z / std::sqrt(2.0)), 0.0, 1.0);  // 2 * (1 - Phi(z))
  return result;
}

}  // namespace benchledger::stats
