// The Mann–Whitney U test (Wilcoxon rank-sum) of two independent samples, two-sided, and the
// exact null distribution of U that the Hodges–Lehmann interval also uses.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace benchledger::stats {

// Sizes up to which `automatic` uses the exact distribution (when there are no ties). The
// table for 50 x 50 has 2,501 entries and takes about a millisecond to build, once.
inline constexpr std::size_t k_exact_max_size = 50;

enum class MannWhitneyMethod {
  automatic,   // exact when there are no ties and both sizes <= k_exact_max_size
  exact,       // exact null distribution (as if there were no ties), as scipy's method="exact"
  asymptotic,  // normal approximation with tie correction, as scipy's method="asymptotic"
};

struct MannWhitneyResult {
  double u = 0;        // U of the first sample: #(x > y) + #(x == y) / 2, scipy's U1
  double p = 1;        // two-sided p-value, in [0, 1]
  bool exact = false;  // whether the exact distribution gave p
  bool ties = false;   // whether any value occurs more than once in x and y together
};

// Two-sided test of x against y. `continuity` subtracts 0.5 from |U - mn/2| in the normal
// approximation (scipy's use_continuity). Throws benchledger::Error when a sample is empty
// or holds a NaN or an infinity, or when the exact method is asked for more than 10,000
// pairs (m * n).
MannWhitneyResult mann_whitney_u(std::span<const double> x, std::span<const double> y,
                                 MannWhitneyMethod method = MannWhitneyMethod::automatic,
                                 bool continuity = true);

// P(U <= k) for k = 0 .. m*n under the null hypothesis without ties, for sizes m and n.
// Built once per (m, n) and shared; thread-safe. Throws benchledger::Error when m * n
// exceeds 10,000.
std::shared_ptr<const std::vector<double>> mann_whitney_null_cdf(std::size_t m, std::size_t n);

// The smallest two-sided p-value the exact test can give for sizes m and n:
// 2 / binomial(m + n, m), capped at 1.
double mann_whitney_min_p(std::size_t m, std::size_t n);

}  // namespace benchledger::stats
