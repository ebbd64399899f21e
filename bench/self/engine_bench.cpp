// The engine's own cost, against the obvious yardsticks, in one google-benchmark run
// (docs/engine.md):
//
// - the empty loop: ns per iteration of `for (auto _ : state) {}` as google-benchmark reports
//   it, and as benchledger's BENCH mode reports it (target: benchledger / google <= 1.0). The
//   compiler deletes google-benchmark's empty loop (one loop is one batch, with a computable
//   trip count) but not benchledger's (one loop runs every batch of the case, with a call at
//   each boundary), so the same pair is also measured with a body the compiler must keep (a
//   compiler barrier): the cost of the loop itself;
// - OPS mode: wall time per operation of an empty operation timed on its own (two clock
//   reads, the histogram, the loop), against two bare clock reads (target: <= 1.3x);
// - command mode: `sleep 0.05` started and timed by benchledger's command runner and by
//   `hyperfine -N` (target: no further from 50 ms than hyperfine).
//
// google-benchmark's own time of the benchledger ones includes the engine's set-up of a case;
// each benchmark reports the comparable figure as a counter: `ns_per_iteration`,
// `ns_per_operation`, `ms_over_50` (median wall time of the repetition's runs minus 50 ms).
// tools/self-bench interleaves the repetitions of all benchmarks at random, so that a change
// in the machine's load does not favour whichever ran first.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <benchledger/benchledger.hpp>

#include "engine/clock.hpp"
#include "engine/command.hpp"
#include "engine/native.hpp"
#include "import/import.hpp"

namespace {

namespace engine = benchledger::engine;

constexpr std::int64_t k_loop_iterations = std::int64_t{1} << 22;
// google-benchmark runs a loop the compiler deleted for its maximum of 1e9 iterations; the
// deleted benchledger loop gets as many, so both spread their fixed cost alike.
constexpr std::int64_t k_empty_loop_iterations = 1'000'000'000;
constexpr std::int64_t k_operations = std::int64_t{1} << 16;

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

engine::NativeCase one_batch_case(const benchledger::Benchmark& benchmark, std::int64_t ops) {
  engine::NativeCase c;
  c.benchmark = &benchmark;
  c.bench = benchmark.name();
  c.repetitions = 1;
  c.warmup = 0;
  c.fixed_ops = ops;
  return c;
}

void BM_GoogleBenchmark_EmptyLoop(benchmark::State& state) {
  for (auto _ : state) {
  }
  // 1e-9 per iteration, as a rate, inverted: seconds / (1e-9 * iterations) = ns per iteration.
  state.counters["ns_per_iteration"] = benchmark::Counter(
      1e-9, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_GoogleBenchmark_EmptyLoop)->Repetitions(10);

void BM_Benchledger_EmptyLoop(benchmark::State& state) {
  const benchledger::Benchmark empty("empty", benchledger::BenchFunction([](benchledger::State& s) {
                                       for (auto _ : s) {
                                       }
                                     }));
  const engine::NativeCase c = one_batch_case(empty, k_empty_loop_iterations);
  double ns_per_iteration = 0;
  for (auto _ : state) {
    const engine::CaseMeasurement m = engine::measure_case(c, {});
    ns_per_iteration += m.time_ns.at(0);
  }
  // What benchledger reports as the time of one empty iteration, averaged.
  state.counters["ns_per_iteration"] =
      benchmark::Counter(ns_per_iteration, benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_Benchledger_EmptyLoop)->Repetitions(10);

void BM_GoogleBenchmark_BarrierLoop(benchmark::State& state) {
  for (auto _ : state) benchmark::ClobberMemory();
  state.counters["ns_per_iteration"] = benchmark::Counter(
      1e-9, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_GoogleBenchmark_BarrierLoop)->Repetitions(10);

void BM_Benchledger_BarrierLoop(benchmark::State& state) {
  const benchledger::Benchmark barrier("barrier",
                                       benchledger::BenchFunction([](benchledger::State& s) {
                                         for (auto _ : s) benchledger::clobber_memory();
                                       }));
  const engine::NativeCase c = one_batch_case(barrier, k_loop_iterations);
  double ns_per_iteration = 0;
  for (auto _ : state) {
    const engine::CaseMeasurement m = engine::measure_case(c, {});
    ns_per_iteration += m.time_ns.at(0);
  }
  state.counters["ns_per_iteration"] =
      benchmark::Counter(ns_per_iteration, benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_Benchledger_BarrierLoop)->Repetitions(10);

void BM_TwoBareClockReads(benchmark::State& state) {
  for (auto _ : state) {
    std::int64_t first = engine::now_ns();
    std::int64_t second = engine::now_ns();
    benchmark::DoNotOptimize(first);
    benchmark::DoNotOptimize(second);
  }
  state.counters["ns_per_operation"] = benchmark::Counter(
      1e-9, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_TwoBareClockReads)->Repetitions(10);

void BM_Benchledger_OpsPerOperation(benchmark::State& state) {
  benchledger::Registry registry;
  registry.ops("empty op", [](benchledger::State&) { return [] {}; });
  const engine::NativeCase c = one_batch_case(*registry.benchmarks().front(), k_operations);
  double ns_per_operation = 0;
  for (auto _ : state) {
    const engine::CaseMeasurement m = engine::measure_case(c, {});
    // Wall time per operation: every cost of timing one operation on its own.
    const double ns = 1e9 / m.throughput.at(0);
    ns_per_operation += ns;
  }
  state.counters["ns_per_operation"] =
      benchmark::Counter(ns_per_operation, benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_Benchledger_OpsPerOperation)->Repetitions(10);

void BM_Benchledger_CommandSleep50ms(benchmark::State& state) {
  engine::CommandRunner runner;
  runner.run({"sleep", "0.05"}, std::nullopt, false);  // warm-up, as `run` does by default
  std::vector<double> walls;
  for (auto _ : state) {
    const engine::CommandRun run = runner.run({"sleep", "0.05"}, std::nullopt, false);
    if (!run.ok()) state.SkipWithError("sleep 0.05 failed");
    walls.push_back(run.wall_ms);
    state.SetIterationTime(run.wall_ms / 1e3);
  }
  if (!walls.empty()) state.counters["ms_over_50"] = median(walls) - 50;
}
BENCHMARK(BM_Benchledger_CommandSleep50ms)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(10)
    ->Repetitions(5);

void BM_Hyperfine_Sleep50ms(benchmark::State& state) {
  const auto json = std::filesystem::temp_directory_path() /
                    ("benchledger-hyperfine-" + std::to_string(::getpid()) + ".json");
  const std::string command = "hyperfine -N --runs 10 --warmup 1 --style none --export-json " +
                              json.string() + " 'sleep 0.05' > /dev/null 2>&1";
  std::vector<double> walls;
  for (auto _ : state) {
    if (std::system(command.c_str()) != 0) {
      state.SkipWithError("hyperfine -N failed (tools/setup installs Debian's hyperfine)");
      break;
    }
    std::ifstream in(json);
    std::stringstream text;
    text << in.rdbuf();
    const auto imported = benchledger::import::read_hyperfine(text.str(), json.string());
    const auto& samples = *imported.results.at(0).metrics.at("wall").samples;
    walls.insert(walls.end(), samples.begin(), samples.end());
    state.SetIterationTime(median(samples) / 1e3);
  }
  std::filesystem::remove(json);
  if (!walls.empty()) state.counters["ms_over_50"] = median(walls) - 50;
}
BENCHMARK(BM_Hyperfine_Sleep50ms)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Repetitions(5);

}  // namespace

BENCHMARK_MAIN();
