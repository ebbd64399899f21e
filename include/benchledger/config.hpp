// The optional config file `benchledger.json` at the repository root (docs/records.md, "The config
// file"). Unknown keys are an error that names them.
//
// {
//   "ledger": "sqlite:ledger/bench.db",
//   "project": "my-lib",
//   "thresholds": {"sort/*": 10, "sqlite/insert": 3},        // percent, exact name or glob
//   "deterministic_thresholds": {"parse/*": 1},              // the same for instruction counts
//   "environment": {"ignore": ["runtimes.python"]},          // fields compare does not hold
//   "run": {
//     "suites": ["executors"],
//     "binaries": ["build/bench/my_native_benchmarks"],
//     "commands": [{"name": "cli-startup", "command": ["./app", "--n", "{n}"],
//                   "params": {"n": ["10", "100"]}, "runs": 10, "warmup": 2}]
//   },
//   "gate": {                                                 // `benchledger gate`
//     "build": "cmake -S . -B build && cmake --build build",  // shell, in each revision
//     "run": ["--name startup --runs 20 -- build/app"],       // `benchledger run` arguments
//     "prepare": "build/bench --benchmark_out=gb.json",      // shell, before each round
//     "program": "build/my_benchmarks",                       // who measures; default: the gate
//     "rounds": 10,
//     "metric": "cpu", "threshold": 5, "fail-on": ["inconclusive"], "allow-missing": false,
//     "budget": 600, "duet": false, "undecided": "pass", "design": "paired"
//   }
// }
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace benchledger {

struct CommandSpec {
  std::string name;
  std::vector<std::string> command;
  std::map<std::string, std::vector<std::string>> params;
  std::optional<int> runs, warmup;
};

// The `gate` section: how `benchledger gate` builds and measures a revision (docs/ci-gate.md).
struct GateSpec {
  std::optional<std::string> build;           // shell command run once in each revision's worktree
  std::vector<std::string> run_text;          // each entry as written, for messages
  std::vector<std::vector<std::string>> run;  // the same split into words as a shell would
  std::optional<std::string> prepare;         // shell command run before each round of a side
  // The program given the run arguments, relative to the worktree: a BENCHLEDGER_MAIN program
  // or a `bench-run`. Absent: `benchledger run` of the benchledger running the gate.
  std::optional<std::string> program;
  std::optional<int> rounds;  // 1..1000
  // How the gate judges (docs/ci-gate.md, "Options"); the command line's flags of the same names
  // win. Absent: the command line's defaults.
  std::vector<std::string> metrics;     // "metric": one name or a list (--metric)
  std::vector<std::string> fail_on;     // "fail-on": verdicts added to the failing ones
  std::optional<bool> allow_missing;    // "allow-missing"
  std::optional<double> threshold;      // "threshold": percent, the default for every case
  std::optional<double> budget;         // "budget": seconds of extra rounds, > 0
  std::optional<bool> duet;             // "duet": base and head at the same time
  std::optional<bool> undecided_fails;  // "undecided": "fail" (true) or "pass" (false)
  std::optional<bool> paired;           // "design": "paired" (true) or "pooled" (false)
};

struct Config {
  std::filesystem::path path;  // where it was read from; empty when there is none
  std::optional<std::string> ledger;
  std::optional<std::string> project;
  // The PostgreSQL server `run` measures (a libpq connection string or URI): `run --pg` and
  // BENCHLEDGER_PG come first.
  std::optional<std::string> pg;
  std::vector<std::pair<std::string, double>> thresholds;  // pattern -> percent, file order
  std::vector<std::pair<std::string, double>> deterministic_thresholds;  // the same, for counts
  std::vector<std::string> suites;
  std::vector<std::string> binaries;
  std::vector<CommandSpec> commands;
  std::optional<GateSpec> gate;
  // Environment fields that compare and --require-same-env leave out (dotted names, as
  // docs/environment.md lists them; compare refuses a name it does not compare).
  std::vector<std::string> environment_ignore;

  // The threshold for a benchmark: the first exact match, else the first matching glob
  // (fnmatch), else `fallback` (the --threshold value).
  double threshold_for(const std::string& bench, double fallback) const;
  // The same for deterministic metrics (instruction counts), from deterministic_thresholds;
  // `fallback` is the --deterministic-threshold value.
  double deterministic_threshold_for(const std::string& bench, double fallback) const;
};

// Parses a config file; throws Error naming the file and the field on anything wrong, and
// naming the file when it is not a regular file or is over 16 MiB.
Config load_config(const std::filesystem::path& path);

// The directory commands treat as the project root: the git work tree containing `start`,
// else `start` itself.
std::filesystem::path project_root(const std::filesystem::path& start);

// `benchledger.json` under project_root(current directory), or an empty Config.
Config load_default_config();

}  // namespace benchledger
