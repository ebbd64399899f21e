// `benchledger gate BASE_REV [HEAD_REV]` (bench-gate): the pre-merge gate in any git repository.
// src/gate builds and measures both revisions; this file stores the two runs, compares them
// as `compare` does and writes the comparison in every format to --out. Exit 0 when the gate
// passes, 1 when it fails, 2 when no comparison could be made (main turns Error into 2).
#include <unistd.h>
#include <cstdint>

#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <benchledger/error.hpp>
#include <benchledger/ledger.hpp>

#include "cli/compare_flags.hpp"
#include "cli/gate_judgement.hpp"
#include "cli/revision_steps.hpp"
#include "cli/subcommand.hpp"
#include "compare/comparison.hpp"
#include "compare/explain.hpp"
#include "gate/gate.hpp"
#include "gate/steps.hpp"
#include "gate/worktree.hpp"
#include "ledger/artifacts.hpp"
#include "ledger/series_filter.hpp"
#include "model/redact.hpp"
#include "report/compare_render.hpp"
#include "report/failure_render.hpp"
#include "report/format.hpp"

namespace benchledger::cli {
namespace {

// GitHub refuses a pull-request comment over 65,536 characters; the rest is room for the line
// that ci/gate.sh puts in front to find its comment again.
constexpr std::size_t k_comment_limit = 65000;

struct GateCliOptions {
  std::string base, head = "HEAD";
  std::string out = "benchledger-gate";
  std::optional<std::string> ledger;
  std::optional<int> rounds;
  std::optional<std::string> order;   // else duet when gate.duet, else interleaved
  std::optional<double> budget;       // seconds; else gate.budget
  std::optional<std::uint64_t> seed;  // of the pairs' order; else a fresh one
  std::optional<std::string> design;  // paired or pooled; else gate.design
  bool keep_worktrees = false;
  bool no_profile = false;           // no profiling step after the rounds
  std::vector<std::string> explain;  // cases to profile besides the regressed ones (globs)
  CompareFlags judging;
  const CLI::App* command = nullptr;  // which flags were given: they win over benchledger.json
};

bool given(const GateCliOptions& options, const char* flag) {
  return options.command != nullptr && options.command->count(flag) > 0;
}

// How a revision's benchledger.json and the command line judge the gate: a flag given wins over
// the gate section's option of the same name, which wins over the flag's default.
compare::CompareOptions gate_judging(const GateCliOptions& options, const Config& config) {
  CompareFlags flags = options.judging;
  const GateSpec& spec = *config.gate;
  const bool from_file_fail_on = !given(options, "--fail-on") && !spec.fail_on.empty();
  if (!given(options, "--metric") && !spec.metrics.empty()) flags.metrics = spec.metrics;
  if (from_file_fail_on) flags.fail_on = spec.fail_on;
  if (!given(options, "--allow-missing") && spec.allow_missing) {
    flags.allow_missing = *spec.allow_missing;
  }
  if (!given(options, "--threshold") && spec.threshold) flags.threshold = *spec.threshold;
  compare::CompareOptions judging;
  try {
    judging = compare_options_from(flags, config);
  } catch (const Error& e) {
    if (!from_file_fail_on) throw;
    throw Error(
        fmt::format("benchledger.json at {}: field \"gate.fail-on\": {}", options.head, e.what()));
  }
  if (!given(options, "--undecided") && spec.undecided_fails) {
    judging.undecided_fails = *spec.undecided_fails;
  }
  return judging;
}

std::string_view order_name(gate::Order order) {
  switch (order) {
    case gate::Order::duet:
      return "duet";
    case gate::Order::sequential:
      return "sequential";
    case gate::Order::interleaved:
      break;
  }
  return "interleaved";
}

bool paired_design(const GateCliOptions& options, const Config& config) {
  if (options.design) return *options.design == "paired";
  return config.gate->paired.value_or(true);
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw Error("cannot write " + path.string());
}

// A gate that made no comparison still writes its four outputs, so that CI posts why (the side,
// the step, the end of its output) where the author looks.
void write_gate_error(const std::filesystem::path& out, const Error& error) {
  // The message may quote a command or a configuration: the rule of every message and record.
  report::GateError what{model::redact_secrets(error.what()), std::nullopt};
  if (const auto* failed = dynamic_cast<const gate::StepFailed*>(&error)) {
    const gate::StepFailed::Step& step = failed->step();
    what.step = report::GateError::Step{step.side,    step.commit,  step.step,
                                        step.command, step.outcome, step.output};
  }
  write_file(out / "comparison.md",
             report::fit_comment(report::render_gate_error_markdown(what), k_comment_limit,
                                 "gate.log in the job's artifacts"));
  write_file(out / "comparison.json", report::render_gate_error_json(what));
  write_file(out / "comparison.xml", report::render_gate_error_junit(what));
  write_file(out / "comparison.txt", report::render_gate_error_text(what));
}

// The folders of gates killed outright (SIGKILL) before this one: removed, so that the prune
// before this gate's checkouts lets git forget their worktrees.
void remove_abandoned_worktrees(const std::filesystem::path& log) {
  for (const gate::AbandonedDirectory& left :
       gate::remove_abandoned_work_directories(WorkDirectory::parent(), "benchledger-gate-")) {
    const std::string line = fmt::format("removed {}, left by a gate that was killed (pid {})",
                                         left.path.string(), left.pid);
    std::cerr << "gate: " << line << '\n';
    gate::append_to_log(log, "== " + line);
  }
}

// --out, made if needed, without the outputs of an earlier gate: they must not pass for this
// one's if it stops early.
std::filesystem::path fresh_out(const std::string& option) {
  const std::filesystem::path out = std::filesystem::absolute(option);
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec) throw Error(fmt::format("cannot create --out {}: {}", out.string(), ec.message()));
  for (const char* name :
       {"comparison.md", "comparison.json", "comparison.xml", "comparison.txt", "gate.log"}) {
    remove_earlier_output(out / name);
  }
  return out;
}

// What the flags say of the measuring; the work folder and the judge are the caller's.
gate::GateSettings gate_settings(const GateCliOptions& options, const std::filesystem::path& out) {
  gate::GateSettings settings;
  settings.start = std::filesystem::current_path();
  settings.base_revision = options.base;
  settings.head_revision = options.head;
  std::error_code ec;
  settings.benchledger = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("cannot find this program's own path: " + ec.message());
  settings.rounds = options.rounds;
  settings.budget = options.budget;
  settings.seed = options.seed;
  if (options.order) {
    settings.order = *options.order == "sequential" ? gate::Order::sequential
                     : *options.order == "duet"     ? gate::Order::duet
                                                    : gate::Order::interleaved;
  }
  settings.keep_worktrees = options.keep_worktrees;
  settings.log = out / "gate.log";
  settings.command = own_arguments();
  settings.progress = [](const std::string& line) { std::cerr << "gate: " << line << std::endl; };
  // Both revisions' configurations are checked before anything is checked out (a base one that
  // fails is set aside with a warning): the entries, and the judging options (a wrong
  // gate.fail-on) that the first look would otherwise refuse.
  settings.check_config = [&options](const Config& config, const std::string& origin) {
    check_gate_run_entries(config, origin);
    std::ignore = gate_judging(options, config);
  };
  return settings;
}

// The case keys of what was measured that match one of --explain's globs.
std::set<std::string> asked_cases(const std::vector<std::string>& globs,
                                  const gate::GateMeasurement& measured) {
  std::set<std::string> keys;
  if (globs.empty()) return keys;
  for (const gate::PooledSide* side : {&measured.base, &measured.head}) {
    for (const ResultRecord& result : side->results) {
      if (ledger::case_matches(globs, result.bench, result.params))
        keys.insert(case_key(result.bench, result.params));
    }
  }
  return keys;
}

// Where the regressed (and asked-for) cases' instructions went, from the gate's profiling step:
// the section under its comparison, with every case it could not count and why; the files of
// the worktrees under `work` named by their path in the repository.
std::optional<compare::RegressionProfiles> gate_profiles(const gate::GateMeasurement& measured,
                                                         const compare::ComparisonReport& report,
                                                         const std::filesystem::path& work,
                                                         const std::filesystem::path& artifacts,
                                                         const std::set<std::string>& asked) {
  if (!measured.profiled) return std::nullopt;
  const gate::ProfiledCases& profiled = *measured.profiled;
  auto profiles = compare::explain_regressions(
      report,
      [&] {
        return std::pair{compare::ExplainedSide{profiled.base, artifacts},
                         compare::ExplainedSide{profiled.head, artifacts}};
      },
      asked);
  if (!profiles) return profiles;
  profiles->list_missing = true;
  profiles->note =
      "The gate counted each of these cases once more on both revisions under Valgrind's "
      "callgrind, after its rounds. A profile counts instructions, not time: what a change costs "
      "in I/O, in waiting (on locks, the disk, the network, other processes) or in the kernel is "
      "not in it, so a regression in time that the instructions do not show went there.";
  for (compare::CaseExplanation& c : profiles->explanation.cases) {
    const auto why = profiled.missing.find(case_key(c.bench, c.params));
    if (!c.diff && why != profiled.missing.end()) c.missing = why->second;
    if (!c.diff) continue;
    // The worktrees' files by their path in the repository: the worktrees are gone.
    for (profile::FunctionChange& f : c.diff->functions) {
      for (const char* side : {"base/", "head/"}) {
        const std::string prefix = (work / side).string();
        if (f.file && f.file->starts_with(prefix)) f.file = f.file->substr(prefix.size());
      }
    }
  }
  if (!profiles->unreadable.empty()) {
    std::cerr << "gate: warning: the profiles of the regressed cases cannot be read: "
              << profiles->unreadable << '\n';
  }
  return profiles;
}

// The two pooled runs appended to the gate's ledger, each result the profiling step counted
// naming its profile, kept beside the ledger as a run keeps its own (a PostgreSQL ledger keeps
// none), so that `benchledger explain base head` finds it later.
void append_pooled_runs(ledger::Store& store, const gate::GateMeasurement& measured,
                        const std::filesystem::path& artifacts) {
  const std::optional<std::filesystem::path> kept =
      measured.profiled ? ledger::artifact_directory(store.uri()) : std::nullopt;
  for (const auto& [side, profiled] :
       {std::pair{&measured.base, measured.profiled ? &measured.profiled->base : nullptr},
        std::pair{&measured.head, measured.profiled ? &measured.profiled->head : nullptr}}) {
    std::map<std::string, std::string> hashes;
    if (kept && profiled != nullptr) {
      for (const ResultRecord& counted : profiled->results) {
        if (const auto hash = ledger::profile_hash(counted))
          hashes.emplace(case_key(counted.bench, counted.params), *hash);
      }
    }
    std::vector<Record> batch;
    batch.emplace_back(side->run);
    for (ResultRecord result : side->results) {
      const auto hash = hashes.find(case_key(result.bench, result.params));
      if (hash != hashes.end() && result.primary != "failed") {
        ledger::put_artifact(*kept, ledger::read_artifact(artifacts, hash->second));
        result.header.extra["profile"] = hash->second;
      }
      batch.emplace_back(std::move(result));
    }
    store.append(batch);
  }
}

// The comparison in every form under --out, and as a table on standard output.
void write_gate_outputs(const std::filesystem::path& out, const compare::ComparisonReport& report,
                        const compare::RegressionProfiles* profiles) {
  write_file(out / "comparison.md",
             report::fit_comment(report::render_comparison_markdown(report, profiles),
                                 k_comment_limit, "comparison.md in the job's artifacts"));
  write_file(out / "comparison.json", report::render_comparison_json(report, profiles));
  write_file(out / "comparison.xml", report::render_comparison_junit(report));
  write_file(out / "comparison.txt", report::render_comparison_table(report, false, profiles));
  std::cout << report::render_comparison_table(report, use_colour(STDOUT_FILENO), profiles);
  std::cout.flush();
  if (!std::cout) throw Error("cannot write the comparison to standard output");
}

int run_gate(const GateCliOptions& options) {
  // Checks the flags before anything is checked out.
  std::ignore = compare_options_from(options.judging, Config{});
  const std::filesystem::path out = fresh_out(options.out);
  gate::GateSettings settings = gate_settings(options, out);
  remove_abandoned_worktrees(settings.log);
  const WorkDirectory work("gate", options.keep_worktrees);
  settings.work = work.path();
  if (options.keep_worktrees) {
    std::cerr << "gate: worktrees kept under " << settings.work.string() << '\n';
  }

  // Each look compares what was measured so far at its share of alpha (stats::look_level), so
  // that looking again as extra pairs come keeps the false alarms of the whole gate at alpha;
  // the cases it leaves inconclusive get more pairs. Base's configuration judges, the head's a
  // second time where it differs.
  GateJudgement judgement([&options](const Config& config, const gate::GateMeasurement& so_far) {
    compare::CompareOptions judging = gate_judging(options, config);
    if (paired_design(options, config)) judging.pairs = so_far.pairs;
    return judging;
  });
  settings.judge = [&judgement](const gate::GateMeasurement& so_far, int look) {
    return judgement.look(so_far, look);
  };
  // After the last look: the regressed cases, and those --explain asks for, counted once more
  // under callgrind on both sides for where their instructions went (docs/profiles.md).
  std::set<std::string> asked;
  settings.profiles = work.path() / "profiles";
  if (!options.no_profile) {
    settings.profile_cases = [&](const gate::GateMeasurement& measured) {
      asked = asked_cases(options.explain, measured);
      std::set<std::string> keys = compare::regressed_cases(judgement.report(measured));
      keys.insert(asked.begin(), asked.end());
      return keys;
    };
  }

  // The runs are appended to --ledger, or to the ledger under --out that other gates may share:
  // chosen (and that one verified) before minutes of measuring, never truncated or replaced.
  const std::unique_ptr<ledger::Store> store = open_gate_ledger(options.ledger, out);
  const gate::GateMeasurement measured = [&] {
    try {
      return gate::measure_revisions(settings);
    } catch (const gate::Stopped&) {
      throw;  // stopped on purpose: nothing to post
    } catch (const Error& e) {
      write_gate_error(out, e);
      throw;
    }
  }();

  append_pooled_runs(*store, measured, settings.profiles);

  compare::ComparisonReport report = judgement.report(measured);
  if (!measured.undecided.empty()) {
    report.warnings.push_back(fmt::format(
        "the budget of {:.0f} s for more rounds ended after {} rounds a side ({} planned) with {} "
        "undecided: set gate.budget or --budget for more",
        measured.budget, measured.rounds, measured.planned_rounds,
        report::plural(measured.undecided.size(), "case", "cases")));
  }

  for (const std::string& glob : options.explain) {
    if (asked_cases({glob}, measured).empty()) {
      report.warnings.push_back(fmt::format(
          "--explain {}: matches no case the gate measured, so none was profiled for it", glob));
    }
  }
  const auto profiles = gate_profiles(measured, report, settings.work, settings.profiles, asked);
  write_gate_outputs(out, report, profiles ? &*profiles : nullptr);
  std::cerr << fmt::format(
      "gate: {}: {} rounds a side ({} planned, {} {}), {}, {:.0f} s; runs {} (base) and {} (head) "
      "in {}; results in {}\n",
      compare::to_string(report.state), measured.rounds, measured.planned_rounds, measured.looks,
      measured.looks == 1 ? "look" : "looks", order_name(measured.order), measured.seconds,
      measured.base.run.header.id, measured.head.run.header.id, store->uri(), out.string());
  return report.gate_pass ? 0 : 1;
}

}  // namespace

Runner add_gate_command(CLI::App& app) {
  auto options = std::make_shared<GateCliOptions>();
  CLI::App* sub = app.add_subcommand(
      "gate",
      "build and measure two revisions of this git repository, interleaved, and gate on the "
      "comparison (exit 1 on failure)");
  sub->add_option("BASE_REV", options->base, "the base revision (a branch, tag or commit)")
      ->required();
  sub->add_option("HEAD_REV", options->head, "the revision judged")->default_str("HEAD");
  sub->add_option("--out", options->out,
                  "directory for comparison.md/.json/.xml/.txt, gate.log and the ledger")
      ->default_str("benchledger-gate");
  sub->add_option(
      "--ledger", options->ledger,
      "append the two runs to this ledger (default: ledger.ndjson in --out, appended to)");
  sub->add_option(
         "--rounds", options->rounds,
         "rounds a side before the first look (default: gate.rounds of benchledger.json, else 10)")
      ->check(CLI::Range(1, 1000));
  sub->add_option("--order", options->order,
                  "interleaved (pairs of base and head, each in random order), duet (both at "
                  "once, each on half of the CPUs) or sequential (every base round first; for "
                  "contrast only) "
                  "(default: duet when gate.duet is true, else interleaved)")
      ->check(CLI::IsMember({"interleaved", "duet", "sequential"}));
  sub->add_option("--budget", options->budget,
                  "seconds of extra rounds for cases still undecided after the planned ones, 0 "
                  "for none (default: gate.budget, else three times what the planned rounds took)")
      ->check(CLI::Range(0.0, 7.0 * 24 * 3600));
  sub->add_option("--seed", options->seed,
                  "the seed of the pairs' random order, to repeat a gate's order (gate.log names "
                  "each gate's)");
  sub->add_option("--design", options->design,
                  "paired (the signed-rank test of the rounds' pairs) or pooled (the two-sample "
                  "test of all samples) (default: gate.design, else paired)")
      ->check(CLI::IsMember({"paired", "pooled"}));
  sub->add_flag("--keep-worktrees", options->keep_worktrees,
                "keep the checked-out and built revisions (their path is printed)");
  CLI::Option* no_profile =
      sub->add_flag("--no-profile", options->no_profile,
                    "no profiling step: the regressed cases are not counted again under "
                    "callgrind for where their instructions went");
  sub->add_option("--explain", options->explain,
                  "CASE glob: profile these cases too, regressed or not (repeatable)")
      ->take_all()
      ->expected(1)
      ->excludes(no_profile);
  add_compare_flags(*sub, options->judging);
  options->command = sub;
  sub->footer(
      "reads \"gate\": {\"build\": ..., \"run\": [...]} from BASE_REV's benchledger.json "
      "(HEAD_REV's\n"
      "when BASE_REV has none); HEAD_REV's may add run entries and a second judgement;\n"
      "docs/ci-gate.md describes the section, the rounds and the CI templates.");
  return [options]() -> int { return run_stoppable("gate", [&] { return run_gate(*options); }); };
}

}  // namespace benchledger::cli
