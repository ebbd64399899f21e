// The steps of execute_run (run_frontend.cpp), each in its own file: check the options and plan
// the cases (run_plan.cpp), measure them or import another harness's results (run_measure.cpp,
// with the progress line of run_progress.hpp), then print what was appended (run_print.cpp).
#pragma once

#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include <benchledger/config.hpp>
#include <benchledger/ledger.hpp>
#include <benchledger/record.hpp>

#include "cli/run_frontend.hpp"
#include "engine/command.hpp"
#include "engine/instructions.hpp"
#include "engine/native.hpp"

namespace benchledger::cli {

// ---- check and plan (run_plan.cpp)

// The options, checked: what the flags ask beyond their own ranges, which CLI11 checks.
struct RunRequest {
  std::optional<std::string> label;
  std::optional<std::regex> filter;
  engine::ParamOverrides overrides;
  engine::RunSettings settings;
  engine::MeasureRequest measure;  // --measure
};
// Throws Error naming the flag for a label, filter or --param that is wrong or contradictory.
RunRequest check_options(const RunOptions& options);

// One case to measure: a native case (the program's own or a bundled suite's), one param
// combination of a command, or a BENCHLEDGER_MAIN program of the config file run as a whole.
struct Job {
  enum class Kind { native, command, binary } kind = Kind::native;
  engine::NativeCase native;
  engine::CommandCase command;
  engine::CommandSettings command_settings;
  std::string binary;
  std::string display;
};

struct RunPlan {
  Config config;
  std::vector<std::unique_ptr<Registry>> registries;  // the bundled suites' cases point into them
  std::vector<Job> jobs;                              // in the order they run
  bool needs_server = false;  // the postgres suite or --pgbench: a PostgreSQL server to measure
};
// The jobs the options name, or the config file's `run` section when they name nothing. Throws
// Error when nothing is named anywhere, for an unknown suite, and for flags that apply to
// nothing in the plan.
RunPlan plan_run(const RunOptions& options, const RunRequest& request, const RunContext& context);

// ---- measure (run_measure.cpp)

// A new run record, its environment captured now (with the server's version and settings when
// `postgres_dsn` names one; Error when that server cannot be asked); the capture's notes go to
// stderr when `show_notes`.
RunRecord new_run_record(const std::optional<std::string>& label, const Config& config,
                         const RunContext& context, const std::optional<std::string>& postgres_dsn,
                         bool show_notes);

struct Measured {
  std::vector<ResultRecord> results;
  bool any_failed = false;  // a case failed: the run exits 1
  // The bytes of the profiles the results name (their `profile`), to be kept beside the ledger.
  std::vector<std::string> artifacts;
};
// What measure_jobs measures: time unless --measure leaves it out, instructions with `counter`
// when it is set; `argv` is the program's, for re-executing it to count a native case.
struct MeasureSteps {
  bool time = true;
  std::optional<engine::Counter> counter;
  std::vector<std::string> argv;
};
// Measures the jobs in order, with the progress line on a terminal; their warnings, and one for
// a load average that rose while they ran, go into `run`, as does its source.
Measured measure_jobs(const RunOptions& options, const std::vector<Job>& jobs,
                      const MeasureSteps& steps, RunRecord& run);
// Another harness's results (--import FORMAT FILE, all of one format) as the results of `run`.
Measured import_results(const RunOptions& options, RunRecord& run);
// pgbench's runs against `dsn` (--pgbench ARGS, scanned over the --param values) as the results
// of `run`.
Measured run_pgbench(const RunOptions& options, const RunRequest& request, const std::string& dsn,
                     RunRecord& run);

// ---- print (run_print.cpp)

// The table of results on stdout: a row per case, the params that vary within its bench.
void print_summary(const std::vector<ResultRecord>& results);
// What a run appended (`batch`: the run, then its results): with --format json the records as
// the store holds them (`store`, null for a dry run), else the summary and the line saying where
// they went; then the run's warnings on stderr when `show_warnings`.
void print_run(const RunOptions& options, const RunRecord& run,
               const std::vector<ResultRecord>& results, const std::vector<Record>& batch,
               const ledger::Store* store, bool show_warnings);

}  // namespace benchledger::cli
