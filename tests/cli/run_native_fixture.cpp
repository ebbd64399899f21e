// A user's benchmark program, as BENCHLEDGER_MAIN users write it: the cases that
// run_native_test.cpp drives, a crash and a hang among them.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include <benchledger/benchledger.hpp>

// Under AddressSanitizer (the asan preset), let SIGSEGV kill the process as it does in any
// other build, instead of ASan reporting it and exiting with status 1.
extern "C" const char* __asan_default_options() {
  return "handle_segv=0";
}

namespace {

void spin_for(std::chrono::nanoseconds duration) {
  const auto end = std::chrono::steady_clock::now() + duration;
  while (std::chrono::steady_clock::now() < end) {
  }
}

}  // namespace

BENCHLEDGER_BENCH("fixture/spin", [](benchledger::State& state) {
  const auto us = std::chrono::microseconds(state.int_param("us"));
  for (auto _ : state) spin_for(us);
}).param("us", {5, 20});

BENCHLEDGER_OPS("fixture/every_tenth_throws", [](benchledger::State&) {
  return [calls = 0]() mutable {
    if (++calls % 10 == 0) throw std::runtime_error("every tenth call fails");
    spin_for(std::chrono::microseconds(2));
  };
}).ops_per_repetition(500);

BENCHLEDGER_BENCH("fixture/crash", [](benchledger::State& state) {
  for (auto _ : state) ::raise(SIGSEGV);
});

BENCHLEDGER_BENCH("fixture/hang", [](benchledger::State& state) {
  for (auto _ : state) std::this_thread::sleep_for(std::chrono::seconds(60));
}).timeout(0.5);

// Each worker's first operation waits for the case's other workers to begin theirs, so that
// workers taking turns never meet and fail instead: errors == 0 proves that they ran at once,
// which no rate measured on a loaded machine can.
BENCHLEDGER_OPS("fixture/workers",
                [](benchledger::State& state) {
                  struct Meeting {
                    std::mutex mutex;
                    std::set<std::thread::id> threads;
                    std::atomic<std::int64_t> arrived{0};
                  };
                  auto meeting = std::make_shared<Meeting>();
                  return [meeting, workers = state.int_param("concurrency")] {
                    bool first = false;
                    {
                      const std::lock_guard lock(meeting->mutex);
                      first = meeting->threads.insert(std::this_thread::get_id()).second;
                    }
                    if (first) {
                      ++meeting->arrived;
                      const auto guard =
                          std::chrono::steady_clock::now() + std::chrono::seconds(20);
                      while (meeting->arrived.load() < workers) {
                        if (std::chrono::steady_clock::now() > guard)
                          throw std::runtime_error("the workers never ran at once");
                        std::this_thread::yield();
                      }
                    }
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                  };
                })
    .concurrency({1, 4})
    .ops_per_repetition(40);

BENCHLEDGER_MAIN()
