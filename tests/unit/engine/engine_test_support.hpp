// Helpers shared by the engine's tests: running a registry's cases, spinning on the clock,
// meeting of worker threads, running /usr/bin/python3 as an oracle.
#pragma once

#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <benchledger/benchledger.hpp>

#include "engine/clock.hpp"
#include "engine/native.hpp"
#include "support/process.hpp"
#include "support/scratch_dir.hpp"

namespace benchledger::test {

// Busy-waits until `ns` nanoseconds after the call: a deadline, so that a preemption in the
// middle does not lengthen it.
inline void spin_for(std::int64_t ns) {
  const std::int64_t end = engine::now_ns() + ns;
  while (engine::now_ns() < end) {
  }
}

// Counts this thread in at `arrived` and waits until `count` threads are in. Throws when they
// are not within a minute: a guard against workers that run one after another (who would wait
// here forever), not a deadline a loaded machine has to meet. Threads that meet here are inside
// their work at one moment, which proves they run at once without timing anything.
inline void meet(std::atomic<int>& arrived, int count) {
  ++arrived;
  const std::int64_t guard = engine::now_ns() + std::int64_t{60} * 1'000'000'000;
  while (arrived.load() < count) {
    if (engine::now_ns() > guard)
      throw std::runtime_error("the workers never ran at once: " + std::to_string(arrived.load()) +
                               " of " + std::to_string(count) + " met");
    std::this_thread::yield();
  }
}

// The cases of `registry` with these settings (every flag explicit, so that defaults do not
// leak into the tests).
inline std::vector<engine::NativeCase> cases_of(const Registry& registry, int repetitions,
                                                int warmup, double min_time = 0.01,
                                                double timeout = 60) {
  engine::RunSettings settings;
  settings.repetitions = repetitions;
  settings.warmup = warmup;
  settings.min_time = min_time;
  settings.timeout = timeout;
  return engine::expand_cases(registry, "", settings, {}, std::nullopt);
}

inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// Runs a shell command line, capturing stdout (and stderr).
inline test_support::ProcessResult shell(const std::string& command) {
  return test_support::run_shell(command);
}

inline std::string python3() {
  const char* python = std::getenv("BENCHLEDGER_PYTHON3");
  return python != nullptr && *python != '\0' ? python : "/usr/bin/python3";
}

inline std::filesystem::path source_dir() {
  const char* dir = std::getenv("BENCHLEDGER_SOURCE_DIR");
  if (dir == nullptr || *dir == '\0')
    throw std::runtime_error("BENCHLEDGER_SOURCE_DIR is not set (run through ctest)");
  return dir;
}

using test_support::ScratchDir;

}  // namespace benchledger::test
