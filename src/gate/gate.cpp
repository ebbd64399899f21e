#include "gate/gate.hpp"

#include <algorithm>
#include <memory>
#include <system_error>

#include <fmt/format.h>
#include <benchledger/error.hpp>

#include "gate/process.hpp"
#include "gate/worktree.hpp"

namespace benchledger::gate {
namespace {

struct SideState {
  std::string name;  // base or head
  std::string commit;
  std::unique_ptr<Worktree> worktree;
  std::vector<Round> rounds;
};

std::string short_commit(const std::string& commit) {
  return commit.substr(0, 12);
}

Config gate_config(const std::filesystem::path& worktree, const std::string& revision) {
  const std::filesystem::path path = worktree / "benchledger.json";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    throw Error(fmt::format(
        "{} has no benchledger.json: the gate reads its \"gate\" section (build and run) from the "
        "head revision's benchledger.json at the repository root",
        revision));
  }
  Config config = load_config(path);
  if (!config.gate) {
    throw Error(fmt::format(
        "benchledger.json at {} has no \"gate\" section: add \"gate\": {{\"build\": \"...\", "
        "\"run\": [\"...\"]}} (docs/ci-gate.md)",
        revision));
  }
  return config;
}

void run_shell_step(const SideState& side, const std::string& what, const std::string& command,
                    const GateSettings& settings) {
  append_to_log(settings.log, fmt::format("== {} of {} ({}): {}", what, side.name,
                                          short_commit(side.commit), command));
  const ProcessResult done =
      run_process({"/bin/sh", "-c", command}, side.worktree->path(), settings.log, false);
  throw_if_stopped();
  if (!done.ok()) {
    const std::string message =
        fmt::format("the {} of {} ({}) failed ({}); the end of its output:\n{}(all of it in {})",
                    what, side.name, short_commit(side.commit), done.describe(),
                    log_tail(settings.log, 15), settings.log.string());
    if (what == "build") throw BuildFailed(message, side.name);
    throw Error(message);
  }
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words) out += (out.empty() ? "" : " ") + word;
  return out;
}

}  // namespace

GateMeasurement measure_revisions(const GateSettings& settings) {
  const auto say = [&](const std::string& line) {
    if (settings.progress) settings.progress(line);
  };
  const std::filesystem::path repository = repository_root(settings.start, settings.log);
  SideState base{"base", resolve_commit(repository, settings.base_revision, settings.log), {}, {}};
  SideState head{"head", resolve_commit(repository, settings.head_revision, settings.log), {}, {}};
  say(fmt::format("base = {} ({}), head = {} ({})", short_commit(base.commit),
                  settings.base_revision, short_commit(head.commit), settings.head_revision));

  throw_if_stopped();
  head.worktree =
      std::make_unique<Worktree>(repository, head.commit, settings.work / "head", settings.log);
  if (settings.keep_worktrees) head.worktree->keep();
  GateMeasurement out;
  out.base_commit = base.commit;
  out.head_commit = head.commit;
  out.head_config = gate_config(head.worktree->path(), settings.head_revision);
  const GateSpec& spec = *out.head_config.gate;
  base.worktree =
      std::make_unique<Worktree>(repository, base.commit, settings.work / "base", settings.log);
  if (settings.keep_worktrees) base.worktree->keep();
  throw_if_stopped();

  if (spec.build) {
    for (SideState* side : {&base, &head}) {
      say("building " + side->name);
      run_shell_step(*side, "build", *spec.build, settings);
    }
  }

  // rounds[entry][round]: the arguments of each entry's share in each round.
  const int wanted = settings.rounds.value_or(spec.rounds.value_or(k_default_rounds));
  std::vector<std::vector<std::vector<std::string>>> plan;
  std::size_t round_count = 0;
  for (std::size_t i = 0; i < spec.run.size(); ++i) {
    try {
      plan.push_back(round_arguments(spec.run[i], wanted));
    } catch (const Error& e) {
      throw Error(fmt::format("gate.run[{}] \"{}\": {}", i, spec.run_text[i], e.what()));
    }
    round_count = std::max(round_count, plan.back().size());
  }
  out.rounds = static_cast<int>(round_count);

  const auto measure = [&](SideState& side, std::size_t round) {
    say(fmt::format("round {}/{}: {}", round + 1, round_count, side.name));
    if (spec.prepare) run_shell_step(side, "prepare", *spec.prepare, settings);
    for (std::size_t entry = 0; entry < plan.size(); ++entry) {
      if (round >= plan[entry].size()) continue;
      std::vector<std::string> argv;
      if (spec.program) {
        const std::filesystem::path program(*spec.program);
        argv.push_back(program.is_absolute() ? program.string()
                                             : (side.worktree->path() / program).string());
      } else {
        argv = {settings.benchledger.string(), "run"};
      }
      argv.insert(argv.end(), {"--dry-run", "--format", "json", "--quiet"});
      argv.insert(argv.end(), plan[entry][round].begin(), plan[entry][round].end());
      const std::string what = fmt::format("round {} of {} ({}), gate.run[{}]", round + 1,
                                           side.name, short_commit(side.commit), entry);
      append_to_log(settings.log, "== " + what + ": " + join(argv));
      const ProcessResult done = run_process(argv, side.worktree->path(), settings.log, true);
      throw_if_stopped();
      // 1: a case failed, and its record says how: the comparison judges it.
      if (done.exit_code != 0 && done.exit_code != 1) {
        throw Error(fmt::format("{}: `{}` failed ({}); the end of its output:\n{}(all of it in {})",
                                what, join(argv), done.describe(), log_tail(settings.log, 15),
                                settings.log.string()));
      }
      side.rounds.push_back(parse_round(done.output, what));
    }
  };
  if (settings.order == Order::interleaved) {
    // Alternating which side goes first cancels a steady trend as well as a step.
    for (std::size_t round = 0; round < round_count; ++round) {
      if (round % 2 == 0) {
        measure(base, round);
        measure(head, round);
      } else {
        measure(head, round);
        measure(base, round);
      }
    }
  } else {
    for (SideState* side : {&base, &head}) {
      for (std::size_t round = 0; round < round_count; ++round) measure(*side, round);
    }
  }
  out.base = pool_rounds(base.rounds, "base", settings.command);
  out.head = pool_rounds(head.rounds, "head", settings.command);
  return out;
}

}  // namespace benchledger::gate
