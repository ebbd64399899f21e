// The one seam through which the folders above start their children and read the time their
// decisions take (a gate's budget for extra rounds, a throwaway server's wait for readiness):
// passed down explicitly, so that a test can hand in a scripted one
// (tests/support/scripted_executor.hpp) that answers each child from a script and keeps a fake
// clock, and tests what those decisions do without waiting for them.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "process/process.hpp"

namespace benchledger::process {

// A child that runs beside its caller until the caller stops it (a server): Executor::start's.
// Destroyed before stop(), it is killed (SIGKILL to its group) and reaped, as a Child is.
class Started {
 public:
  virtual ~Started() = default;
  // True when the child has exited on its own (not yet reaped); does not wait.
  virtual bool has_exited() = 0;
  // `signal` to the child's group, SIGKILL to it after `grace`, then reaped. Never throws.
  virtual void stop(int signal, std::chrono::milliseconds grace) noexcept = 0;
};

class Executor {
 public:
  virtual ~Executor() = default;

  // Starts the child, waits for its end and reaps it, as process::run does; throws what it
  // throws (SpawnError when the child cannot be started).
  virtual Exit run(const Spec& spec) = 0;
  // Nanoseconds on a clock that never goes back; only differences between two reads mean
  // anything.
  virtual std::int64_t now_ns() = 0;
  // Starts the child and returns at once, leaving it running (a process::Child); throws what
  // Child throws. The real one here; a fake overrides it.
  virtual std::unique_ptr<Started> start(const Spec& spec);
  // Lets `ns` nanoseconds pass on now_ns()'s clock, between two looks at something that takes
  // its time (a server being started): the real one sleeps here, a fake moves its clock.
  virtual void pause(std::int64_t ns);
};

// The real one: process::run and the steady clock. Stateless: two threads may share it.
class SystemExecutor : public Executor {
 public:
  Exit run(const Spec& spec) override;
  std::int64_t now_ns() override;
};

}  // namespace benchledger::process
