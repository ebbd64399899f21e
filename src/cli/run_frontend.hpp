// `benchledger run` and the main of BENCHLEDGER_MAIN programs: the same flags, the same
// records, the same progress line and summary table. The run front-end (run_*.cpp,
// command_line.cpp, standard_output.cpp) is compiled into the library, since a user's benchmark
// program has no other front-end, and is the only part of it that prints.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include <benchledger/benchledger.hpp>

namespace benchledger::cli {

struct RunOptions {
  std::optional<std::string> ledger;
  std::optional<std::string> label;
  bool baseline = false;
  std::optional<std::string> filter;
  std::optional<int> repetitions;  // --repetitions, --runs
  std::optional<int> warmup;
  std::optional<double> min_time;
  std::optional<double> timeout;
  std::string format = "table";
  bool quiet = false;
  bool dry_run = false;
  // --artifacts: where a dry run keeps the profiles of --measure instructions (the gate's
  // profiling step reads them from there); a ledger keeps its own beside it.
  std::optional<std::string> artifacts;
  bool list = false;
  bool no_fork = false;
  std::vector<std::string> params;   // name=v1,v2
  std::optional<std::string> pg;     // --pg DSN (cli/run_postgres.hpp)
  std::vector<std::string> measure;  // --measure: time, instructions[:valgrind|:perf]
  // `benchledger run` only:
  std::vector<std::string> suites;
  std::vector<std::pair<std::string, std::string>> imports;  // format, file
  std::optional<std::string> map;      // --map: the mapping of --import ndjson and csv
  bool env_from_here = false;          // --import: this machine's environment, not the file's
  bool allow_partial = false;          // --import: keep a cut-short file's complete benchmarks
  std::optional<std::string> pgbench;  // --pgbench ARGS
  std::optional<std::string> name;
  std::optional<std::string> prepare, cleanup;
  bool shell = false;
  bool show_output = false;
  std::vector<std::string> command;
};

// Adds the flags to `app`. `native` leaves out what only `benchledger run` does (suites,
// commands, imports).
void add_run_options(CLI::App& app, RunOptions& options, bool native);

// What runs when the options name nothing: a program's own registry, or nothing (then the
// config file's `run` section).
struct RunContext {
  const Registry* native_registry = nullptr;
  std::optional<std::string> compiler, build_type;  // of the measured code, for env
  std::vector<std::string> argv;                    // as invoked, for the run record
  // Defines the bundled suite `name` into the registry, or throws Error: the suites are the
  // benchledger binary's (src/suites), not the library's. A BENCHLEDGER_MAIN program, which
  // runs its own registry, names no suite and leaves it empty.
  std::function<void(const std::string& name, Registry& registry)> define_suite;
};

// Runs, appends, prints. Returns 0 when every case was measured, 1 when a case failed;
// throws Error for usage and data errors.
int execute_run(const RunOptions& options, const RunContext& context);

}  // namespace benchledger::cli
