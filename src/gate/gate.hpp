// `benchledger gate BASE_REV [HEAD_REV]` without its printing (docs/ci-gate.md): both revisions
// of the user's repository checked out in temporary worktrees, built with HEAD's `gate.build`,
// measured with HEAD's `gate.run` in alternating rounds, each side pooled into one run.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <benchledger/config.hpp>
#include <benchledger/error.hpp>

#include "gate/rounds.hpp"

namespace benchledger::gate {

inline constexpr int k_default_rounds = 5;

enum class Order {
  interleaved,  // round 1 base then head, round 2 head then base, ...: drift falls on both
  sequential,   // every base round, then every head round: for contrast (bench/gate_drift.sh)
};

struct GateSettings {
  std::filesystem::path start;  // the gate works on the git repository containing this
  std::string base_revision, head_revision;
  std::filesystem::path benchledger;  // what measures when gate.program is absent (`run` first)
  std::optional<int> rounds;          // overrides gate.rounds
  Order order = Order::interleaved;
  std::filesystem::path work;  // an empty directory for the worktrees
  bool keep_worktrees = false;
  std::filesystem::path log;         // every step's output is appended here
  std::vector<std::string> command;  // the gate's own argv, for the pooled runs' `command`
  std::function<void(const std::string&)> progress;  // one line per step; may be empty
};

struct GateMeasurement {
  std::string base_commit, head_commit;
  Config head_config;  // HEAD's benchledger.json: its thresholds judge the comparison
  int rounds = 0;
  PooledSide base, head;  // labels `base` and `head`
};

// The `gate.build` of one side failed: `bisect` skips a commit that does not build.
class BuildFailed : public Error {
 public:
  BuildFailed(const std::string& message, std::string side)
      : Error(message), m_side(std::move(side)) {}
  const std::string& side() const { return m_side; }  // base or head

 private:
  std::string m_side;
};

// Builds and measures both revisions. Throws Error for anything that keeps the gate from a
// comparison: no repository, an unknown revision, no `gate` section at HEAD_REV, a failed
// build (BuildFailed), prepare or `benchledger run` (exit 2 or worse; exit 1, a failed case, is
// measured and judged by the comparison), each naming the side and the log. With a StopSignals
// alive, a stop signal ends the step running and throws Stopped once it has ended; the worktrees go
// first.
GateMeasurement measure_revisions(const GateSettings& settings);

}  // namespace benchledger::gate
