// `benchledger gate BASE_REV [HEAD_REV]` without its printing (docs/ci-gate.md): both revisions
// of the user's repository checked out in temporary worktrees, built and measured as BASE_REV's
// `gate` section says (HEAD_REV's when BASE_REV has none; "Whose configuration judges"), with
// the `gate.run` entries only HEAD_REV's section has measuring the head alone, in pairs of rounds
// (each pair in random order, or both at once in a duet), more pairs for the cases still undecided
// while a budget lasts, each side pooled into one run.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <benchledger/config.hpp>
#include <benchledger/error.hpp>

#include "gate/rounds.hpp"
#include "process/executor.hpp"

namespace benchledger::gate {

// Ten pairs: the fewest whose signed-rank test reaches the levels a suite of a few cases needs at
// the first look (docs/statistics.md, "Paired rounds and repeated looks").
inline constexpr int k_default_rounds = 10;
// Extra rounds stop here whatever the budget says.
inline constexpr int k_max_rounds = 1000;

enum class Order {
  interleaved,  // round 1 base then head, round 2 head then base, ...: drift falls on both
  duet,         // base and head at the same time, each pinned to half of the CPUs
  sequential,   // every base round, then every head round: for contrast (bench/gate_drift.sh)
};

struct GateMeasurement;
// Looks at what was measured so far (look 1 after the planned rounds, then one whenever the
// pairs have grown by half, stats::next_look, and one where the budget ends them)
// and returns the case keys (case_key of bench and params) that are still undecided.
using Judge = std::function<std::set<std::string>(const GateMeasurement& so_far, int look)>;

struct GateSettings {
  std::filesystem::path start;  // the gate works on the git repository containing this
  std::string base_revision, head_revision;
  std::filesystem::path benchledger;  // what measures when gate.program is absent (`run` first)
  std::optional<int> rounds;          // overrides gate.rounds
  std::optional<Order> order;         // absent: duet when gate.duet is true, else interleaved
  // Seconds of extra rounds for undecided cases: absent for three times what the planned rounds
  // took (a gate takes at most about four times its plan), 0 for none. Overrides gate.budget.
  std::optional<double> budget;
  // The seed of the pairs' random order (which side of each interleaved pair goes first):
  // absent for a fresh one. gate.log names the seed, so that a gate's order can be repeated.
  std::optional<std::uint64_t> seed;
  Judge judge;                 // empty: no look, no extra rounds
  std::filesystem::path work;  // an empty directory for the worktrees
  bool keep_worktrees = false;
  std::filesystem::path log;         // every step's output is appended here
  std::vector<std::string> command;  // the gate's own argv, for the pooled runs' `command`
  std::function<void(const std::string&)> progress;  // one line per step; may be empty
  // Checks each revision's configuration (read with `git cat-file`, before anything is checked
  // out) beyond what load_config checks: `benchledger run`'s own flags in each gate.run entry.
  // Throws Error (HEAD_REV's stops the gate; BASE_REV's is set aside with a warning); `origin` is
  // how messages name the file (`benchledger.json at HEAD`). May be empty.
  std::function<void(const Config& config, const std::string& origin)> check_config;
  // After the last look, while the worktrees are still there: the cases (case keys) to count once
  // more on each side under callgrind for their functions' profiles (docs/profiles.md, "In the
  // gate"), such as the regressed ones; none for no profiling step. Empty: no profiling step.
  std::function<std::set<std::string>(const GateMeasurement& measured)> profile_cases;
  std::filesystem::path profiles;  // the profiling step's artifacts (ledger/artifacts.hpp)
  // What starts every step (git, the builds, the rounds) and tells the time the budget is spent
  // against; must outlive the gate. Null: the real one, StepExecutor (gate/steps.hpp).
  process::Executor* executor = nullptr;
};

// The profiling step's counts: each side's results of the cases asked for, in one run, each
// naming its profile in GateSettings::profiles; a case that has none on a side says why.
struct ProfiledCases {
  compare::Side base, head;
  std::map<std::string, std::string> missing;  // case key: why it has no profile
};

struct GateMeasurement {
  std::string base_commit, head_commit;
  // The gate configuration that measured and judges: BASE_REV's benchledger.json when it has a
  // `gate` section, else HEAD_REV's.
  Config config;
  // HEAD_REV's benchledger.json when `config` is BASE_REV's: it judges the same runs a second
  // time (compare/gate_configuration.hpp).
  std::optional<Config> head_config;
  // What the run entries' rules left out of the head's rounds (gate/run_entries.hpp), once each.
  std::vector<std::string> warnings;
  Order order = Order::interleaved;
  int planned_rounds = 0;  // rounds a side before the first look
  int rounds = 0;          // rounds a side in all (the most any entry ran)
  int looks = 0;           // judge calls
  double seconds = 0;      // wall time of the rounds (not the builds)
  double budget = 0;       // seconds allowed for the extra rounds
  // Cases the last look left undecided while extra rounds were allowed: the budget ran out
  // (or k_max_rounds was reached) before they were decided.
  std::set<std::string> undecided;
  PooledSide base, head;  // labels `base` and `head`
  // Each case's and metric's pairs of rounds (round_pairs of the sides' rounds).
  std::map<std::string, std::map<std::string, compare::RoundCentres>> pairs;
  std::optional<ProfiledCases> profiled;  // when the profiling step had cases to count
};

// A step of one side failed: its `gate.build`, its `prepare`, or a round's `benchledger run`
// (exit 2 or worse). what() is the whole message; the parts are for a comment that says which
// side and which step, and quotes the step's own output.
class StepFailed : public Error {
 public:
  struct Step {
    std::string side;     // base or head
    std::string commit;   // the side's full commit id
    std::string step;     // `build`, `prepare`, or `round 3, gate.run[0]`
    std::string command;  // what was run, secrets redacted
    std::string outcome;  // `exit status 7`, `killed by signal 9 (SIGKILL)`
    // The last lines of the step's own output (stdout and stderr; bounded, secrets redacted,
    // model::output_tail), without the gate's lines around it; empty when it printed nothing.
    std::string output;
  };
  StepFailed(const std::string& message, Step step) : Error(message), m_step(std::move(step)) {}
  const Step& step() const { return m_step; }
  const std::string& side() const { return m_step.side; }

 private:
  Step m_step;
};

// The `gate.build` of one side failed: `bisect` skips a commit that does not build.
class BuildFailed : public StepFailed {
 public:
  using StepFailed::StepFailed;
};

// `benchledger.json` at `revision` (resolved to `commit`) of `repository`, read with git before
// anything is checked out; messages name it `benchledger.json at REVISION`, never a path. Throws
// Error when the revision has none, when it is malformed, or when it has no `gate` section.
Config gate_config_at(process::Executor& executor, const std::filesystem::path& repository,
                      const std::string& commit, const std::string& revision,
                      const std::filesystem::path& log);

// Builds and measures both revisions. Throws Error for anything that keeps the gate from a
// comparison: no repository, an unknown revision, no `gate` section at HEAD_REV or a gate.run
// entry `run` would refuse (both before anything is checked out), a failed build (BuildFailed),
// prepare or `benchledger run` (StepFailed: exit 2 or worse; exit 1, a failed case, is measured
// and judged by the comparison), each naming the side and the log. The output of a failed case
// (the last lines of its stderr, in its record) is also written to the log after its round. With a
// StopSignals alive, a stop signal ends the step running and throws Stopped once it has ended; the
// worktrees go first.
GateMeasurement measure_revisions(const GateSettings& settings);

}  // namespace benchledger::gate
