// A BENCHLEDGER_MAIN program for the instruction-count tests: each operation loops a fixed
// body $FIXTURE_ITERATIONS times (default 100), after a set-up of `setup` steps that is not
// measured; `count/threads` runs the loop on 1 and 2 worker threads, `count/ops` as an OPS
// operation. The loop count comes from the environment so that 100 and 101 are the same case.
#include <cstdint>
#include <cstdlib>

#include <benchledger/benchledger.hpp>

namespace {

std::int64_t iterations() {
  const char* text = std::getenv("FIXTURE_ITERATIONS");
  return text != nullptr ? std::atoll(text) : 100;
}

void loop(benchledger::State& state) {
  const std::int64_t loops = iterations();
  std::uint64_t seed = 1;
  const std::int64_t setup = state.params().count("setup") != 0 ? state.int_param("setup") : 0;
  for (std::int64_t i = 0; i < setup; ++i) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    benchledger::do_not_optimize(seed);
  }
  for (auto _ : state) {
    std::uint64_t acc = seed;
    for (std::int64_t i = 0; i < loops; ++i) {
      acc = acc * 2862933555777941757ULL + 3037000493ULL;
      benchledger::do_not_optimize(acc);
    }
  }
}

}  // namespace

BENCHLEDGER_BENCH("count/loop", loop)
    .param("setup", {0, 2000000})
    .ops_per_repetition(1000)
    .repetitions(5);

// The same loop on worker threads: at concurrency 2 neither worker is the thread that opened
// the counters.
BENCHLEDGER_BENCH("count/threads", loop)
    .concurrency({1, 2})
    .ops_per_repetition(1000)
    .repetitions(5);

// An operation of the same loop, on 1 and 2 persistent worker threads that share each batch.
BENCHLEDGER_OPS("count/ops",
                [](benchledger::State&) {
                  return [] {
                    const std::int64_t loops = iterations();
                    std::uint64_t acc = 1;
                    for (std::int64_t i = 0; i < loops; ++i) {
                      acc = acc * 2862933555777941757ULL + 3037000493ULL;
                      benchledger::do_not_optimize(acc);
                    }
                  };
                })
    .concurrency({1, 2})
    .ops_per_repetition(1000)
    .repetitions(5);

BENCHLEDGER_MAIN()
