// What keeping the per-function profile costs `run --measure instructions` (docs/profiles.md,
// "Cost"), in one google-benchmark run:
//
// - overhead: each iteration counts a command under callgrind as the engine does (Valgrind with
//   the engine's options, following children, then the totals of its output files: the count
//   without a profile), then keeps its profile (the output files read into self cost per
//   function, capped, as the artifact's bytes, written and fsynced beside a ledger). The counter
//   `overhead` is the time of keeping over the time of counting, summed over the iterations of
//   the repetition (target: <= 0.10); `count_ms` and `keep_ms` are each a count's. Three
//   commands: /bin/true (the shortest count, where keeping weighs most), a shell loop, and
//   benchledger's own --help (a C++ program of many functions: the largest output files);
// - size: `benchledger run --measure instructions:valgrind` of 100 cases, each a shell loop of a
//   different length (so that no two profiles are the same bytes, which would be kept once), into
//   a fresh NDJSON ledger; `artifact_bytes` is the size of the artifacts beside it (target:
//   <= 5 MB), `artifacts` their count. One repetition: 100 counts under callgrind take minutes.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/instructions.hpp"
#include "ledger/artifacts.hpp"
#include "profile/profile.hpp"
#include "support/process.hpp"
#include "support/scratch_dir.hpp"

namespace {

namespace ts = benchledger::test_support;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::vector<std::string> command_of(std::int64_t which) {
  switch (which) {
    case 0:
      return {"/bin/true"};
    case 1:
      return {"/bin/sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"};
    default:
      return {BENCHLEDGER_BIN, "--help"};
  }
}

void BM_ProfileOverhead(benchmark::State& state) {
  const std::vector<std::string> command = command_of(state.range(0));
  const std::string valgrind = benchledger::engine::find_valgrind();
  double counting = 0, keeping = 0;
  std::int64_t bytes = 0;
  for (auto _ : state) {
    const ts::ScratchDir dir;
    const std::filesystem::path out = dir / "out";
    std::filesystem::create_directories(out);
    // Counting: callgrind as count_command starts it, and the totals that are the count.
    const auto start = Clock::now();
    std::vector<std::string> argv = {valgrind};
    for (std::string& option : benchledger::engine::callgrind_options(out))
      argv.push_back(std::move(option));
    argv.emplace_back("--trace-children=yes");
    argv.insert(argv.end(), command.begin(), command.end());
    const ts::ProcessResult run = ts::run_process(argv);
    if (run.exit_code != 0) {
      state.SkipWithError(("callgrind failed: " + run.err).c_str());
      break;
    }
    const auto files = benchledger::engine::callgrind_files(out);
    double instructions = 0;
    for (const auto& file : files)
      instructions += benchledger::engine::read_callgrind_totals(file.string()).ir;
    benchmark::DoNotOptimize(instructions);
    counting += seconds_since(start);
    // Keeping: the profile read, made into the artifact's bytes and written beside a ledger.
    const auto keep_start = Clock::now();
    const std::string artifact =
        benchledger::profile::to_artifact(benchledger::profile::read_callgrind_profile(files, 1));
    benchledger::ledger::put_artifact(dir / "ledger.ndjson.artifacts", artifact);
    keeping += seconds_since(keep_start);
    bytes = static_cast<std::int64_t>(artifact.size());
  }
  const auto n = static_cast<double>(state.iterations());
  state.counters["overhead"] = counting > 0 ? keeping / counting : 0;
  state.counters["count_ms"] = n > 0 ? 1000 * counting / n : 0;
  state.counters["keep_ms"] = n > 0 ? 1000 * keeping / n : 0;
  state.counters["profile_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_ProfileOverhead)
    ->ArgName("command")  // 0 /bin/true, 1 a shell loop, 2 benchledger --help
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_HundredCaseArtifacts(benchmark::State& state) {
  std::string lengths;
  for (int i = 1; i <= 100; ++i) lengths += (i > 1 ? "," : "") + std::to_string(100 * i);
  std::uintmax_t bytes = 0;
  std::int64_t files = 0;
  for (auto _ : state) {
    const ts::ScratchDir dir;
    const std::string ledger = (dir / "ledger.ndjson").string();
    const ts::ProcessResult run = ts::run_process(
        {BENCHLEDGER_BIN, "run", "--ledger", ledger, "--measure", "instructions:valgrind", "--name",
         "loop", "--param", "n=" + lengths, "--quiet", "--", "/bin/sh", "-c",
         "i=0; while [ $i -lt {n} ]; do i=$((i+1)); done"});
    if (run.exit_code != 0) {
      state.SkipWithError(("benchledger run failed: " + run.err).c_str());
      break;
    }
    bytes = 0;
    files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(ledger + ".artifacts")) {
      bytes += entry.file_size();
      ++files;
    }
  }
  state.counters["artifact_bytes"] = static_cast<double>(bytes);
  state.counters["artifacts"] = static_cast<double>(files);
}
BENCHMARK(BM_HundredCaseArtifacts)
    ->Iterations(1)
    ->Repetitions(1)
    ->Unit(benchmark::kSecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
