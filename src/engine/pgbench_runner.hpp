// Running the installed pgbench against a server (docs/postgres.md, "pgbench runs"): its
// output and -l logs are kept for the pgbench importer, which turns them into results.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/native.hpp"

namespace benchledger::engine {

// Seconds a pgbench run (or `pgbench -i`) may take when the run gives no --timeout: a native
// case's limit.
inline constexpr double k_default_pgbench_timeout = k_default_case_timeout;

// The pgbench next to the server binaries (engine/throwaway_postgres.hpp), else `pgbench` on
// $PATH. Throws Error saying what to install when there is none.
std::filesystem::path pgbench_program();

// Splits --pgbench's ARGS at blanks, as a shell would without quotes or expansions. Throws
// Error on a quote (pass such arguments in a script file with -f), and on the flags a run
// sets itself: -c/--client, -j/--jobs, -s/--scale, -i/--initialize, -l/--log,
// --log-prefix, and a database name.
std::vector<std::string> split_pgbench_args(const std::string& text);

struct PgbenchOutput {
  std::string output;                                     // stdout, then stderr
  std::vector<std::pair<std::string, std::string>> logs;  // each -l file's name and text
  std::optional<CaseFailure> failure;                     // a `timeout`: output and logs empty
};

// Each pgbench below runs in a process group of its own, killed whole when it is still running
// after `timeout_s`; under StopSignals a stop signal is passed on to that group and Stopped is
// thrown once it has ended (engine/stop_signals.hpp). Its output goes to a temporary folder
// (under $TMPDIR) removed afterwards.

// `pgbench -i -q -s SCALE DSN`: creates pgbench's tables at that scale (replacing them).
// Throws Error with pgbench's last lines when it fails or times out.
void initialise_pgbench(const std::string& dsn, std::int64_t scale, double timeout_s);

// `pgbench -c CLIENTS -j JOBS ARGS -l --log-prefix DIR/pgbench_log [-P 1] DSN`, with -P 1
// added unless ARGS asks for progress reports itself. A run killed past `timeout_s` gives the
// failure `timeout`. Throws Error with pgbench's last lines when it exits non-zero (a run whose
// clients all aborted).
PgbenchOutput run_pgbench(const std::string& dsn, std::int64_t clients, std::int64_t jobs,
                          const std::vector<std::string>& args, double timeout_s);

}  // namespace benchledger::engine
