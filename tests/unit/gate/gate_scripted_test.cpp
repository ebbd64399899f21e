// The gate's rounds, looks and budget on a scripted executor: git, the worktrees and each round's
// `benchledger run` are answered from a script, and time passes on a fake clock, so that what
// the gate decides (which cases get more pairs, when the budget ends them) is checked exactly, at
// once and whatever the machine's load.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <benchledger/record.hpp>

#include "compare/comparison.hpp"
#include "gate/gate.hpp"
#include "model_fixtures.hpp"
#include "stats/sequential.hpp"
#include "support/scratch_dir.hpp"
#include "support/scripted_executor.hpp"

using namespace benchledger;
using test_support::Answer;
using test_support::ScriptedExecutor;
using Words = std::vector<std::string>;

namespace {

const std::string k_base = std::string(40, 'a');
const std::string k_head = std::string(40, 'b');
const std::string k_benchledger = "/opt/benchledger/bin/benchledger";
// Two entries of 10 runs: 10 planned rounds of one repetition each.
const std::string k_config =
    R"({"gate": {"run": ["--name slow --runs 10 -- ./slow", "--name fast --runs 10 -- ./fast"]}})";

Words round_argv(const std::string& name) {
  return {k_benchledger, "run", "--dry-run",     "--format", "json", "--quiet",
          "--name",      name,  "--repetitions", "1",        "--",   "./" + name};
}

// What one round of `benchledger run --dry-run --format json` prints: its run record and the one
// result of case `name`, whose only sample (one repetition) is `ms`.
std::string round_output(const std::string& name, double ms) {
  const RunRecord run = testing::sample_run(new_ulid(), "round");
  ResultRecord result;
  result.header.id = new_ulid();
  result.header.time = run.header.time;
  result.header.prev = std::string(k_zero_hash);
  result.run = run.header.id;
  result.bench = name;
  result.primary = "wall";
  result.ops = 1;
  result.metrics["wall"] = metric_from_samples("ms", Better::lower, {ms});
  return serialize(run) + "\n" + serialize(result) + "\n";
}

// A gate of `main` against `HEAD` whose git steps (the repository, both commits, both
// configurations, the worktrees added and removed) the script answers; judged by compare's
// paired test at each look's level, as `benchledger gate` judges by default. Each look's
// undecided cases are kept in `looks`.
struct ScriptedGate {
  test_support::ScratchDir dir;
  ScriptedExecutor fake;
  gate::GateSettings settings;
  std::vector<std::set<std::string>> looks;

  ScriptedGate() {
    const std::filesystem::path repository = dir / "repo";
    std::filesystem::create_directories(dir / "work");
    settings.start = repository;
    settings.base_revision = "main";
    settings.head_revision = "HEAD";
    settings.benchledger = k_benchledger;
    settings.seed = 1;
    settings.work = dir / "work";
    settings.log = dir / "gate.log";
    settings.command = {"benchledger", "gate", "main"};
    settings.executor = &fake;
    settings.judge = [this](const gate::GateMeasurement& so_far, int look) {
      compare::CompareOptions options;
      options.alpha = stats::look_level(0.05, look);
      options.pairs = so_far.pairs;
      const compare::Side base{{so_far.base.run}, so_far.base.results};
      const compare::Side head{{so_far.head.run}, so_far.head.results};
      std::set<std::string> undecided;
      for (const compare::CaseComparison& c :
           compare::compare_sides(base, head, {}, options).cases) {
        if (c.verdict == compare::Verdict::inconclusive)
          undecided.insert(case_key(c.bench, c.params));
      }
      looks.push_back(undecided);
      return undecided;
    };

    fake.expect({"git", "rev-parse", "--show-toplevel"}, Answer().prints(repository.string()))
        .in(repository);
    for (const auto& [revision, commit] : {std::pair{"main", k_base}, std::pair{"HEAD", k_head}}) {
      fake.expect({"git", "rev-parse", "--verify", "--quiet", "--end-of-options",
                   std::string(revision) + "^{commit}"},
                  Answer().prints(commit + "\n"))
          .in(repository);
      const std::string object = commit + ":benchledger.json";
      fake.expect({"git", "cat-file", "-e", object}).in(repository);
      fake.expect({"git", "cat-file", "blob", object}, Answer().prints(k_config)).in(repository);
    }
    // Where the lock of git's worktree list goes, as often as git's list changes.
    fake.expect({"git", "rev-parse", "--path-format=absolute", "--git-common-dir"},
                Answer().prints(dir.path().string() + "\n"))
        .always();
    fake.expect({"git", "worktree", "prune"}).in(repository);
    for (const auto& [side, commit] : {std::pair{"base", k_base}, std::pair{"head", k_head}}) {
      const std::string worktree = (settings.work / side).string();
      fake.expect({"git", "worktree", "add", "--detach", "--force", worktree, commit})
          .in(repository);
      fake.expect({"git", "worktree", "remove", "--force", worktree}).in(repository);
    }
  }

  // Rounds of case `name` on `side`, one a value, in turn; each takes a second.
  void rounds(const std::string& name, const std::string& side, const std::vector<double>& ms) {
    for (const double value : ms) {
      fake.expect(round_argv(name), Answer().prints(round_output(name, value)).takes(1))
          .in(settings.work / side);
    }
  }

  // The rounds' argv in the order they ran.
  std::vector<Words> round_calls() const {
    std::vector<Words> out;
    for (const test_support::Call& call : fake.calls()) {
      if (call.argv.front() == k_benchledger) out.push_back(call.argv);
    }
    return out;
  }
};

const std::string k_slow = case_key("slow", {});
const std::vector<double> k_hundreds(10, 100);
// `slow` at head: 20% slower in 6 pairs of 10, 5% faster in 4: too mixed for 10 pairs to decide.
const std::vector<double> k_mixed = {120, 95, 120, 120, 95, 120, 95, 120, 120, 95};

// The planned rounds: `fast` unchanged within 1% (decided at the first look), `slow` mixed.
void planned(ScriptedGate& gate) {
  gate.rounds("slow", "base", k_hundreds);
  gate.rounds("slow", "head", k_mixed);
  gate.rounds("fast", "base", k_hundreds);
  gate.rounds("fast", "head", {101, 99, 101, 99, 101, 99, 101, 99, 101, 99});
}

}  // namespace

TEST_CASE("a case the planned rounds leave undecided gets more pairs until a look decides it") {
  ScriptedGate scripted;
  planned(scripted);
  // Pairs 11 to 15, up to the second look (stats::next_look): 20% slower in each.
  scripted.rounds("slow", "base", std::vector<double>(5, 100));
  scripted.rounds("slow", "head", std::vector<double>(5, 120));
  {
    const gate::GateMeasurement measured = gate::measure_revisions(scripted.settings);
    CHECK(scripted.looks == std::vector<std::set<std::string>>{{k_slow}, {}});
    CHECK(measured.planned_rounds == 10);
    CHECK(measured.rounds == 15);
    CHECK(measured.looks == 2);
    CHECK(measured.undecided.empty());
    CHECK(measured.pairs.at(k_slow).at("wall").current.size() == 15);
    CHECK(measured.pairs.at(case_key("fast", {})).at("wall").current.size() == 10);
    // 40 planned rounds of a second, then 10 extra: the fake clock's, and the default budget
    // (three times the planned rounds' 40 s) was never close.
    CHECK(measured.seconds == 50);
    CHECK(measured.budget == 120);
  }
  CHECK(scripted.fake.unexpected().empty());
  CHECK(scripted.fake.unused().empty());  // the worktrees were removed too
}

TEST_CASE("a duet runs each pair's two rounds at once, from two threads, and decides the same") {
  // The gate's duet threads on the scripted executor (under the tsan preset: ThreadSanitizer
  // watches what the two sides share). Each side's rounds are scripted in its own worktree.
  ScriptedGate scripted;
  scripted.settings.order = gate::Order::duet;
  planned(scripted);
  scripted.rounds("slow", "base", std::vector<double>(5, 100));
  scripted.rounds("slow", "head", std::vector<double>(5, 120));
  {
    const gate::GateMeasurement measured = gate::measure_revisions(scripted.settings);
    CHECK(measured.order == gate::Order::duet);
    CHECK(scripted.looks == std::vector<std::set<std::string>>{{k_slow}, {}});
    CHECK(measured.rounds == 15);
    CHECK(measured.pairs.at(k_slow).at("wall").current.size() == 15);
    CHECK(measured.pairs.at(case_key("fast", {})).at("wall").current.size() == 10);
    CHECK(measured.seconds == 50);  // the fake clock moves by both sides' rounds
  }
  CHECK(scripted.round_calls().size() == 50);
  CHECK(scripted.fake.unexpected().empty());
  CHECK(scripted.fake.unused().empty());
}

TEST_CASE("the extra pairs measure only the entries of the undecided cases") {
  ScriptedGate scripted;
  planned(scripted);
  scripted.rounds("slow", "base", std::vector<double>(5, 100));
  scripted.rounds("slow", "head", std::vector<double>(5, 120));
  std::ignore = gate::measure_revisions(scripted.settings);
  const std::vector<Words> rounds = scripted.round_calls();
  REQUIRE(rounds.size() == 50);
  // The planned pairs run both entries on both sides; every extra one `slow` alone.
  const auto count = [&](auto from, auto to, const std::string& name) {
    return std::count(from, to, round_argv(name));
  };
  CHECK(count(rounds.begin(), rounds.begin() + 40, "slow") == 20);
  CHECK(count(rounds.begin(), rounds.begin() + 40, "fast") == 20);
  CHECK(count(rounds.begin() + 40, rounds.end(), "slow") == 10);
  CHECK(scripted.fake.unexpected().empty());
}

TEST_CASE(
    "a budget that ends on the fake clock leaves the gate undecided, never measuring past it") {
  ScriptedGate scripted;
  scripted.settings.budget = 5.0;
  planned(scripted);
  // A pair of `slow` takes 2 s: pairs 11 and 12 fit in 5 s, a 13th would not.
  scripted.rounds("slow", "base", {100, 100});
  scripted.rounds("slow", "head", {95, 120});
  {
    const gate::GateMeasurement measured = gate::measure_revisions(scripted.settings);
    CHECK(measured.budget == 5);
    CHECK(measured.rounds == 12);
    // A last look with what the budget allowed, which still cannot decide.
    CHECK(measured.looks == 2);
    CHECK(scripted.looks.back() == std::set<std::string>{k_slow});
    CHECK(measured.undecided == std::set<std::string>{k_slow});
    CHECK(measured.seconds == 44);
  }
  CHECK(scripted.fake.unexpected().empty());
  CHECK(scripted.fake.unused().empty());
}
