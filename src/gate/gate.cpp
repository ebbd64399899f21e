#include "gate/gate.hpp"

#include <sched.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <exception>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <random>
#include <system_error>
#include <thread>

#include <fmt/format.h>
#include <benchledger/error.hpp>

#include "gate/run_entries.hpp"
#include "gate/steps.hpp"
#include "gate/worktree.hpp"
#include "model/config_text.hpp"
#include "model/failure.hpp"
#include "model/output_tail.hpp"
#include "model/redact.hpp"
#include "process/process.hpp"
#include "stats/sequential.hpp"

namespace benchledger::gate {
namespace {

struct SideState {
  std::string name;  // base or head
  std::string commit;
  std::unique_ptr<Worktree> worktree;
  std::vector<MeasuredRound> rounds;
};

std::vector<Round> rounds_of(const SideState& side) {
  std::vector<Round> out;
  out.reserve(side.rounds.size());
  for (const MeasuredRound& measured : side.rounds) out.push_back(measured.data);
  return out;
}

// The CPUs this process may run on, split in two halves for a duet's two sides. Throws Error
// with fewer than two.
std::array<std::vector<int>, 2> cpu_halves() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
    throw Error(fmt::format("a duet cannot read the CPUs it may use: {}", std::strerror(errno)));
  }
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &allowed)) cpus.push_back(cpu);
  }
  if (cpus.size() < 2) {
    throw Error(fmt::format(
        "a duet runs base and head at the same time on CPUs of their own, and this process may "
        "use {} CPU: use the default order (interleaved) here",
        cpus.size()));
  }
  const auto middle = cpus.begin() + static_cast<std::ptrdiff_t>(cpus.size() / 2);
  return {std::vector<int>(cpus.begin(), middle), std::vector<int>(middle, cpus.end())};
}

std::string short_commit(const std::string& commit) {
  return commit.substr(0, 12);
}

// What one step wrote to stdout (unless captured) and stderr, kept apart from the gate's other
// lines so that a failure quotes the step's own output, then added to the log in one piece (a
// duet's two sides run steps at the same time).
struct StepRun {
  ProcessResult result;
  std::string output;
};

std::mutex g_log_mutex;

StepRun run_step(process::Executor& executor, const std::vector<std::string>& argv,
                 const SideState& side, bool capture_stdout, const std::vector<int>& cpus,
                 const GateSettings& settings) {
  const std::filesystem::path own_log = settings.work / (side.name + "-step.log");
  std::error_code ignored;
  std::filesystem::remove(own_log, ignored);
  StepRun step;
  step.result = run_process(executor, argv, side.worktree->path(), own_log, capture_stdout, cpus);
  {
    std::ifstream in(own_log, std::ios::binary);
    step.output.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::filesystem::remove(own_log, ignored);
  const std::lock_guard lock(g_log_mutex);
  std::ofstream log(settings.log, std::ios::app | std::ios::binary);
  log << step.output;
  if (!step.output.empty() && step.output.back() != '\n') log << '\n';
  if (!log) throw Error("cannot write the gate's log " + settings.log.string());
  return step;
}

void log_line(const GateSettings& settings, const std::string& line) {
  const std::lock_guard lock(g_log_mutex);
  append_to_log(settings.log, line);
}

// A step's failure: the message (`subject` failed …) quotes the step's own output, never the
// gate's lines before it.
StepFailed step_failed(const SideState& side, const std::string& step, const std::string& subject,
                       const std::string& command, const StepRun& done,
                       const GateSettings& settings) {
  StepFailed::Step failed{side.name,
                          side.commit,
                          step,
                          model::redact_secrets(command),
                          done.result.describe(),
                          model::output_tail(done.output)};
  std::string quoted;
  for (std::size_t at = 0; at < failed.output.size();) {
    std::size_t end = failed.output.find('\n', at);
    if (end == std::string::npos) end = failed.output.size();
    quoted += "  " + failed.output.substr(at, end - at) + "\n";
    at = end + 1;
  }
  const std::string message =
      failed.output.empty()
          ? fmt::format("{} failed ({}) and printed nothing (the gate's log: {})", subject,
                        failed.outcome, settings.log.string())
          : fmt::format("{} failed ({}); the end of its output:\n{}(all of it in {})", subject,
                        failed.outcome, quoted, settings.log.string());
  return StepFailed(message, std::move(failed));
}

void run_shell_step(process::Executor& executor, const SideState& side, const std::string& what,
                    const std::string& command, const GateSettings& settings) {
  log_line(settings, fmt::format("== {} of {} ({}): {}", what, side.name, short_commit(side.commit),
                                 command));
  const StepRun done = run_step(executor, {"/bin/sh", "-c", command}, side, false, {}, settings);
  throw_if_stopped();
  if (!done.result.ok()) {
    StepFailed failed = step_failed(
        side, what, fmt::format("the {} of {} ({})", what, side.name, short_commit(side.commit)),
        command, done, settings);
    if (what == "build") throw BuildFailed(failed.what(), failed.step());
    throw failed;
  }
}

// The failed cases of a round, each with the last lines of its stderr, in the log: a comparison
// shows only the first round's failure of each case.
void log_failed_cases(const Round& round, const std::string& what, const GateSettings& settings) {
  for (const ResultRecord& result : round.results) {
    const auto failure = model::failure_of(result);
    if (!failure) continue;
    std::string text =
        fmt::format("== {}: {} failed ({})", what,
                    result.params.empty() ? result.bench : case_key(result.bench, result.params),
                    model::describe(*failure));
    if (failure->output.empty()) {
      text += "; it wrote nothing to stderr";
    } else {
      text += "; the end of its stderr:";
      for (std::size_t at = 0; at < failure->output.size();) {
        std::size_t end = failure->output.find('\n', at);
        if (end == std::string::npos) end = failure->output.size();
        text += "\n  " + failure->output.substr(at, end - at);
        at = end + 1;
      }
    }
    log_line(settings, text);
  }
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words) out += (out.empty() ? "" : " ") + word;
  return out;
}

}  // namespace

namespace {

// The text of benchledger.json at `commit`, read with `git cat-file` (nothing checked out);
// nothing when the commit has none.
std::optional<std::string> config_text_at(process::Executor& executor,
                                          const std::filesystem::path& repository,
                                          const std::string& commit, const std::string& revision,
                                          const std::filesystem::path& log) {
  const std::string object = commit + ":benchledger.json";
  append_to_log(log, "$ git cat-file blob " + object);
  if (!run_process(executor, {"git", "cat-file", "-e", object}, repository, log, true).ok())
    return std::nullopt;
  const ProcessResult read =
      run_process(executor, {"git", "cat-file", "blob", object}, repository, log, true);
  if (!read.ok()) {
    throw Error(
        fmt::format("cannot read benchledger.json at {} ({}): git cat-file {} (the gate's "
                    "log: {})",
                    revision, short_commit(commit), read.describe(), log.string()));
  }
  return read.output;
}

// BASE_REV's benchledger.json when it has a `gate` section that `check_config` accepts: the
// configuration that judges the change. Nothing when it has none (the change that adds the gate),
// and then HEAD_REV's judges; nor when it cannot be read or checked, with a warning: a broken file
// at the base must not block the change that mends it.
std::optional<Config> base_gate_config(process::Executor& executor,
                                       const std::filesystem::path& repository,
                                       const std::string& commit, const std::string& revision,
                                       const GateSettings& settings,
                                       std::vector<std::string>& warnings) {
  const std::string origin = "benchledger.json at " + revision;
  try {
    const std::optional<std::string> text =
        config_text_at(executor, repository, commit, revision, settings.log);
    if (!text) return std::nullopt;
    Config config = model::parse_config(*text, origin);
    if (!config.gate) return std::nullopt;
    if (settings.check_config) settings.check_config(config, origin);
    return config;
  } catch (const Error& e) {
    warnings.push_back(fmt::format(
        "the base's benchledger.json cannot be used ({}): the head's configuration judges alone",
        e.what()));
    return std::nullopt;
  }
}

}  // namespace

Config gate_config_at(process::Executor& executor, const std::filesystem::path& repository,
                      const std::string& commit, const std::string& revision,
                      const std::filesystem::path& log) {
  const std::string origin = "benchledger.json at " + revision;
  const std::optional<std::string> text =
      config_text_at(executor, repository, commit, revision, log);
  if (!text) {
    throw Error(fmt::format(
        "{} ({}) has no benchledger.json: the gate reads its \"gate\" section (build and run) "
        "from the head revision's benchledger.json at the repository root",
        revision, short_commit(commit)));
  }
  Config config = model::parse_config(*text, origin);
  if (!config.gate) {
    throw Error(fmt::format(
        "{} has no \"gate\" section: add \"gate\": {{\"build\": \"...\", \"run\": [\"...\"]}} "
        "(docs/ci-gate.md)",
        origin));
  }
  return config;
}

namespace {

// A seed for the pairs' order, from the system's entropy.
std::uint64_t fresh_seed() {
  std::random_device device;
  return (std::uint64_t{device()} << 32) | device();
}

// [entry][round]: the arguments of each gate.run entry's share in each round.
using RoundPlan = std::vector<std::vector<std::vector<std::string>>>;

// One gate from its sides' commits to its last look. Each phase is a member; what they measured
// is in `m_out`.
class GateRun {
 public:
  explicit GateRun(const GateSettings& settings)
      : m_settings(settings),
        m_executor(settings.executor != nullptr ? *settings.executor : m_system) {}

  GateMeasurement run() {
    const std::filesystem::path repository =
        repository_root(m_executor, m_settings.start, m_settings.log);
    m_base = {"base",
              resolve_commit(m_executor, repository, m_settings.base_revision, m_settings.log),
              {},
              {}};
    m_head = {"head",
              resolve_commit(m_executor, repository, m_settings.head_revision, m_settings.log),
              {},
              {}};
    say(fmt::format("base = {} ({}), head = {} ({})", short_commit(m_base.commit),
                    m_settings.base_revision, short_commit(m_head.commit),
                    m_settings.head_revision));
    throw_if_stopped();
    m_out.base_commit = m_base.commit;
    m_out.head_commit = m_head.commit;
    // Everything the configuration decides is checked before anything is checked out or built.
    read_configuration(repository);
    plan_rounds();
    // A duet needs its CPU sets before anything is built.
    if (m_out.order == Order::duet) m_halves = cpu_halves();
    check_out_and_build(repository);

    const std::uint64_t seed = m_settings.seed.value_or(fresh_seed());
    m_order.seed(seed);
    if (m_out.order == Order::interleaved) {
      log_line(m_settings, fmt::format("== each pair in random order, seed {} (--seed {} repeats "
                                       "the order)",
                                       seed, seed));
    }
    m_started_ns = m_executor.now_ns();
    planned_rounds();
    const double planned_seconds = elapsed();
    m_out.rounds = m_out.planned_rounds;
    snapshot();
    if (m_settings.judge) extra_pairs(planned_seconds);
    if (m_settings.profile_cases) profile_step(m_settings.profile_cases(m_out));
    return std::move(m_out);
  }

 private:
  void say(const std::string& line) {
    const std::lock_guard lock(m_say_mutex);  // a duet's two sides report from two threads
    if (m_settings.progress) m_settings.progress(line);
  }

  void warn(const std::string& warning) {
    std::vector<std::string>& warnings = m_out.warnings;
    if (std::find(warnings.begin(), warnings.end(), warning) == warnings.end())
      warnings.push_back(warning);
  }

  // Seconds since the planned rounds started, on the executor's clock.
  double elapsed() { return static_cast<double>(m_executor.now_ns() - m_started_ns) / 1e9; }

  // The change under review must not decide its own gate: base's section builds, measures and
  // judges; the head's only adds entries and a second judgement (docs/ci-gate.md).
  void read_configuration(const std::filesystem::path& repository) {
    m_head_origin = "benchledger.json at " + m_settings.head_revision;
    Config head_file = gate_config_at(m_executor, repository, m_head.commit,
                                      m_settings.head_revision, m_settings.log);
    if (m_settings.check_config) m_settings.check_config(head_file, m_head_origin);
    m_origin = m_head_origin;  // the file whose entries base's rounds run
    if (std::optional<Config> base_file =
            base_gate_config(m_executor, repository, m_base.commit, m_settings.base_revision,
                             m_settings, m_out.warnings)) {
      m_origin = "benchledger.json at " + m_settings.base_revision;
      m_out.config = std::move(*base_file);
      m_out.head_config = std::move(head_file);
    } else {
      m_out.config = std::move(head_file);
    }
    const GateSpec& spec = *m_out.config.gate;
    m_run_list = run_entries(spec, m_out.head_config ? &*m_out.head_config->gate : nullptr);
    m_out.order =
        m_settings.order.value_or(spec.duet.value_or(false) ? Order::duet : Order::interleaved);
  }

  // Each entry's arguments split into its rounds' shares; the plan is as long as the longest.
  void plan_rounds() {
    const GateSpec& spec = *m_out.config.gate;
    const int wanted = m_settings.rounds.value_or(spec.rounds.value_or(k_default_rounds));
    for (std::size_t i = 0; i < m_run_list.size(); ++i) {
      try {
        m_plan.push_back(round_arguments(m_run_list[i].words, wanted));
      } catch (const Error& e) {
        throw Error(fmt::format("{}: field \"gate.run[{}]\" \"{}\": {}",
                                m_run_list[i].head_only ? m_head_origin : m_origin, i,
                                m_run_list[i].text, e.what()));
      }
      m_round_count = std::max(m_round_count, m_plan.back().size());
    }
    m_out.planned_rounds = static_cast<int>(m_round_count);
  }

  void check_out_and_build(const std::filesystem::path& repository) {
    // A gate killed outright (SIGKILL) left its worktrees in git's list: their folders are gone
    // by now (the command line removes what it can prove is a dead gate's), so git forgets them.
    prune_worktrees(m_executor, repository, m_settings.log);
    for (SideState* side : {&m_head, &m_base}) {
      side->worktree = std::make_unique<Worktree>(m_executor, repository, side->commit,
                                                  m_settings.work / side->name, m_settings.log);
      if (m_settings.keep_worktrees) side->worktree->keep();
    }
    throw_if_stopped();
    if (const std::optional<std::string>& build = m_out.config.gate->build) {
      for (SideState* side : {&m_base, &m_head}) {
        say("building " + side->name);
        run_shell_step(m_executor, *side, "build", *build, m_settings);
      }
    }
  }

  // One round of the entries in `entries` on one side; an extra round (past the plan) repeats
  // the entry's shares in turn.
  void measure(SideState& side, std::size_t round, const std::vector<bool>& entries,
               const std::vector<int>& cpus) {
    say(cpus.empty()
            ? fmt::format("round {}: {}", round + 1, side.name)
            : fmt::format("round {}: {} on CPUs {}", round + 1, side.name, fmt::join(cpus, ",")));
    const GateSpec& spec = *m_out.config.gate;
    if (spec.prepare) run_shell_step(m_executor, side, "prepare", *spec.prepare, m_settings);
    for (std::size_t entry = 0; entry < m_plan.size(); ++entry) {
      if (!entries[entry]) continue;
      if (m_run_list[entry].head_only && &side == &m_base) continue;  // measures the head alone
      const std::size_t shares = m_plan[entry].size();
      if (round >= shares && round < m_round_count) continue;  // a shorter plan than another's
      measure_entry(side, round, entry, m_plan[entry][round % shares], cpus);
    }
  }

  // What a round runs, before its arguments: gate.program in the side's worktree, or
  // `benchledger run`.
  std::vector<std::string> measuring_program(const SideState& side) const {
    const std::optional<std::string>& program = m_out.config.gate->program;
    if (!program) return {m_settings.benchledger.string(), "run"};
    const std::filesystem::path path(*program);
    return {path.is_absolute() ? path.string() : (side.worktree->path() / path).string()};
  }

  void measure_entry(SideState& side, std::size_t round, std::size_t entry,
                     const std::vector<std::string>& share, const std::vector<int>& cpus) {
    std::vector<std::string> argv = measuring_program(side);
    argv.insert(argv.end(), {"--dry-run", "--format", "json", "--quiet"});
    argv.insert(argv.end(), share.begin(), share.end());
    const std::string what = fmt::format(
        "round {} of {} ({}){}, gate.run[{}]", round + 1, side.name, short_commit(side.commit),
        cpus.empty() ? std::string() : fmt::format(" on CPUs {}", fmt::join(cpus, ",")), entry);
    log_line(m_settings, "== " + what + ": " + join(argv));
    const StepRun done = run_step(m_executor, argv, side, true, cpus, m_settings);
    throw_if_stopped();
    // 1: a case failed, and its record says how: the comparison judges it.
    const bool ran = done.result.exit_code == 0 || done.result.exit_code == 1;
    if (!ran && &side == &m_head && m_run_list[entry].removed_by_head) {
      warn(fmt::format(
          "gate.run entry \"{}\", which the head's benchledger.json no longer has, could not "
          "run on head ({}): the head stopped running it, so its cases are missing there",
          m_run_list[entry].text, done.result.describe()));
      return;
    }
    if (!ran) {
      throw step_failed(side, fmt::format("round {}, gate.run[{}]", round + 1, entry),
                        fmt::format("{}: `{}`", what, model::redact_secrets(join(argv))),
                        join(argv), done, m_settings);
    }
    Round data = parse_round(done.result.output, what);
    log_failed_cases(data, what, m_settings);
    if (&side == &m_head) {
      if (const auto left_out = keep_head_results(m_run_list[entry], data, m_base_entry_cases))
        warn(*left_out);
    }
    side.rounds.push_back({entry, round, std::move(data)});
  }

  // One pair, in an order drawn at random: then each pair's log-ratio is as likely to gain as to
  // lose from whatever the host does meanwhile (a load that comes and goes in step with the
  // rounds, which defeats strict alternation), so that the signed-rank test's null holds. A duet
  // runs both at once, swapping the halves of the CPUs every round.
  void measure_pair(std::size_t round, const std::vector<bool>& entries) {
    if (m_out.order == Order::duet) {
      const std::size_t first = round % 2;
      std::exception_ptr base_error;
      std::thread base_thread([&] {
        try {
          measure(m_base, round, entries, m_halves[first]);
        } catch (...) {
          base_error = std::current_exception();
        }
      });
      std::exception_ptr head_error;
      try {
        measure(m_head, round, entries, m_halves[1 - first]);
      } catch (...) {
        head_error = std::current_exception();
      }
      base_thread.join();
      if (base_error) std::rethrow_exception(base_error);
      if (head_error) std::rethrow_exception(head_error);
    } else if ((m_order() & 1U) == 0) {  // the raw bits: the same order for a seed everywhere
      measure(m_base, round, entries, {});
      measure(m_head, round, entries, {});
    } else {
      measure(m_head, round, entries, {});
      measure(m_base, round, entries, {});
    }
  }

  void planned_rounds() {
    const std::vector<bool> every_entry(m_plan.size(), true);
    if (m_out.order == Order::sequential) {
      for (SideState* side : {&m_base, &m_head}) {
        for (std::size_t round = 0; round < m_round_count; ++round)
          measure(*side, round, every_entry, {});
      }
    } else {
      for (std::size_t round = 0; round < m_round_count; ++round) measure_pair(round, every_entry);
    }
  }

  void snapshot() {
    m_out.base = pool_rounds(rounds_of(m_base), "base", m_settings.command);
    m_out.head = pool_rounds(rounds_of(m_head), "head", m_settings.command);
    m_out.pairs = round_pairs(m_base.rounds, m_head.rounds);
    m_out.seconds = elapsed();
  }

  // The entries whose base rounds measured an undecided case.
  std::vector<bool> entries_measuring(const std::set<std::string>& undecided) const {
    std::vector<bool> entries(m_plan.size(), false);
    for (const MeasuredRound& measured : m_base.rounds) {
      for (const ResultRecord& result : measured.data.results) {
        if (undecided.contains(case_key(result.bench, result.params)))
          entries[measured.entry] = true;
      }
    }
    return entries;
  }

  // More pairs for the cases still undecided, only the entries that measure them, while the
  // budget lasts, with a look whenever the pairs have grown by half (stats::next_look) and a
  // last one where the budget or k_max_rounds ends them: the judge's levels make every look
  // valid (docs/statistics.md).
  void extra_pairs(double planned_seconds) {
    const GateSpec& spec = *m_out.config.gate;
    const bool extra_allowed = m_out.order != Order::sequential;
    m_out.budget = extra_allowed
                       ? m_settings.budget.value_or(spec.budget.value_or(3.0 * planned_seconds))
                       : 0.0;
    std::set<std::string> undecided = m_settings.judge(m_out, ++m_out.looks);
    std::size_t round = m_round_count;
    std::size_t look_at = stats::next_look(std::max<std::size_t>(m_round_count, 1));
    double last_pair =
        planned_seconds / static_cast<double>(std::max<std::size_t>(m_round_count, 1));
    const auto pair_fits = [&] {
      return round < static_cast<std::size_t>(k_max_rounds) &&
             elapsed() - planned_seconds + last_pair <= m_out.budget;
    };
    while (!undecided.empty() && m_out.budget > 0.0 && pair_fits()) {
      const std::vector<bool> entries = entries_measuring(undecided);
      if (std::none_of(entries.begin(), entries.end(), [](bool e) { return e; })) break;
      say(fmt::format(
          "{} undecided: pairs {} to {} before the next look",
          undecided.size() == 1 ? std::string("1 case") : fmt::format("{} cases", undecided.size()),
          round + 1, look_at));
      do {
        const double before = elapsed();
        measure_pair(round, entries);
        last_pair = elapsed() - before;
        ++round;
      } while (round < look_at && pair_fits());
      m_out.rounds = static_cast<int>(round);
      snapshot();
      undecided = m_settings.judge(m_out, ++m_out.looks);
      look_at = stats::next_look(round);
    }
    if (m_out.budget > 0.0) m_out.undecided = std::move(undecided);
  }

  // Counts the cases `keys` once more on each side under callgrind, in the worktrees the rounds
  // measured in, keeping their profiles in GateSettings::profiles. What fails here fails no gate:
  // the case is left without a profile, and says why.
  void profile_step(const std::set<std::string>& keys) {
    if (keys.empty()) return;
    ProfiledCases& out = m_out.profiled.emplace();
    if (!process::find_program("valgrind")) {
      for (const std::string& key : keys) {
        out.missing.emplace(key,
                            "Valgrind is not installed on this runner (Debian and Ubuntu: "
                            "apt-get install valgrind), so the gate could not count it");
      }
      return;
    }
    for (SideState* side : {&m_base, &m_head})
      profile_side(*side, keys, side == &m_base ? out.base : out.head, out.missing);
  }

  void profile_side(SideState& side, const std::set<std::string>& keys, compare::Side& into,
                    std::map<std::string, std::string>& missing) {
    // Each case by the first entry whose rounds measured it on this side.
    std::map<std::size_t, std::vector<std::pair<std::string, Params>>> by_entry;
    std::set<std::string> seen;
    for (const MeasuredRound& measured : side.rounds) {
      for (const ResultRecord& result : measured.data.results) {
        const std::string key = case_key(result.bench, result.params);
        if (keys.contains(key) && seen.insert(key).second)
          by_entry[measured.entry].emplace_back(result.bench, result.params);
      }
    }
    for (const auto& [entry, cases] : by_entry) {
      const auto args = profile_arguments(m_run_list[entry].words, exact_case_filter(cases));
      const auto no_profile = [&](const std::string& why) {
        for (const auto& [bench, params] : cases) missing.emplace(case_key(bench, params), why);
      };
      if (!args) {
        no_profile(
            fmt::format("gate.run[{}] imports another harness's results: nothing of it "
                        "runs under Valgrind",
                        entry));
        continue;
      }
      std::vector<std::string> argv = measuring_program(side);
      argv.insert(argv.end(), {"--dry-run", "--format", "json", "--quiet", "--artifacts",
                               m_settings.profiles.string()});
      argv.insert(argv.end(), args->begin(), args->end());
      const std::string what = fmt::format("profiling on {} ({}), gate.run[{}]", side.name,
                                           short_commit(side.commit), entry);
      say(fmt::format(
          "profiling {} on {} under callgrind",
          cases.size() == 1 ? std::string("1 case") : fmt::format("{} cases", cases.size()),
          side.name));
      log_line(m_settings, "== " + what + ": " + join(argv));
      const StepRun done = run_step(m_executor, argv, side, true, {}, m_settings);
      throw_if_stopped();
      if (done.result.exit_code != 0 && done.result.exit_code != 1) {
        no_profile(
            fmt::format("counting it under callgrind on the {} failed ({}); the gate's "
                        "log has its output",
                        side.name, done.result.describe()));
        continue;
      }
      Round counted;
      try {
        counted = parse_round(done.result.output, what);
      } catch (const Error& e) {
        no_profile(
            fmt::format("counting it under callgrind on the {} printed what is not a "
                        "run's records: {}",
                        side.name, e.what()));
        continue;
      }
      if (into.runs.empty()) into.runs.push_back(counted.run);
      for (ResultRecord& result : counted.results) {
        if (const auto failure = model::failure_of(result)) {
          missing.emplace(case_key(result.bench, result.params),
                          fmt::format("counting it under callgrind on the {} failed: {}", side.name,
                                      model::describe(*failure)));
        }
        result.run = into.runs.front().header.id;
        into.results.push_back(std::move(result));
      }
    }
  }

  const GateSettings& m_settings;
  StepExecutor m_system;
  process::Executor& m_executor;  // m_system unless the settings give one
  std::mutex m_say_mutex;
  SideState m_base, m_head;
  GateMeasurement m_out;
  std::string m_origin, m_head_origin;  // where base's and the head's gate sections come from
  std::vector<RunEntry> m_run_list;
  RoundPlan m_plan;
  std::size_t m_round_count = 0;
  std::array<std::vector<int>, 2> m_halves;  // a duet's CPUs
  std::set<std::string> m_base_entry_cases;  // what base's entries measured on the head
  std::int64_t m_started_ns = 0;             // on m_executor's clock
  std::mt19937_64 m_order;                   // which side of each interleaved pair goes first
};

}  // namespace

GateMeasurement measure_revisions(const GateSettings& settings) {
  return GateRun(settings).run();
}

}  // namespace benchledger::gate
