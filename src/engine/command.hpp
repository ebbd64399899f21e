// Command mode (`benchledger run -- CMD ARGS...`): spawn without a shell, time each run with
// wait4, fill `{name}` placeholders for every combination of params.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <benchledger/record.hpp>

#include "engine/native.hpp"
#include "process/executor.hpp"
#include "process/process.hpp"

namespace benchledger::engine {

// One run of a command, as wait4 and the steady clock saw it.
struct CommandRun {
  double wall_ms = 0;  // from just before the spawn to wait4's return
  double user_ms = 0;
  double sys_ms = 0;
  std::int64_t max_rss_bytes = 0;  // this child's own ru_maxrss from wait4
  std::optional<int> exit_code;    // set when the command exited
  std::optional<int> signal;       // set when a signal ended it
  bool timed_out = false;          // killed (with its process group) past the timeout
  // A failed run's last lines of stderr (model::output_tail), unless its output was shown.
  std::string stderr_tail;

  bool ok() const { return exit_code == 0 && !timed_out; }
  std::string describe() const;  // `exited with status 3`, `killed by signal 9 (SIGKILL)`, ...
  // A failed run's kind, as a native case's: `timeout`, `crashed` (a signal) or `error`.
  std::string failure_kind() const;
};

// One of command mode's runs as a spec: argv and the timeout; stdout and stderr shown (inherited)
// with show_output, else stdout to /dev/null and the last bytes of stderr kept (a tail).
process::Spec command_spec(const std::vector<std::string>& argv, std::optional<double> timeout_s,
                           bool show_output);

// A run as command mode records it: times in milliseconds, how it ended and, for a failed run,
// the last lines of the stderr its tail kept (model::output_tail).
CommandRun command_run(const process::Exit& exit);

// Starts and times runs of commands: the executor of command mode's runs. Each run is spawned
// (argv[0] searched in PATH) in its own process group, stdin from /dev/null, stdout to /dev/null
// and stderr to an unlinked file in TMPDIR (emptied before each run, so it holds one run's stderr
// at most; /dev/null when it cannot be made) unless show_output; a run still going after timeout_s
// is killed with its process group.
//
// Runs start from benchledger-spawn, a small helper next to this program (or at
// $BENCHLEDGER_SPAWN_HELPER), so that each run's max RSS is its own (see spawn_helper.cpp).
// Without the helper they start from this process, and max RSS reads at least this
// process's own peak: own_max_rss() says so.
class CommandRunner : public process::Executor {
 public:
  CommandRunner();
  ~CommandRunner() override;
  CommandRunner(const CommandRunner&) = delete;
  CommandRunner& operator=(const CommandRunner&) = delete;

  // One run of a command_spec: its argv, timeout and streams are what the runner reads (the rest
  // is command mode's: a process group of its own, stdin from /dev/null). A stderr tail is filled
  // for a failed run only, from the unlinked file. Throws Error when the command cannot be
  // started at all (not found, not executable).
  process::Exit run(const process::Spec& spec) override;
  std::int64_t now_ns() override;  // the engine's clock (clock.hpp)
  // command_run(run(command_spec(argv, timeout_s, show_output))).
  CommandRun run(const std::vector<std::string>& argv, std::optional<double> timeout_s,
                 bool show_output);
  // False when runs start from this process (no helper): their max RSS is then floored at
  // this process's peak resident set.
  bool own_max_rss() const { return m_helper.has_value(); }

 private:
  process::Exit spawn(const process::Spec& spec);
  process::Exit run_here(const process::Spec& spec);
  void stop_helper() noexcept;

  int m_stderr_file = -1;  // the runs' stderr, read after a failed one
  std::optional<process::Child> m_helper;
  int m_requests = -1;   // write end, the helper's fd 3
  int m_responses = -1;  // read end, the helper's fd 4
};

// One run with a runner of its own.
CommandRun run_command_once(const std::vector<std::string>& argv, std::optional<double> timeout_s,
                            bool show_output);

// Runs argv with stdout captured (stdin /dev/null, stderr inherited) and waits for it: for
// native benchmark programs that print their records. Throws Error when it cannot start.
struct CapturedRun {
  std::optional<int> exit_code;
  std::optional<int> signal;
  std::string output;
};
CapturedRun run_capturing_stdout(const std::vector<std::string>& argv);

// One combination of params of a command.
struct CommandCase {
  std::string bench;  // --name, else the command as written without the words of placeholders
  Params params;
  std::vector<std::string> argv;       // placeholders filled
  std::optional<std::string> prepare;  // shell command before each run, placeholders filled
  std::optional<std::string> cleanup;  // shell command after the last run of the case

  std::string display_name() const;
};

struct CommandSpec {
  std::optional<std::string> name;
  std::vector<std::string> command;  // as given after `--`
  bool shell = false;                // run the command through /bin/sh -c
  std::optional<std::string> prepare, cleanup;
};

// Every combination of the params (the first given slowest), placeholders filled. A param
// the command, --prepare and --cleanup never mention is an Error (a typo, most likely), and
// so is a `{name}` placeholder that no param fills (`${name}` is left to the shell).
std::vector<CommandCase> expand_command(const CommandSpec& spec, const ParamOverrides& params,
                                        const std::optional<std::regex>& filter);

struct CommandSettings {
  int runs = 10;
  int warmup = 1;
  std::optional<double> timeout;
  bool show_output = false;
};

struct CommandMeasurement {
  std::vector<double> wall_ms, user_ms, sys_ms;  // successful runs only
  std::vector<double> max_rss_bytes;
  std::int64_t runs = 0;    // measured runs (warm-up excluded)
  std::int64_t errors = 0;  // runs that exited non-zero, were killed or timed out
  std::vector<std::string> warnings;
};

struct CommandOutcome {
  std::optional<CommandMeasurement> measurement;
  // Every run failed (its output the first failed run's stderr_tail), or --prepare failed (its).
  std::optional<CaseFailure> failure;
  std::int64_t runs = 0, errors = 0;  // also set for a failure
  double seconds = 0;
};

// The case's warm-up and measured runs, --prepare before each and --cleanup once after the
// last, with a CommandRunner of its own (docs/engine.md, "Command mode").
CommandOutcome run_command_case(const CommandCase& c, const CommandSettings& settings,
                                const PhaseSink& sink);
// The same through `runs`, which starts every run and step and whose clock times the case.
CommandOutcome run_command_case(const CommandCase& c, const CommandSettings& settings,
                                const PhaseSink& sink, process::Executor& runs);

}  // namespace benchledger::engine
