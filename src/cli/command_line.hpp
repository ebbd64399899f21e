// How every command line of benchledger ends, the binary's (main.cpp) and a BENCHLEDGER_MAIN
// program's (native_main): the exceptions of parsing and running mapped to the exit codes of
// docs/design.md ("Exit codes") and printed on stderr, and standard output checked.
#pragma once

#include <functional>
#include <string>

#include <CLI/CLI.hpp>

namespace benchledger::cli {

// Calls `parse`, which parses the command line into `app`, then `command`, which runs what it
// names and returns its exit code; returns the exit code of the whole:
//   help (and --version): printed by CLI11, its code (0); a usage error: CLI11's message, 2;
//   benchledger::IntegrityError: `PROGRAM: what`, 1; benchledger::Error: `PROGRAM: what`, 2;
//   any other exception: `PROGRAM: internal error: what`, 3;
// and when what was written to standard output did not get there, `PROGRAM: reason` and 2
// instead of 0 (a failing code stays). Standard output is closed when it returns.
int run_command_line(const std::string& program, CLI::App& app, const std::function<void()>& parse,
                     const std::function<int()>& command);

// Runs `run` with the engine's StopSignals alive, so that Ctrl-C or a CI runner's SIGTERM is
// passed on to the child running and the command unwinds, removing what it made. Without a stop
// signal, returns run's status (and lets its Error through). After one, says `NAME: stopped by
// signal N (SIGX); AFTERMATH` on stderr and ends by that signal, so that whatever waits for the
// command sees why (an Error the signal caused, a step cut short, is not reported).
int run_until_stopped(const std::string& name, const std::function<int()>& run,
                      const std::function<std::string()>& aftermath);

}  // namespace benchledger::cli
