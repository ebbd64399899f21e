// Verdict power on two-mode timings (docs/statistics.md, "Two-mode timings"): suites of 25
// benchmarks whose values are, a fifth of the time, `gap` slower, with gaussian noise of 5% CV
// on top, judged suite by suite through compare::assess. Shared by the corpus test, which holds
// the targets, and bench/self/verdict_power_bench.cpp, which prints the rates for the docs.
// Deterministic: a fixed seed per (samples, gap) and the corpus's own transforms.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <vector>

#include "compare/verdict.hpp"
#include "unit/compare/noise_corpus.hpp"

namespace benchledger::testing {

struct Count {
  std::size_t hits = 0, total = 0;
  void add(bool hit) {
    hits += hit ? 1 : 0;
    ++total;
  }
  double fraction() const {
    return total == 0 ? 0.0 : static_cast<double>(hits) / static_cast<double>(total);
  }
};

struct TwoModesPower {
  // +10% called regression, in mixed suites (every benchmark a shift from {-20, -10, -5, -2,
  // 0, +2, +5, +10, +20}%).
  Count detect_10;
  // Regressions among benchmarks that did not get slower (shift <= 0), every kind of suite.
  Count false_regression;
  // Unchanged suites (nothing shifted) with any regression or improvement.
  Count suites_false;
  // A +10% alone among 24 unchanged benchmarks, called regression.
  Count lone_10;
};

inline constexpr double k_two_modes_cv = 0.05;
inline constexpr double k_two_modes_slow_share = 0.2;

// `suites` suites of each kind (mixed, unchanged, lone), `n` samples a side, the slow mode `gap`
// slower (0.1 = 10%).
inline TwoModesPower measure_two_modes_power(std::size_t n, double gap, std::size_t suites) {
  namespace cmp = benchledger::compare;
  constexpr std::size_t k_suite = 25;
  static constexpr std::array<double, 9> k_shifts{-0.20, -0.10, -0.05, -0.02, 0.0,
                                                  0.02,  0.05,  0.10,  0.20};
  struct Pair {
    std::vector<double> base, current;
  };
  Rng rng(0x2d0d'e500 + n * 1000 + static_cast<std::size_t>(std::lround(gap * 1000)));
  const auto draw = [&](double center) {
    std::vector<double> out(n);
    for (double& v : out) v = center * two_modes(rng, k_two_modes_cv, k_two_modes_slow_share, gap);
    return out;
  };
  const auto pair = [&](double shift) {
    const double center = 1e3 * std::exp(6.0 * rng.uniform());  // 1 us .. 400 us, in ns
    std::vector<double> base = draw(center);
    return Pair{std::move(base), draw(center * (1.0 + shift))};
  };
  const auto judge = [](const std::vector<Pair>& suite) {
    std::vector<cmp::MetricInput> inputs;
    inputs.reserve(suite.size());
    for (const Pair& p : suite) inputs.push_back({p.base, p.current, Better::lower, 0.05});
    return cmp::assess(inputs, cmp::VerdictOptions{});
  };
  TwoModesPower out;
  for (std::size_t s = 0; s < suites; ++s) {
    std::vector<double> shifts;
    std::vector<Pair> suite;
    for (std::size_t b = 0; b < k_suite; ++b) {
      shifts.push_back(k_shifts[rng.below(k_shifts.size())]);
      suite.push_back(pair(shifts.back()));
    }
    const auto verdicts = judge(suite);
    for (std::size_t b = 0; b < k_suite; ++b) {
      const bool regression = verdicts[b].verdict == cmp::Verdict::regression;
      if (shifts[b] == 0.10) out.detect_10.add(regression);
      if (shifts[b] <= 0.0) out.false_regression.add(regression);
    }
  }
  for (std::size_t s = 0; s < suites; ++s) {
    std::vector<Pair> suite;
    for (std::size_t b = 0; b < k_suite; ++b) suite.push_back(pair(0.0));
    bool any = false;
    for (const auto& v : judge(suite)) {
      out.false_regression.add(v.verdict == cmp::Verdict::regression);
      any |= v.verdict == cmp::Verdict::regression || v.verdict == cmp::Verdict::improvement;
    }
    out.suites_false.add(any);
  }
  for (std::size_t s = 0; s < suites; ++s) {
    std::vector<Pair> suite;
    for (std::size_t b = 0; b + 1 < k_suite; ++b) suite.push_back(pair(0.0));
    suite.push_back(pair(0.10));
    const auto verdicts = judge(suite);
    out.lone_10.add(verdicts.back().verdict == cmp::Verdict::regression);
    for (std::size_t b = 0; b + 1 < k_suite; ++b) {
      out.false_regression.add(verdicts[b].verdict == cmp::Verdict::regression);
    }
  }
  return out;
}

}  // namespace benchledger::testing
