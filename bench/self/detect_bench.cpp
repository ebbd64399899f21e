// detect's statistics: change points of 1,000 series of 500 runs (the target in
// docs/history.md), each with two steps and gaussian noise.
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include "stats/change_points.hpp"

namespace {

std::vector<std::vector<double>> make_series(std::size_t count, std::size_t length) {
  std::mt19937_64 rng(20261124);
  std::normal_distribution<double> noise(0, 0.01);
  std::vector<std::vector<double>> out(count);
  for (auto& s : out) {
    for (std::size_t i = 0; i < length; ++i) {
      const double level = i < length / 3 ? 100 : i < 2 * length / 3 ? 108 : 102;
      s.push_back(level * (1 + noise(rng)));
    }
  }
  return out;
}

void BM_DetectThousandSeries(benchmark::State& state) {
  const auto series = make_series(1000, static_cast<std::size_t>(state.range(0)));
  benchledger::stats::ChangePointOptions options;
  for (auto _ : state) {
    std::size_t found = 0;
    for (const auto& s : series)
      found += benchledger::stats::e_divisive_change_points(s, options).size();
    benchmark::DoNotOptimize(found);
  }
}
BENCHMARK(BM_DetectThousandSeries)->Arg(500)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
