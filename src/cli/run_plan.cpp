// The first steps of a run: check what the flags ask, then list the cases to measure, from the
// flags or from the config file's `run` section.
#include <algorithm>
#include <set>
#include <sstream>

#include <benchledger/error.hpp>

#include "cli/run_steps.hpp"
#include "engine/pgbench_runner.hpp"
#include "model/redact.hpp"

namespace benchledger::cli {
namespace {

engine::ParamOverrides parse_params(const std::vector<std::string>& texts) {
  engine::ParamOverrides overrides;
  for (const std::string& text : texts) {
    const std::size_t equals = text.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw Error("--param \"" + model::redact_secrets(text) + "\": expected name=v1,v2,...");
    }
    const std::string name = text.substr(0, equals);
    std::vector<std::string> values;
    std::stringstream rest(text.substr(equals + 1));
    std::string value;
    while (std::getline(rest, value, ',')) values.push_back(value);
    if (values.empty() ||
        std::any_of(values.begin(), values.end(), [](const std::string& v) { return v.empty(); })) {
      throw Error("--param " + name + ": empty value in \"" + model::redact_secrets(text) + "\"");
    }
    if (values.size() > 1 && model::is_secret_name(name)) {
      // Its values are recorded as "***" (model/redact.hpp): the cases could not be told apart.
      throw Error("--param " + name +
                  ": a name that looks secret has its values recorded as *** and its cases could "
                  "not be told apart: give the param another name");
    }
    for (const auto& [existing, unused] : overrides) {
      if (existing == name) throw Error("--param " + name + " is given twice");
    }
    overrides.emplace_back(name, values);
  }
  return overrides;
}

bool valid_label(const std::string& label) {
  static const std::regex pattern("[A-Za-z0-9._-]{1,64}");
  return std::regex_match(label, pattern);
}

// What the plan's jobs come from besides a program's own registry.
struct Sources {
  std::vector<std::string> suite_names;
  std::vector<engine::CommandSpec> command_specs;
  std::vector<engine::CommandSettings> command_settings;  // one per command spec
  std::vector<std::string> binaries;
};

// The config file's `run` section, for a run whose options name nothing.
Sources config_sources(const RunOptions& o, const Config& config) {
  Sources sources;
  sources.suite_names = config.suites;
  sources.binaries = config.binaries;
  for (const CommandSpec& spec : config.commands) {
    engine::CommandSpec s;
    s.name = spec.name;
    s.command = spec.command;
    sources.command_specs.push_back(s);
    engine::CommandSettings cs;
    cs.runs = o.repetitions.value_or(spec.runs.value_or(engine::k_default_repetitions));
    cs.warmup = o.warmup.value_or(spec.warmup.value_or(engine::k_default_warmup));
    cs.timeout = o.timeout;
    sources.command_settings.push_back(cs);
  }
  if (sources.suite_names.empty() && sources.binaries.empty() && sources.command_specs.empty()) {
    throw Error(
        "nothing to run: give --suite NAME, a command after --, --import FORMAT FILE, or a "
        "\"run\" "
        "section in benchledger.json");
  }
  return sources;
}

// The command given after --, first among the command specs.
void add_command_source(const RunOptions& o, Sources& sources) {
  if (o.command.empty()) {
    if (o.name || o.prepare || o.cleanup || o.shell)
      throw Error("--name, --prepare, --cleanup and --shell apply to a command given after --");
    return;
  }
  engine::CommandSpec spec;
  spec.name = o.name;
  spec.command = o.command;
  spec.shell = o.shell;
  spec.prepare = o.prepare;
  spec.cleanup = o.cleanup;
  sources.command_specs.insert(sources.command_specs.begin(), spec);
  engine::CommandSettings cs;
  cs.runs = o.repetitions.value_or(engine::k_default_repetitions);
  cs.warmup = o.warmup.value_or(engine::k_default_warmup);
  cs.timeout = o.timeout;
  sources.command_settings.insert(sources.command_settings.begin(), cs);
}

void add_native_jobs(std::vector<engine::NativeCase> cases, std::vector<Job>& jobs) {
  for (auto& c : cases) {
    Job job;
    job.kind = Job::Kind::native;
    job.display = c.display_name();
    job.native = std::move(c);
    jobs.push_back(std::move(job));
  }
}

// The bundled suites' cases, from one registry that the plan keeps.
void add_suite_jobs(const RunOptions& o, const RunRequest& request, const RunContext& context,
                    const std::vector<std::string>& suite_names, RunPlan& plan) {
  auto combined = std::make_unique<Registry>();
  std::set<std::string> added;
  for (const std::string& name : suite_names) {
    // Only the benchledger binary runs suites; a BENCHLEDGER_MAIN program names none.
    if (added.insert(name).second) context.define_suite(name, *combined);
  }
  if (!combined->benchmarks().empty()) {
    add_native_jobs(
        engine::expand_cases(*combined, "", request.settings,
                             o.command.empty() ? request.overrides : engine::ParamOverrides{},
                             request.filter),
        plan.jobs);
  }
  plan.registries.push_back(std::move(combined));
}

void add_command_jobs(const RunOptions& o, const RunRequest& request, const Sources& sources,
                      bool from_config, const Config& config, std::vector<Job>& jobs) {
  for (std::size_t i = 0; i < sources.command_specs.size(); ++i) {
    engine::ParamOverrides params =
        i == 0 && !o.command.empty() ? request.overrides : engine::ParamOverrides{};
    if (from_config) {
      for (const auto& [name, values] : config.commands[i].params)
        params.emplace_back(name, values);
    }
    for (auto& c : engine::expand_command(sources.command_specs[i], params, request.filter)) {
      Job job;
      job.kind = Job::Kind::command;
      job.display = c.display_name();
      job.command = std::move(c);
      job.command_settings = sources.command_settings[i];
      job.command_settings.show_output = o.show_output;
      jobs.push_back(std::move(job));
    }
  }
}

}  // namespace

RunRequest check_options(const RunOptions& o) {
  RunRequest request;
  request.label = o.label;
  if (o.baseline) {
    if (request.label && *request.label != "baseline")
      throw Error("--baseline and --label " + *request.label + " contradict each other");
    request.label = "baseline";
  }
  if (request.label && !valid_label(*request.label)) {
    throw Error("--label \"" + *request.label + "\": expected 1 to 64 of A-Z a-z 0-9 . _ -");
  }
  if (o.filter) {
    try {
      request.filter = std::regex(*o.filter);
    } catch (const std::regex_error& e) {
      throw Error("--filter \"" + *o.filter + "\": not a regular expression: " + e.what());
    }
  }
  if (o.artifacts && !o.dry_run) {
    throw Error(
        "--artifacts keeps the profiles of a --dry-run; a ledger keeps its own beside it "
        "(docs/profiles.md)");
  }
  request.overrides = parse_params(o.params);
  // Refused here, before a server is started for it; the run splits them again.
  if (o.pgbench) static_cast<void>(engine::split_pgbench_args(*o.pgbench));
  request.measure = engine::parse_measure(o.measure);
  if (request.measure.instructions && (!o.imports.empty() || o.pgbench)) {
    throw Error(
        "--measure instructions counts native cases and commands, not --import or "
        "--pgbench");
  }
  request.settings.repetitions = o.repetitions;
  request.settings.warmup = o.warmup;
  request.settings.min_time = o.min_time;
  request.settings.timeout = o.timeout;
  if (!o.command.empty() && !o.suites.empty() && !request.overrides.empty()) {
    throw Error("--param applies to the command or to the suites, not both: run them separately");
  }
  return request;
}

RunPlan plan_run(const RunOptions& o, const RunRequest& request, const RunContext& context) {
  RunPlan plan;
  plan.config = load_default_config();
  const bool nothing_named = o.suites.empty() && o.command.empty() && o.imports.empty() &&
                             !o.pgbench && context.native_registry == nullptr;
  if (o.pgbench && (!o.suites.empty() || !o.command.empty() || !o.imports.empty()))
    throw Error("--pgbench records pgbench's runs as a run of its own: run it separately");
  if (o.map && o.imports.empty())
    throw Error("--map says how to read --import ndjson or csv FILE: give the file");
  if (o.allow_partial && o.imports.empty())
    throw Error("--allow-partial is for --import FORMAT FILE: give the file");
  Sources sources = nothing_named ? config_sources(o, plan.config) : Sources{o.suites, {}, {}, {}};
  if (context.native_registry != nullptr) {
    add_native_jobs(engine::expand_cases(*context.native_registry, "", request.settings,
                                         request.overrides, request.filter),
                    plan.jobs);
  }
  add_suite_jobs(o, request, context, sources.suite_names, plan);
  add_command_source(o, sources);
  add_command_jobs(o, request, sources, nothing_named, plan.config, plan.jobs);
  for (const std::string& binary : sources.binaries) {
    Job job;
    job.kind = Job::Kind::binary;
    job.binary = binary;
    job.display = binary;
    plan.jobs.push_back(std::move(job));
  }
  plan.needs_server =
      o.pgbench.has_value() || std::find(sources.suite_names.begin(), sources.suite_names.end(),
                                         "postgres") != sources.suite_names.end();
  const bool overrides_taken = context.native_registry != nullptr || !o.command.empty() ||
                               o.pgbench || (!sources.suite_names.empty() && o.command.empty());
  if (!request.overrides.empty() && !overrides_taken)
    throw Error("--param: nothing in this run takes params");
  if (!o.imports.empty() && !plan.jobs.empty()) {
    throw Error(
        "--import records another harness's results as a run of its own; it cannot be combined "
        "with "
        "measuring");
  }
  return plan;
}

}  // namespace benchledger::cli
