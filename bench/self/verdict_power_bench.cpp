// How often the verdict catches a +10% slowdown, and how often it cries wolf, on timings with two
// modes (a mode `gap` slower in a fifth of the values) and gaussian noise of 5% CV, simulated
// suite by suite through compare::assess, the verdict code `benchledger compare` runs
// (tests/unit/compare/two_modes_power.hpp). Seeded: every build prints the same rates. The
// figures and the targets are in docs/statistics.md, "Two-mode timings". Counters, in percent:
//   detect_10         +10% called regression in mixed suites                target >= 98
//   false_regression  regressions among benchmarks that did not get slower  target <= 0.3
//   suites_false      unchanged suites of 25 with any regression/improvement target <= 5
//   lone_10           a +10% alone among 24 unchanged, called regression
#include <benchmark/benchmark.h>

#include "unit/compare/two_modes_power.hpp"

namespace {

namespace bt = benchledger::testing;

constexpr std::size_t k_suites = 2000;  // of each kind: mixed, unchanged, lone

void verdict_power(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const double gap = static_cast<double>(state.range(1)) / 100.0;
  bt::TwoModesPower power;
  for (auto _ : state) power = bt::measure_two_modes_power(n, gap, k_suites);
  state.counters["detect_10"] = 100.0 * power.detect_10.fraction();
  state.counters["false_regression"] = 100.0 * power.false_regression.fraction();
  state.counters["suites_false"] = 100.0 * power.suites_false.fraction();
  state.counters["lone_10"] = 100.0 * power.lone_10.fraction();
}

// {samples a side, gap of the slow mode in percent}: the corpus (10 a side, modes 10% apart),
// smaller gaps down to plain gaussian noise, and more samples a side.
BENCHMARK(verdict_power)
    ->ArgNames({"n", "gap"})
    ->Args({10, 10})
    ->Args({10, 5})
    ->Args({10, 0})
    ->Args({15, 10})
    ->Args({20, 10})
    ->Args({30, 10})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
