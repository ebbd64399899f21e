// Wilcoxon signed-rank test and the paired Hodges–Lehmann interval. The exact distribution is
// the recurrence over ranks f_k(t) = (f_{k-1}(t) + f_{k-1}(t - k)) / 2 (rank k positive or
// not), in probabilities: halving is exact in binary, and every count up to 2^50 fits a
// double's mantissa, so the table is exact. The normal approximation, its tie correction and
// its continuity correction are those of scipy.stats.wilcoxon (method="approx").
#include "stats/signed_rank.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>
#include <benchledger/error.hpp>
#include <boost/math/distributions/normal.hpp>

#include "stats/order_statistics.hpp"

namespace benchledger::stats {
namespace {

void check_differences(std::span<const double> differences) {
  for (std::size_t i = 0; i < differences.size(); ++i) {
    if (!std::isfinite(differences[i])) {
      throw Error(fmt::format("difference {} is {}, not a finite number", i, differences[i]));
    }
  }
}

// cdf[n] = P(T+ <= t), t = 0 .. n(n+1)/2, for every n up to the exact limit: building the one
// for 50 passes through all the smaller ones.
std::vector<std::vector<double>> build_null_cdfs() {
  std::vector<std::vector<double>> cdfs;
  std::vector<double> pmf{1.0};  // n = 0: T+ = 0
  for (std::size_t n = 0;; ++n) {
    std::vector<double> cdf(pmf.size());
    double sum = 0;
    for (std::size_t t = 0; t < pmf.size(); ++t) {
      sum += pmf[t];
      cdf[t] = std::min(sum, 1.0);
    }
    cdfs.push_back(std::move(cdf));
    if (n == k_signed_rank_exact_max) break;
    const std::size_t rank = n + 1;
    std::vector<double> next(pmf.size() + rank, 0.0);
    for (std::size_t t = 0; t < pmf.size(); ++t) {
      next[t] += pmf[t] / 2.0;
      next[t + rank] += pmf[t] / 2.0;
    }
    pmf = std::move(next);
  }
  return cdfs;
}

// The variance of T+ under the null hypothesis for n untied differences.
double null_variance(double n) {
  return n * (n + 1.0) * (2.0 * n + 1.0) / 24.0;
}

}  // namespace

std::span<const double> signed_rank_null_cdf(std::size_t n) {
  if (n > k_signed_rank_exact_max) {
    throw Error(fmt::format(
        "the exact signed-rank distribution for {} differences is not kept (at most {}); use "
        "the normal approximation",
        n, k_signed_rank_exact_max));
  }
  static const std::vector<std::vector<double>> cdfs = build_null_cdfs();
  return cdfs[n];
}

SignedRank wilcoxon_signed_rank(std::span<const double> differences) {
  check_differences(differences);
  std::vector<double> magnitudes;
  std::vector<bool> positive;
  magnitudes.reserve(differences.size());
  positive.reserve(differences.size());
  for (const double d : differences) {
    if (d == 0.0) continue;  // zero_method="wilcox": a tie within a pair says nothing
    magnitudes.push_back(std::abs(d));
    positive.push_back(d > 0.0);
  }
  SignedRank result;
  result.used = magnitudes.size();
  if (result.used == 0) return result;

  const Ranks ranks = midranks(magnitudes);
  for (std::size_t i = 0; i < result.used; ++i) {
    if (positive[i]) result.statistic += ranks.rank[i];
  }
  const auto n = static_cast<double>(result.used);
  const double total = n * (n + 1.0) / 2.0;  // T+ + T-

  if (ranks.tie_term == 0.0 && result.used <= k_signed_rank_exact_max) {
    result.exact = true;
    const std::span<const double> cdf = signed_rank_null_cdf(result.used);
    // Without ties T+ is an integer. P(T+ >= t) = P(T+ <= total - t) by symmetry, so the
    // smaller tail is a sum of small terms: no 1 - x cancellation.
    const auto t = static_cast<std::size_t>(result.statistic);
    const std::size_t lower_tail = std::min(t, static_cast<std::size_t>(total) - t);
    result.p = std::min(1.0, 2.0 * cdf[lower_tail]);
    return result;
  }
  // Ties among |d| share midranks, which lowers the variance by sum(t^3 - t) / 48. The
  // continuity correction moves |T+ - total/2| half a step towards the centre, and not past
  // it (scipy: 0.5 * sign(T - mean), with T the smaller rank sum).
  const double sd = std::sqrt(null_variance(n) - ranks.tie_term / 48.0);
  const double distance = std::abs(result.statistic - total / 2.0);
  const double z = distance > 0.5 ? (distance - 0.5) / sd : 0.0;
  result.p = std::clamp(std::erfc(z / std::sqrt(2.0)), 0.0, 1.0);  // 2 * (1 - Phi(z))
  return result;
}

PairedShift hodges_lehmann_paired(std::span<const double> differences, double confidence) {
  if (differences.empty()) throw Error("there are no differences to estimate a shift from");
  check_differences(differences);
  if (!(confidence > 0.0 && confidence < 1.0)) {
    throw Error(fmt::format("confidence {} is outside (0, 1)", confidence));
  }
  const std::size_t n = differences.size(), walsh_count = n * (n + 1) / 2;
  std::vector<double> walsh;
  walsh.reserve(walsh_count);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i; j < n; ++j) walsh.push_back((differences[i] + differences[j]) / 2.0);
  }

  // The interval holds delta unless the signed-rank test of d - delta rejects it: delta below
  // W(k) leaves at most k-1 Walsh averages at or below it, so T+ of d - delta (the number of
  // positive Walsh averages) is at least M-k+1, whose probability is P(T+ <= k-1).
  const double tail = (1.0 - confidence) / 2.0;
  const std::size_t k_max = (walsh_count + 1) / 2;
  std::size_t k = 1;
  PairedShift result;
  if (n <= k_signed_rank_exact_max) {
    const std::span<const double> cdf = signed_rank_null_cdf(n);
    // Largest k >= 1 with P(T+ <= k-1) <= tail; the cdf is increasing, so walk up from k = 1.
    while (k < k_max && cdf[k] <= tail) ++k;
    result.coverage = 1.0 - 2.0 * cdf[k - 1];
  } else {
    const auto nd = static_cast<double>(n), md = static_cast<double>(walsh_count);
    const double sd = std::sqrt(null_variance(nd));
    const boost::math::normal normal;
    const double z = boost::math::quantile(normal, tail);  // negative
    const double k_real = std::floor(md / 2.0 - 0.5 + z * sd) + 1.0;
    k = static_cast<std::size_t>(std::clamp(k_real, 1.0, static_cast<double>(k_max)));
    result.coverage =
        1.0 - 2.0 * boost::math::cdf(normal, (static_cast<double>(k) - 0.5 - md / 2.0) / sd);
  }
  const CentreAndBounds bounds = median_and_bounds(walsh, k);
  result.estimate = bounds.median;
  result.low = bounds.low;
  result.high = bounds.high;
  return result;
}

double smallest_signed_rank_p(std::size_t n) {
  // Every difference positive: T+ = n(n+1)/2, reached by one of the 2^n sign patterns, and the
  // two-sided p doubles it. ldexp is exact; 2^-1000 is still a normal double, and past 1,075
  // pairs it underflows to 0.
  if (n <= 1) return 1.0;
  if (n > 1100) return 0.0;
  return std::ldexp(1.0, 1 - static_cast<int>(n));
}

std::optional<std::size_t> pairs_to_reach(double level) {
  if (!(level > 0.0 && level <= 1.0)) throw Error(fmt::format("level {} is outside (0, 1]", level));
  constexpr std::size_t k_max = 1000;
  for (std::size_t n = 1; n <= k_max; ++n) {
    if (smallest_signed_rank_p(n) <= level) return n;
  }
  return std::nullopt;
}

}  // namespace benchledger::stats
