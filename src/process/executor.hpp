// The one seam through which the folders above start their children and read the time their
// decisions take (a gate's budget for extra rounds): passed down explicitly, so that a test can
// hand in a scripted one (tests/support/scripted_executor.hpp) that answers each child from a
// script and keeps a fake clock, and tests what those decisions do without waiting for them.
#pragma once

#include <cstdint>

#include "process/process.hpp"

namespace benchledger::process {

class Executor {
 public:
  virtual ~Executor() = default;

  // Starts the child, waits for its end and reaps it, as process::run does; throws what it
  // throws (SpawnError when the child cannot be started).
  virtual Exit run(const Spec& spec) = 0;
  // Nanoseconds on a clock that never goes back; only differences between two reads mean
  // anything.
  virtual std::int64_t now_ns() = 0;
};

// The real one: process::run and the steady clock. Stateless: two threads may share it.
class SystemExecutor : public Executor {
 public:
  Exit run(const Spec& spec) override;
  std::int64_t now_ns() override;
};

}  // namespace benchledger::process
