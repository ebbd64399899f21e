// The flags that judge a comparison, shared by `compare` and `gate` so that both take the same
// words and judge the same way.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <benchledger/config.hpp>

#include "compare/comparison.hpp"

namespace benchledger::cli {

struct CompareFlags {
  double alpha = 0.05;
  double threshold = 5.0;                // percent
  double deterministic_threshold = 0.5;  // percent, for instruction counts
  std::vector<std::string> fail_on;  // added to failed, regression and missing, which always fail
  std::vector<std::string> metrics;
  bool require_same_env = false;
  bool allow_missing = false;
  std::string undecided = "pass";  // the exit status of an undecided comparison: pass or fail
};

// --alpha, --threshold, --deterministic-threshold, --fail-on, --metric, --require-same-env,
// --allow-missing, --undecided.
void add_compare_flags(CLI::App& sub, CompareFlags& flags);

// The options compare_sides takes; `config` gives the per-benchmark thresholds. Throws Error
// for a --fail-on word that names no verdict that can fail the gate.
compare::CompareOptions compare_options_from(const CompareFlags& flags, Config config);

// Runs a command whose exit 1 means "the gate failed": a damaged ledger (IntegrityError, exit 1
// elsewhere) is reported there as a data error (exit 2), so that it cannot read as a verdict.
int run_gating(const std::function<int()>& run);

}  // namespace benchledger::cli
