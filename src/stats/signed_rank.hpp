// The statistics of a paired comparison: the Wilcoxon signed-rank test of within-pair
// differences (for timings, d_i = log(head_i / base_i) of back-to-back rounds), the
// Hodges–Lehmann estimate of their centre with its distribution-free interval (Hollander &
// Wolfe, "Nonparametric Statistical Methods", 3.1 and 3.3), and how many pairs a level needs.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

namespace benchledger::stats {

// Sizes up to which the exact null distribution of T+ is used: 2^50 subsets of ranks, a table
// of 1,276 entries, all of them built once in well under a millisecond.
inline constexpr std::size_t k_signed_rank_exact_max = 50;

struct SignedRank {
  double statistic = 0;  // T+ : the sum of the ranks of the positive differences (zeros dropped)
  double p = 1;          // two-sided
  std::size_t used = 0;  // differences left after dropping zeros
  bool exact = false;    // exact null distribution (no ties among |d|, used <= 50), else normal
                         // approximation
};

// Wilcoxon signed-rank test of "the differences are symmetric about 0". Zeros dropped as
// scipy.stats.wilcoxon(zero_method="wilcox"); the exact distribution when there are no ties and
// used <= 50, else the normal approximation with tie correction and continuity correction
// (scipy's correction=True, method="approx"). p = 1 when nothing is left. Throws Error on a
// non-finite value.
SignedRank wilcoxon_signed_rank(std::span<const double> differences);

// P(T+ <= t) for t = 0 .. n(n+1)/2 under the null hypothesis without ties (each of the n ranks
// positive with probability 1/2), for n <= k_signed_rank_exact_max. The table is built once
// and lives as long as the program; thread-safe. Throws Error when n is larger.
std::span<const double> signed_rank_null_cdf(std::size_t n);

struct PairedShift {
  double estimate = 0;  // Hodges–Lehmann: the median of the Walsh averages (d_i + d_j)/2, i <= j
  double low = 0, high = 0;  // distribution-free interval (Hollander & Wolfe 3.3)
  double coverage = 0;       // what the interval actually covers (small n cannot reach every
                             // confidence: the widest interval is used and its coverage reported)
};

// From all the differences (zeros kept). The interval is [W(k), W(M+1-k)] of the M = n(n+1)/2
// sorted Walsh averages W, k the largest with P(T+ <= k-1) <= (1 - confidence)/2 under the
// exact signed-rank distribution (n <= k_signed_rank_exact_max), else from its normal
// approximation k = floor(M/2 - 1/2 + z_{(1-confidence)/2} sqrt(n(n+1)(2n+1)/24)) + 1; k is
// at least 1. Throws Error when empty or non-finite, or confidence not in (0,1).
PairedShift hodges_lehmann_paired(std::span<const double> differences, double confidence);

// The smallest two-sided p the exact signed-rank test can give for n non-zero differences
// without ties: 2 / 2^n, capped at 1 (n=5: 0.0625, so five pairs can never reach 0.05). Above
// k_signed_rank_exact_max wilcoxon_signed_rank uses the normal approximation, whose smallest p
// is larger (5e-10 at 51 pairs): this bound is for levels above that.
double smallest_signed_rank_p(std::size_t n);

// The smallest n whose smallest_signed_rank_p(n) <= level (nothing above 1000). Throws Error
// when level not in (0,1].
std::optional<std::size_t> pairs_to_reach(double level);

}  // namespace benchledger::stats
