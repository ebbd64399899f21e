// Ending a command cleanly on SIGINT, SIGTERM and SIGHUP: the signal is passed on to the child
// running (a gate's step, a native case, pgbench, the command runner's helper), remembered, and
// acted on between steps, so that the command removes what it made (worktrees, a throwaway
// PostgreSQL and its folder, callgrind's files) before it ends by that signal. `gate`, `bisect`
// and `run` live under it (docs/ci-gate.md, docs/engine.md).
#pragma once

#include <sys/types.h>

#include <benchledger/error.hpp>

#include "process/executor.hpp"
#include "process/process.hpp"

namespace benchledger::engine {

// While a StopSignals lives, SIGINT, SIGTERM and SIGHUP do not end the process at once: the
// signal is passed on to the stop target (StopTarget below) and remembered, so that the command
// stops when that step has ended and cleans up on the way out. The destructor puts the previous
// handlers back; a signal the process was started ignoring stays ignored. One at a time. No
// SA_RESTART: a blocking read, poll or wait returns EINTR (and is retried by its loop).
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
};

// The first stop signal received while a StopSignals lived (SIGINT, SIGTERM, SIGHUP), or 0.
int stop_signal();

// Where a stop signal goes while a child runs, as kill(2) takes it: -PGID for a process group
// (a child started in a group of its own), a pid for one process. 0: nowhere (between steps).
// Async-signal-safe. Set it after the child has its group, clear it before reaping the child.
void set_stop_target(pid_t target);

// The same for a child that runs beside another one (a gate's duet): adds `target` to the
// places a stop signal goes, until remove_stop_target(target). Two at most beside
// set_stop_target's; throws Error past that.
void add_stop_target(pid_t target);
void remove_stop_target(pid_t target);

// Makes `target` the stop target for as long as it lives, and passes on a stop signal that
// arrived while the child was being started. `stopped_before_start` (stop_signal() read before
// starting the child) says that the signal came earlier: the child then runs to its end, as a
// step of the clean-up must. Clears the target on destruction: destroy it before reaping the
// child.
class StopTarget {
 public:
  StopTarget(pid_t target, bool stopped_before_start);
  ~StopTarget();
  StopTarget(const StopTarget&) = delete;
  StopTarget& operator=(const StopTarget&) = delete;
};

// Runs `spec` to its end (process::Child: started, settled, reaped) with the child as the stop
// target while it runs (its group, when it has one of its own): a stop signal that arrives
// meanwhile is passed on to it; one that came before the call is not, so that a step of the
// clean-up runs to its end. `beside_another`: the child runs beside another one (a gate's duet),
// its target added (add_stop_target) rather than set. Throws what process::Child throws.
process::Exit run_passing_stops(const process::Spec& spec, bool beside_another = false);

// The real executor of steps that a stop signal must reach (initdb, a gate's steps): run() is
// run_passing_stops(spec, beside_another); the clock, start() and pause() are SystemExecutor's.
class StopPassingExecutor : public process::SystemExecutor {
 public:
  explicit StopPassingExecutor(bool beside_another = false) : m_beside_another(beside_another) {}
  process::Exit run(const process::Spec& spec) override;

 private:
  bool m_beside_another;
};

// In a child forked under StopSignals that does not exec (an isolated native case): puts back
// the handlers StopSignals replaced, so that a stop signal passed on to the child ends it as it
// would have ended the command. Async-signal-safe.
void restore_stop_signals_in_child();

// Thrown between steps once a stop signal has arrived.
class Stopped : public Error {
 public:
  explicit Stopped(int signal);
  int signal() const { return m_signal; }

 private:
  int m_signal;
};

// Throws Stopped when a stop signal has arrived.
void throw_if_stopped();

}  // namespace benchledger::engine
