// Running the steps of a gate (git, the build, each round of measurements) as child processes
// in a given directory, their diagnostics kept in one log file for the CI artifact.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <benchledger/error.hpp>

#include "engine/stop_signals.hpp"
#include "process/executor.hpp"

namespace benchledger::gate {

struct ProcessResult {
  std::optional<int> exit_code;  // set when the process exited
  std::optional<int> signal;     // set when a signal ended it
  std::string output;            // stdout, when captured

  bool ok() const { return exit_code == 0; }
  std::string describe() const;  // `exit status 2`, `killed by signal 9 (SIGKILL)`
};

// Runs argv (argv[0] searched in PATH) in `dir` through `executor` and waits for it (in a process
// group of its own), pinned to `cpus` when there are any. stdin is /dev/null; stderr, and stdout
// unless `capture_stdout`, are appended to `log`. Two may run at once, from two threads (a duet):
// with StepExecutor, a stop signal reaches both. Throws Error when the log cannot be opened; a
// step that cannot be started (a program not found, a folder or CPUs that cannot be taken) exits
// 127, as in a shell, with the reason in the log.
ProcessResult run_process(process::Executor& executor, const std::vector<std::string>& argv,
                          const std::filesystem::path& dir, const std::filesystem::path& log,
                          bool capture_stdout, const std::vector<int>& cpus = {});

// The real executor of a gate's steps: engine::run_passing_stops, the child's target added beside
// another one's (a duet's two steps run at once), and the steady clock.
class StepExecutor : public engine::StopPassingExecutor {
 public:
  StepExecutor() : StopPassingExecutor(true) {}
};

// Appends a line to the log (a heading before each step's output). Throws Error on failure.
void append_to_log(const std::filesystem::path& log, const std::string& line);

// The last `lines` lines of the log (model::file_tail: redacted, bounded), each indented by two
// spaces and ended by a line break, for an error message that says why a step failed.
std::string log_tail(const std::filesystem::path& log, std::size_t lines);

// Stop signals (engine/stop_signals.hpp): while a StopSignals lives, SIGINT, SIGTERM and SIGHUP
// are passed on to the step running (its whole process group, as each step runs in one of its
// own) and remembered, so that the gate stops when that step has ended and removes its worktrees
// on the way out (docs/ci-gate.md).
using engine::stop_signal;
using engine::Stopped;
using engine::StopSignals;
using engine::throw_if_stopped;

}  // namespace benchledger::gate
