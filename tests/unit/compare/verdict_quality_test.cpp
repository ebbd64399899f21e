// Verdicts neither cry wolf nor miss (the targets in docs/statistics.md), measured on a generated
// corpus with known truth: suites of 25 unchanged benchmarks, suites of mixed changes, and one
// regression hidden among 24 unchanged benchmarks; every noise shape, 5-30 samples a side, CV 1-5%.
//
// Run `compare_quality_tests -s "[choice]"` to print the same rates for every candidate
// deciding test (the measurement docs/statistics.md reports).
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "compare/verdict.hpp"
#include "unit/compare/noise_corpus.hpp"
#include "unit/compare/two_modes_power.hpp"

namespace cmp = benchledger::compare;
namespace bt = benchledger::testing;

namespace {

struct Truth {
  bt::Shape shape;
  std::size_t n;
  double cv;
  double shift;  // true change of the centre, as a fraction
};

struct Sample {
  std::vector<double> base, current;
};

struct Rate {
  std::size_t hits = 0, total = 0;
  void add(bool hit) {
    hits += hit ? 1 : 0;
    ++total;
  }
  double value() const {
    return total == 0 ? 0.0 : static_cast<double>(hits) / static_cast<double>(total);
  }
  std::string text() const { return fmt::format("{:6.2f}% ({}/{})", 100.0 * value(), hits, total); }
};

struct Rates {
  Rate null_suites_with_false_regression;    // suites of 25 unchanged with >= 1 regression
  Rate null_suites_with_any_false_verdict;   // ... with >= 1 regression or improvement
  Rate null_unchanged;                       // unchanged benchmarks called unchanged
  Rate detect_10;                            // +10% flagged (n >= 10 a side, CV <= 5%)
  Rate detect_minus_10;                      // -10% flagged as improvement (n >= 10)
  Rate detect_20;                            // +20% flagged, any n
  Rate detect_5;                             // +5% flagged (at the threshold: about half)
  Rate false_regression;                     // regression among true shifts <= 0
  Rate sparse_detect_10;                     // the one +10% among 24 unchanged (n >= 10)
  std::map<std::string, Rate> detect_10_by;  // by shape, and by n and CV
};

std::vector<cmp::MetricAssessment> judge(const std::vector<Sample>& samples,
                                         cmp::DecidingTest test) {
  std::vector<cmp::MetricInput> inputs;
  for (const Sample& s : samples) {
    inputs.push_back({s.base, s.current, benchledger::Better::lower, 0.05});
  }
  return cmp::assess(inputs, cmp::VerdictOptions{0.05, test});
}

Truth random_truth(bt::Rng& rng, double shift) {
  static constexpr std::array<double, 5> cvs{0.01, 0.02, 0.03, 0.04, 0.05};
  return {bt::k_shapes[rng.below(4)], 5 + rng.below(26), cvs[rng.below(5)], shift};
}

Sample draw(bt::Rng& rng, const Truth& t) {
  const double center = 1e3 * std::exp(6.0 * rng.uniform());  // 1 us .. 400 us, in ns
  return {bt::draw(rng, t.shape, t.n, t.cv, center),
          bt::draw(rng, t.shape, t.n, t.cv, center * (1.0 + t.shift))};
}

Rates measure(cmp::DecidingTest test, std::size_t null_suites, std::size_t mixed_suites,
              std::size_t sparse_suites) {
  Rates rates;
  constexpr std::size_t k_suite = 25;
  bt::Rng rng(0x5eed'0005);
  for (std::size_t s = 0; s < null_suites; ++s) {
    std::vector<Sample> suite;
    for (std::size_t b = 0; b < k_suite; ++b) suite.push_back(draw(rng, random_truth(rng, 0.0)));
    const auto verdicts = judge(suite, test);
    bool regression = false, any = false;
    for (const auto& v : verdicts) {
      regression |= v.verdict == cmp::Verdict::regression;
      any |= v.verdict == cmp::Verdict::regression || v.verdict == cmp::Verdict::improvement;
      rates.null_unchanged.add(v.verdict == cmp::Verdict::unchanged);
      rates.false_regression.add(v.verdict == cmp::Verdict::regression);
    }
    rates.null_suites_with_false_regression.add(regression);
    rates.null_suites_with_any_false_verdict.add(any);
  }
  static constexpr std::array<double, 9> shifts{-0.20, -0.10, -0.05, -0.02, 0.0,
                                                0.02,  0.05,  0.10,  0.20};
  for (std::size_t s = 0; s < mixed_suites; ++s) {
    std::vector<Truth> truths;
    std::vector<Sample> suite;
    for (std::size_t b = 0; b < k_suite; ++b) {
      truths.push_back(random_truth(rng, shifts[rng.below(shifts.size())]));
      suite.push_back(draw(rng, truths.back()));
    }
    const auto verdicts = judge(suite, test);
    for (std::size_t b = 0; b < k_suite; ++b) {
      const Truth& t = truths[b];
      const bool flagged = verdicts[b].verdict == cmp::Verdict::regression;
      if (t.shift <= 0.0) rates.false_regression.add(flagged);
      if (t.shift == 0.20) rates.detect_20.add(flagged);
      if (t.shift == 0.05) rates.detect_5.add(flagged);
      if (t.shift == -0.10 && t.n >= 10) {
        rates.detect_minus_10.add(verdicts[b].verdict == cmp::Verdict::improvement);
      }
      if (t.shift == 0.10 && t.n >= 10) {
        rates.detect_10.add(flagged);
        rates.detect_10_by[std::string(bt::shape_name(t.shape))].add(flagged);
        rates
            .detect_10_by[fmt::format("n {:>2}-{:>2}, CV {:.0f}%", t.n < 20 ? 10 : 20,
                                      t.n < 20 ? 19 : 30, 100 * t.cv)]
            .add(flagged);
      }
    }
  }
  for (std::size_t s = 0; s < sparse_suites; ++s) {
    std::vector<Sample> suite;
    for (std::size_t b = 0; b + 1 < k_suite; ++b) {
      suite.push_back(draw(rng, random_truth(rng, 0.0)));
    }
    Truth changed = random_truth(rng, 0.10);
    changed.n = 10 + rng.below(21);
    suite.push_back(draw(rng, changed));
    const auto verdicts = judge(suite, test);
    rates.sparse_detect_10.add(verdicts.back().verdict == cmp::Verdict::regression);
    for (std::size_t b = 0; b + 1 < k_suite; ++b) {
      rates.false_regression.add(verdicts[b].verdict == cmp::Verdict::regression);
    }
  }
  return rates;
}

void print(cmp::DecidingTest test, const Rates& r, bool breakdown) {
  std::printf("deciding test: %s\n", std::string(cmp::to_string(test)).c_str());
  const auto line = [](const char* what, const Rate& rate) {
    std::printf("  %-62s %s\n", what, rate.text().c_str());
  };
  line("suites of 25 unchanged with >= 1 false regression (<= 5%)",
       r.null_suites_with_false_regression);
  line("suites of 25 unchanged with >= 1 false regression/improvement",
       r.null_suites_with_any_false_verdict);
  line("unchanged benchmarks called unchanged", r.null_unchanged);
  line("+10% flagged, n >= 10 a side, CV <= 5%, mixed suites (>= 98%)", r.detect_10);
  line("-10% called improvement, n >= 10, mixed suites", r.detect_minus_10);
  line("+20% flagged, n >= 5, mixed suites", r.detect_20);
  line("+5% (at the threshold) flagged, n >= 5, mixed suites", r.detect_5);
  line("+10% alone among 24 unchanged flagged, n >= 10", r.sparse_detect_10);
  line("false regressions among unchanged or improved (<= 0.3%)", r.false_regression);
  if (breakdown) {
    for (const auto& [key, rate] : r.detect_10_by) {
      line(fmt::format("  +10% flagged: {}", key).c_str(), rate);
    }
  }
  std::fflush(stdout);
}

// Where a whole-distribution test should shine: the modes stay put and only the share of
// slow values grows (20% -> 60% of values in a mode 15% slower; 1% spread within a mode), in
// suites of 25 where each benchmark has this change with probability 1/2.
void print_mixture_change(cmp::DecidingTest test, std::size_t suites) {
  bt::Rng rng(0x5eed'0006);
  Rate flagged, false_alarm;
  const auto mixture = [&](std::size_t n, double slow_share, double center) {
    std::vector<double> out(n);
    for (double& v : out) {
      v = center * ((rng.uniform() < slow_share ? 1.15 : 1.0) + 0.01 * rng.normal());
    }
    return out;
  };
  for (std::size_t s = 0; s < suites; ++s) {
    std::vector<Sample> suite;
    std::vector<bool> changed;
    for (std::size_t b = 0; b < 25; ++b) {
      const std::size_t n = 10 + rng.below(21);
      changed.push_back(rng.uniform() < 0.5);
      suite.push_back({mixture(n, 0.2, 1e4), mixture(n, changed.back() ? 0.6 : 0.2, 1e4)});
    }
    const auto verdicts = judge(suite, test);
    for (std::size_t b = 0; b < 25; ++b) {
      const bool regression = verdicts[b].verdict == cmp::Verdict::regression;
      (changed[b] ? flagged : false_alarm).add(regression);
    }
  }
  std::printf("  %-62s %s\n", "mixture change (slow share 20% -> 60%) flagged, n 10-30",
              flagged.text().c_str());
  std::printf("  %-62s %s\n", "... unchanged mixtures flagged", false_alarm.text().c_str());
  std::fflush(stdout);
}

}  // namespace

TEST_CASE(
    "the gate meets the false-alarm and detection targets of docs/statistics.md on the corpus") {
  const auto test = cmp::DecidingTest::mann_whitney;
  const Rates r = measure(test, 2000, 2000, 1000);
  print(test, r, true);
  CHECK(r.null_suites_with_false_regression.value() <= 0.05);
  CHECK(r.detect_10.value() >= 0.98);
  CHECK(r.false_regression.value() <= 0.003);
  // Far beyond the threshold every shape is caught; improvements as well as regressions.
  CHECK(r.detect_20.value() >= 0.95);
  CHECK(r.detect_minus_10.value() >= 0.98);
  // Most unchanged benchmarks are positively called unchanged, not left inconclusive.
  CHECK(r.null_unchanged.value() >= 0.7);
}

TEST_CASE(
    "on two-mode timings the verdict keeps its false-alarm targets at 10 a side and catches +10% "
    "at 30") {
  // A fifth of the values 10% slower, 5% CV gaussian noise on every value (docs/statistics.md,
  // "Two-mode timings"; bench/self/verdict_power_bench.cpp prints the same rates).
  for (const std::size_t n : {10, 30}) {
    const bt::TwoModesPower power = bt::measure_two_modes_power(n, 0.10, 1000);
    std::printf(
        "two modes, %zu a side: +10%% flagged %.2f%%, false regressions %.3f%%, unchanged "
        "suites with a false alarm %.2f%%\n",
        n, 100 * power.detect_10.fraction(), 100 * power.false_regression.fraction(),
        100 * power.suites_false.fraction());
    CHECK(power.false_regression.fraction() <= 0.003);
    CHECK(power.suites_false.fraction() <= 0.05);
    // 20 a side is at the target itself (98.1% in the benchmark's 2,000 suites); 30 clear of it.
    if (n == 30) CHECK(power.detect_10.fraction() >= 0.98);
  }
}

TEST_CASE("every candidate deciding test measured on the same corpus", "[.][choice]") {
  for (const auto test : {cmp::DecidingTest::mann_whitney, cmp::DecidingTest::brunner_munzel,
                          cmp::DecidingTest::kolmogorov_smirnov}) {
    print(test, measure(test, 4000, 4000, 2000), true);
    print_mixture_change(test, 400);
  }
}
