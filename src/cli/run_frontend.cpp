// `benchledger run` and BENCHLEDGER_MAIN: the flags, and execute_run, whose steps (check, plan,
// measure, append, print) are in run_steps.hpp; native_main, the main of BENCHLEDGER_MAIN.
#include "cli/run_frontend.hpp"

#include <algorithm>
#include <cstring>
#include <iostream>
#include <memory>
#include <tuple>

#include <fmt/format.h>

#include <benchledger/error.hpp>

#include "cli/command_line.hpp"
#include "cli/number_flag.hpp"
#include "cli/run_import.hpp"
#include "cli/run_postgres.hpp"
#include "cli/run_steps.hpp"
#include "engine/stop_signals.hpp"
#include "ledger/artifacts.hpp"
#include "model/redact.hpp"

namespace benchledger::cli {

void add_run_options(CLI::App& app, RunOptions& o, bool native) {
  app.add_option("--ledger", o.ledger,
                 "ledger URI (default: BENCHLEDGER_LEDGER, the config file, ledger/ledger.ndjson)");
  app.add_option("--label", o.label,
                 "label of the run: baseline, current, or [A-Za-z0-9._-]{1,64}");
  app.add_flag("--baseline", o.baseline, "the same as --label baseline");
  app.add_option("--filter", o.filter,
                 "run only the cases whose name (with params) matches this regex");
  // Separate flags, so that an error names the one given; both set the same count.
  CLI::Option* repetitions =
      app.add_option("--repetitions", o.repetitions,
                     "measured repetitions per native case (default 10); --runs for commands")
          ->check(in_range(model::k_runs_range));
  app.add_option("--runs", o.repetitions,
                 "measured runs per command (default 10); the same as --repetitions")
      ->check(in_range(model::k_runs_range))
      ->excludes(repetitions);
  app.add_option("--warmup", o.warmup,
                 "unmeasured repetitions (native) or runs (commands) first; default 1")
      ->check(in_range(model::k_warmup_range));
  app.add_option("--min-time", o.min_time,
                 "minimum seconds per repetition of a native case (default 0.01)")
      ->check(in_range(model::k_min_time_range));
  app.add_option("--timeout", o.timeout,
                 "seconds before a native case (default 600) or one run of a command is killed and "
                 "counted as failed")
      ->check(in_range(model::k_timeout_range));
  app.add_option("--format", o.format,
                 "table (a summary on stdout) or json (the records appended, NDJSON)")
      ->check(CLI::IsMember({"table", "json"}));
  app.add_flag("--quiet,-q", o.quiet, "no progress line and no warnings on stderr");
  app.add_flag("--dry-run", o.dry_run, "measure and print, append nothing");
  app.add_option("--artifacts", o.artifacts,
                 "with --dry-run: keep the profiles of --measure instructions in this directory, "
                 "each named by its SHA-256, which the printed results name");
  app.add_flag("--list", o.list, "list the cases that would run, measure nothing");
  app.add_flag("--no-fork", o.no_fork,
               "run native cases in this process (a crash ends the run; no timeout)");
  app.add_option("--param", o.params,
                 "name=v1,v2,...: the values of a param (commands: fills {name}; native: replaces "
                 "a declared param's values)")
      ->take_all()
      ->expected(1);
  app.add_option("--measure", o.measure,
                 "what to record, comma-separated: time (the default), instructions (counted under "
                 "Valgrind, or hardware counters where the kernel allows), instructions:valgrind, "
                 "instructions:perf")
      ->delimiter(',')
      ->take_all()
      ->expected(1);
  app.add_option("--pg", o.pg,
                 "PostgreSQL server to measure and record (libpq DSN or URI; default: "
                 "BENCHLEDGER_PG, the config file's \"pg\"); its password is never recorded");
  if (native) return;
  app.add_option("--suite", o.suites, "run a bundled suite: executors, sqlite, pipeline, postgres")
      ->take_all()
      ->expected(1);
  app.add_option("--import", o.imports,
                 "FORMAT FILE: record another harness's output (auto, google-benchmark, hyperfine, "
                 "pytest-benchmark, go-test, pyperf, catch2, asv, mitata, "
                 "criterion (a file or target/criterion), jmh, vitest, tinybench, "
                 "pgbench: its output and -l logs; ndjson, csv: a log of your own, read through "
                 "--map)")
      ->take_all();
  app.add_option("--map", o.map,
                 "--import ndjson or csv: KEY=SOURCE,... with SOURCE .FIELD or a literal, e.g. "
                 "bench=.name,value=.ms,unit=ms,params=.size (docs/import.md)");
  app.add_flag("--env-from-here", o.env_from_here,
               "--import: record this machine's environment, not the one the file states");
  app.add_flag("--allow-partial", o.allow_partial,
               "--import: of a file that ends before its tool's closing (a killed run's), record "
               "the benchmarks that are complete, with a warning naming what was left out");
  app.add_option("--pgbench", o.pgbench,
                 "\"ARGS\": run the installed pgbench against --pg for each --param clients=, "
                 "jobs=, scale= (initialising each scale once)");
  app.add_option("--name", o.name,
                 "the benchmark name of a command (default: the command as written)");
  app.add_option("--prepare", o.prepare, "shell command run before every run of a command");
  app.add_option("--cleanup", o.cleanup,
                 "shell command run after the last run of each param combination");
  app.add_flag("--shell", o.shell,
               "run the command through /bin/sh -c instead of executing it directly");
  app.add_flag("--show-output", o.show_output,
               "let the command's stdout and stderr through (default: stdout to /dev/null, "
               "stderr kept for a failed run's record)");
  app.add_option("command", o.command, "command to measure, after --: CMD ARGS...");
  app.positionals_at_end();
}

namespace {

// The run, then its results: the one batch a store appends all or nothing.
std::vector<Record> batch_of(const RunRecord& run, const std::vector<ResultRecord>& results) {
  std::vector<Record> batch;
  batch.emplace_back(run);
  for (const ResultRecord& r : results) batch.emplace_back(r);
  return batch;
}

// The profiles the results name, written beside the ledger before the records that name them
// are appended, so that no record names an artifact that is not there; a dry run's go to
// --artifacts when it names a directory. Where none can be kept (a dry run without --artifacts,
// a PostgreSQL ledger) the results name none.
void keep_profiles(const RunOptions& o, const ledger::Store* store, RunRecord& run,
                   Measured& measured) {
  if (measured.artifacts.empty()) return;
  const auto directory = o.artifacts ? std::optional<std::filesystem::path>(*o.artifacts)
                         : store     ? ledger::artifact_directory(store->uri())
                                     : std::nullopt;
  if (!directory) {
    for (ResultRecord& result : measured.results) result.header.extra.erase("profile");
    if (store) {
      run.warnings.push_back(
          "the functions' profiles of --measure instructions are not kept in a PostgreSQL "
          "ledger (docs/profiles.md); the counts are");
    }
    return;
  }
  for (const std::string& bytes : measured.artifacts) ledger::put_artifact(*directory, bytes);
}

// From the server to the append and the summary: what a stop signal interrupts.
int measure_and_append(const RunOptions& o, const RunRequest& request, const RunPlan& plan,
                       const RunContext& context, bool& appended) {
  MeasureSteps steps;
  steps.time = request.measure.time;
  steps.argv = context.argv;
  if (request.measure.instructions && !plan.jobs.empty() && o.imports.empty() && !o.pgbench) {
    const bool has_commands = std::any_of(plan.jobs.begin(), plan.jobs.end(), [](const Job& j) {
      return j.kind == Job::Kind::command;
    });
    steps.counter = engine::choose_counter(request.measure, has_commands);
  }
  const RunServer server = resolve_run_server(o.pg, plan.config, plan.needs_server);
  RunRecord run = new_run_record(request.label, plan.config, context, server.dsn, !o.quiet);
  Measured measured = o.pgbench            ? run_pgbench(o, request, *server.dsn, run)
                      : !o.imports.empty() ? import_results(o, run)
                                           : measure_jobs(o, plan.jobs, steps, run);
  // What is printed is what is kept: no credential in either (a store redacts again, for the
  // writers that do not come through here).
  model::redact_record(run);
  for (ResultRecord& result : measured.results) model::redact_record(result);
  engine::throw_if_stopped();  // a run stopped before its append appends nothing
  std::unique_ptr<ledger::Store> store;
  if (!o.dry_run) store = ledger::open_store(o.ledger.value_or(ledger::default_ledger_uri()));
  if (store && !o.imports.empty()) {
    // Kept with the run, so that compare and report show it too, not only this terminal. A
    // warning, not a refusal: one file as both sides is sometimes meant (a check that compare
    // calls identical results unchanged), and an invalidate note takes a run out later.
    for (std::string& warning : repeated_imports(run, *store))
      run.warnings.push_back(model::redact_secrets(warning));
  }
  keep_profiles(o, store.get(), run, measured);
  const std::vector<Record> batch = batch_of(run, measured.results);
  if (store) {
    store->append(batch);
    appended = true;
  }
  print_run(o, run, measured.results, batch, store.get(), !o.quiet);
  return measured.any_failed ? 1 : 0;
}

}  // namespace

int execute_run(const RunOptions& o, const RunContext& context) {
  const RunRequest request = check_options(o);
  const RunPlan plan = plan_run(o, request, context);
  if (const auto counted = engine::counted_case_request()) {
    // This process is the re-executed program that counts one native case (instructions.hpp).
    for (const Job& job : plan.jobs) {
      if (job.kind == Job::Kind::native && job.native.display_name() == *counted)
        return engine::run_counted_case(&job.native);
    }
    return engine::run_counted_case(nullptr);
  }
  if (o.list) {
    for (const Job& job : plan.jobs) std::cout << job.display << '\n';
    return 0;
  }
  if (plan.jobs.empty() && o.imports.empty() && !o.pgbench)
    throw Error("no case matches --filter " + o.filter.value_or(""));

  // A stop signal is passed on to the child running (a case, a command, pgbench, initdb); the
  // run stops the throwaway server and removes its folder and callgrind's on the way out.
  bool appended = false;
  return run_until_stopped(
      "run", [&] { return measure_and_append(o, request, plan, context, appended); },
      [&] {
        return std::string(appended ? "the run was appended" : "nothing was appended") +
               ", its temporary files removed";
      });
}

}  // namespace benchledger::cli

namespace benchledger {

int native_main(int argc, char** argv, const char* compiler, const char* build_type) {
  CLI::App app{"benchmarks of this program; the results are appended to a benchledger ledger"};
  cli::RunOptions options;
  cli::add_run_options(app, options, true);
  return cli::run_command_line(
      argv[0], app, [&] { app.parse(argc, argv); },
      [&] {
        cli::RunContext context;
        context.native_registry = &global_registry();
        context.compiler = compiler;
        context.build_type = build_type;
        context.argv.assign(argv, argv + argc);
        return cli::execute_run(options, context);
      });
}

}  // namespace benchledger
