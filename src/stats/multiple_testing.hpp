// Control of the false discovery rate over many tests made at once.
#pragma once

#include <span>
#include <vector>

namespace benchledger::stats {

// Benjamini–Hochberg adjusted p-values, in input order: p_adj(i) = min over the ranks
// r >= rank(i) of min(1, m p_(r) / r). Rejecting every hypothesis with p_adj <= q controls the
// false discovery rate at q for independent (or positively dependent) tests. Throws
// benchledger::Error when a p-value is NaN or outside [0, 1].
std::vector<double> benjamini_hochberg(std::span<const double> p);

// For each hypothesis, in input order: the largest p-value it could have had and still be
// rejected by the Benjamini–Hochberg step-up procedure at level q, the other p-values
// unchanged. That is the largest k q / m such that at least k - 1 of the others are <= k q / m:
// q / m for a lone discovery (nothing else small), up to q when every other one is rejected.
// What an inconclusive comparison would have needed. O(m log m). Throws benchledger::Error
// when q is outside (0, 1] or a p-value is not a probability.
std::vector<double> benjamini_hochberg_levels(std::span<const double> p, double q);

}  // namespace benchledger::stats
