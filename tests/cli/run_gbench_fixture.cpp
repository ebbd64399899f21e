// A google-benchmark program whose JSON output run_import_test.cpp imports.
#include <benchmark/benchmark.h>

#include <vector>

static void BM_Empty(benchmark::State& state) {
  for (auto _ : state) {
  }
}
BENCHMARK(BM_Empty);

static void BM_SumItems(benchmark::State& state) {
  std::vector<int> values(static_cast<std::size_t>(state.range(0)), 1);
  for (auto _ : state) {
    long sum = 0;
    for (int v : values) sum += v;
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.counters["cache_misses"] = 3;
}
BENCHMARK(BM_SumItems)->Arg(64);

static void BM_Refuses(benchmark::State& state) {
  for (auto _ : state) {
    state.SkipWithError("no database configured");
    break;
  }
}
BENCHMARK(BM_Refuses);

// ->Complexity() adds the family's fit: a BigO entry (time) and an RMS entry (percentage).
static void BM_Linear(benchmark::State& state) {
  std::vector<int> values(static_cast<std::size_t>(state.range(0)), 1);
  for (auto _ : state) {
    long sum = 0;
    for (int v : values) sum += v;
    benchmark::DoNotOptimize(sum);
  }
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_Linear)->RangeMultiplier(4)->Range(16, 256)->Complexity(benchmark::oN);

BENCHMARK_MAIN();
