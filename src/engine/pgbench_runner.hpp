// Running the installed pgbench against a server (docs/postgres.md, "pgbench runs"): its
// output and -l logs are kept for the pgbench importer, which turns them into results.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace benchledger::engine {

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
};

// `pgbench -i -q -s SCALE DSN`: creates pgbench's tables at that scale (replacing them).
// Throws Error with pgbench's last lines when it fails.
void initialise_pgbench(const std::string& dsn, std::int64_t scale);

// `pgbench -c CLIENTS -j JOBS ARGS -l --log-prefix DIR/pgbench_log [-P 1] DSN`, with -P 1
// added unless ARGS asks for progress reports itself, in a temporary folder (under $TMPDIR)
// removed afterwards. Throws Error with pgbench's last lines when it exits non-zero (a run
// whose clients all aborted).
PgbenchOutput run_pgbench(const std::string& dsn, std::int64_t clients, std::int64_t jobs,
                          const std::vector<std::string>& args);

}  // namespace benchledger::engine
