// The middle of a run: its record with the environment captured before measuring, then each job
// measured by the engine (or another harness's results imported), their warnings kept in the run.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>
#include <benchledger/error.hpp>

#include "cli/run_import.hpp"
#include "cli/run_pgbench.hpp"
#include "cli/run_progress.hpp"
#include "cli/run_steps.hpp"
#include "engine/pgbench_runner.hpp"
#include "engine/records.hpp"
#include "engine/stop_signals.hpp"
#include "env/env.hpp"
#include "model/record_lines.hpp"
#include "model/redact.hpp"

namespace benchledger::cli {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::string> forwarded_flags(const RunOptions& o) {
  std::vector<std::string> flags;
  if (o.repetitions) flags.insert(flags.end(), {"--repetitions", std::to_string(*o.repetitions)});
  if (o.warmup) flags.insert(flags.end(), {"--warmup", std::to_string(*o.warmup)});
  if (o.min_time) flags.insert(flags.end(), {"--min-time", fmt::format("{}", *o.min_time)});
  if (o.timeout) flags.insert(flags.end(), {"--timeout", fmt::format("{}", *o.timeout)});
  if (o.filter) flags.insert(flags.end(), {"--filter", *o.filter});
  if (o.no_fork) flags.emplace_back("--no-fork");
  for (const std::string& m : o.measure) flags.insert(flags.end(), {"--measure", m});
  return flags;
}

// A case's counts added to its result (or, counted alone, its result); a count that failed
// fails the case.
template <class Case>
void add_counts(const Case& c, const std::string& display, const auto& counted,
                std::optional<ResultRecord> timed, RunRecord& run, Measured& measured) {
  if (counted.failure) {
    measured.any_failed = true;
    run.warnings.push_back(fmt::format("case {} failed counting instructions ({}): {}", display,
                                       counted.failure->kind, counted.failure->message));
    measured.results.push_back(
        engine::failed_result(run.header.id, c.bench, c.params, *counted.failure, 1, 1));
    return;
  }
  // Kept only where a result names it: a case whose timing failed records no counts.
  if (counted.counts->profile && (!timed || timed->primary != "failed"))
    measured.artifacts.push_back(*counted.counts->profile);
  if (!timed) {
    measured.results.push_back(
        engine::counted_result(run.header.id, c.bench, c.params, *counted.counts));
    return;
  }
  if (timed->primary != "failed") engine::add_instruction_metrics(*timed, *counted.counts);
  measured.results.push_back(std::move(*timed));
}

// Each measure_* returns the seconds the job took, for the progress line's estimate.
double measure_native(const RunOptions& o, const Job& job, const MeasureSteps& steps,
                      const engine::PhaseSink& sink, RunRecord& run, Measured& measured) {
  const auto start = Clock::now();
  std::optional<ResultRecord> timed;
  if (steps.time) {
    const bool json = o.format == "json";
    const engine::CaseOutcome outcome =
        o.no_fork ? engine::run_case_in_process(job.native, sink)
                  : engine::run_case_isolated(job.native, sink, json, STDERR_FILENO);
    timed = engine::native_result(run.header.id, job.native, outcome);
    if (outcome.failure) {
      measured.any_failed = true;
      run.warnings.push_back(fmt::format("case {} failed ({}): {}", job.display,
                                         outcome.failure->kind, outcome.failure->message));
    } else {
      for (const auto& w : outcome.measurement->warnings)
        run.warnings.push_back("case " + job.display + ": " + w);
    }
  }
  if (steps.counter) {
    if (sink) sink(engine::CasePhase{"counting", 0, 0, 0});
    add_counts(job.native, job.display,
               engine::count_native_case(job.native, steps.argv, *steps.counter), std::move(timed),
               run, measured);
  } else {
    measured.results.push_back(std::move(*timed));
  }
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double measure_command(const Job& job, const MeasureSteps& steps, const engine::PhaseSink& sink,
                       RunRecord& run, Measured& measured) {
  const auto start = Clock::now();
  std::optional<ResultRecord> timed;
  if (steps.time) {
    const engine::CommandOutcome outcome =
        engine::run_command_case(job.command, job.command_settings, sink);
    timed = engine::command_result(run.header.id, job.command, outcome);
    if (outcome.failure) {
      measured.any_failed = true;
      run.warnings.push_back(
          fmt::format("command {} failed: {}", job.display, outcome.failure->message));
    } else {
      for (const auto& w : outcome.measurement->warnings)
        run.warnings.push_back("command " + job.display + ": " + w);
    }
  }
  if (steps.counter) {
    if (sink) sink(engine::CasePhase{"counting", 0, 0, 0});
    const engine::CountedCommand counted = engine::count_command(job.command, job.command_settings);
    for (const std::string& w : counted.warnings)
      run.warnings.push_back("command " + job.display + " (counting instructions): " + w);
    add_counts(job.command, job.display, counted, std::move(timed), run, measured);
  } else {
    measured.results.push_back(std::move(*timed));
  }
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A BENCHLEDGER_MAIN program run whole, its records read from its --format json output.
double measure_binary(const RunOptions& o, const Job& job, RunRecord& run, Measured& measured) {
  const auto start = Clock::now();
  std::vector<std::string> argv = {job.binary, "--format", "json", "--dry-run", "--quiet"};
  for (const std::string& flag : forwarded_flags(o)) argv.push_back(flag);
  const engine::CapturedRun captured_run = engine::run_capturing_stdout(argv);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (!captured_run.exit_code || (*captured_run.exit_code != 0 && *captured_run.exit_code != 1)) {
    throw Error(job.binary + " failed (" +
                (captured_run.signal
                     ? "killed by signal " + std::to_string(*captured_run.signal)
                     : "exit status " + std::to_string(captured_run.exit_code.value_or(-1))) +
                "); run it by itself to see why");
  }
  for (Record& record : model::parse_record_lines(captured_run.output, job.binary)) {
    if (auto* r = std::get_if<ResultRecord>(&record)) {
      r->run = run.header.id;
      if (r->primary == "failed") measured.any_failed = true;
      measured.results.push_back(std::move(*r));
    } else if (auto* binary_run = std::get_if<RunRecord>(&record)) {
      for (const auto& w : binary_run->warnings) run.warnings.push_back(job.binary + ": " + w);
    }
  }
  return seconds;
}

// The environment's load average is read before measuring; a rise during the run, from
// other processes starting, is worth a warning too.
void warn_of_load_rise(RunRecord& run) {
  if (!run.env.load_avg || run.env.load_avg->empty()) return;
  double now[3] = {0, 0, 0};
  const double cpus =
      static_cast<double>(run.env.cpu.affinity.value_or(run.env.cpu.logical.value_or(1)));
  const double before = run.env.load_avg->front();
  if (::getloadavg(now, 3) >= 1 && now[0] > cpus && now[0] > before + 1) {
    run.warnings.push_back(fmt::format(
        "the 1-minute load average rose from {:.2f} to {:.2f} during the run, with {} CPUs "
        "available: other processes competed for the CPUs",
        before, now[0], cpus));
  }
}

// Results read or run elsewhere, bound to `run`, with their warnings.
void bind_results(import::ImportedResults imported, RunRecord& run, Measured& measured) {
  for (ResultRecord& r : imported.results) {
    r.run = run.header.id;
    measured.results.push_back(std::move(r));
  }
  run.warnings.insert(run.warnings.end(), imported.warnings.begin(), imported.warnings.end());
}

}  // namespace

RunRecord new_run_record(const std::optional<std::string>& label, const Config& config,
                         const RunContext& context, const std::optional<std::string>& postgres_dsn,
                         bool show_notes) {
  RunRecord run;
  run.header.id = new_ulid();
  run.header.time = now_rfc3339();
  run.header.prev = std::string(k_zero_hash);
  run.label = label;
  const std::filesystem::path root = project_root(std::filesystem::current_path());
  run.project = config.project.value_or(root.filename().string());
  const env::GitCapture git = env::capture_git_with_notes(root);
  run.git = git.git;
  env::CaptureOptions capture_options;
  capture_options.compiler = context.compiler;
  capture_options.build_type = context.build_type;
  capture_options.postgres_dsn = postgres_dsn;
  const env::Capture captured = env::capture_with_notes(capture_options);
  run.env = captured.env;
  if (postgres_dsn && !run.env.runtimes.postgres_server) {
    std::string reason;
    for (const std::string& note : captured.notes) {
      if (note.rfind("postgres: ", 0) == 0) reason = ": " + model::redact_secrets(note.substr(10));
    }
    throw Error("--pg " + model::redact_secrets(*postgres_dsn) + ": cannot ask the server" +
                reason + " (nothing was run)");
  }
  run.warnings = env::stability_warnings(run.env);
  run.command = model::redact_command(context.argv);  // a ledger keeps it for ever
  if (show_notes) {
    for (const std::string& note : git.notes)
      std::cerr << "note: " << model::redact_secrets(note) << '\n';
    for (const std::string& note : captured.notes)
      std::cerr << "note: " << model::redact_secrets(note) << '\n';
  }
  return run;
}

Measured import_results(const RunOptions& o, RunRecord& run) {
  Measured measured;
  const import::Partial partial =
      o.allow_partial ? import::Partial::keep_complete : import::Partial::refuse;
  if (o.imports.front().first == "pgbench") {
    run.source = "pgbench";
    bind_results(import_pgbench_files(o.imports, partial), run, measured);
  } else {
    measured.results =
        import_into_run(o.imports, o.map.value_or(""), run, o.env_from_here, o.quiet, partial);
  }
  return measured;
}

Measured run_pgbench(const RunOptions& o, const RunRequest& request, const std::string& dsn,
                     RunRecord& run) {
  run.source = "pgbench";
  Measured measured;
  ProgressLine progress(!o.quiet && ::isatty(STDERR_FILENO) == 1);
  bind_results(run_pgbench_scan(dsn, *o.pgbench, request.overrides,
                                o.timeout.value_or(engine::k_default_pgbench_timeout),
                                [&](std::size_t index, std::size_t total, const std::string& name) {
                                  progress.start_case(index, total, name);
                                }),
               run, measured);
  measured.any_failed = std::any_of(measured.results.begin(), measured.results.end(),
                                    [](const ResultRecord& r) { return r.primary == "failed"; });
  return measured;
}

Measured measure_jobs(const RunOptions& o, const std::vector<Job>& jobs, const MeasureSteps& steps,
                      RunRecord& run) {
  const bool has_native = std::any_of(jobs.begin(), jobs.end(),
                                      [](const Job& j) { return j.kind != Job::Kind::command; });
  run.source = has_native ? "native" : "command";
  Measured measured;
  {
    ProgressLine progress(!o.quiet && ::isatty(STDERR_FILENO) == 1);
    const engine::PhaseSink sink = [&progress](const engine::CasePhase& p) { progress.phase(p); };
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      // A stop signal ends the run between jobs: the job it interrupted is no result.
      engine::throw_if_stopped();
      const Job& job = jobs[i];
      progress.start_case(i, jobs.size(), job.display);
      double seconds = 0;
      switch (job.kind) {
        case Job::Kind::native:
          seconds = measure_native(o, job, steps, sink, run, measured);
          break;
        case Job::Kind::command:
          seconds = measure_command(job, steps, sink, run, measured);
          break;
        case Job::Kind::binary:
          seconds = measure_binary(o, job, run, measured);
          break;
      }
      progress.finish_case(seconds);
    }
    engine::throw_if_stopped();
  }
  if (!jobs.empty()) warn_of_load_rise(run);
  return measured;
}

}  // namespace benchledger::cli
