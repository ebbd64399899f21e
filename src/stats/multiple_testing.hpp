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

}  // namespace benchledger::stats
