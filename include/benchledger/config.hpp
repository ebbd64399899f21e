// The optional config file `benchledger.json` at the repository root (DESIGN.md, "The config
// file"). Unknown keys are an error that names them.
//
// {
//   "ledger": "sqlite:ledger/bench.db",
//   "project": "my-lib",
//   "thresholds": {"sort/*": 10, "sqlite/insert": 3},        // percent, exact name or glob
//   "environment": {"ignore": ["runtimes.python"]},          // fields compare does not hold
//   "run": {
//     "suites": ["executors"],
//     "binaries": ["build/bench/my_native_benchmarks"],
//     "commands": [{"name": "cli-startup", "command": ["./app", "--n", "{n}"],
//                   "params": {"n": ["10", "100"]}, "runs": 10, "warmup": 2}]
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

struct Config {
  std::filesystem::path path;  // where it was read from; empty when there is none
  std::optional<std::string> ledger;
  std::optional<std::string> project;
  std::vector<std::pair<std::string, double>> thresholds;  // pattern -> percent, file order
  std::vector<std::string> suites;
  std::vector<std::string> binaries;
  std::vector<CommandSpec> commands;
  // Environment fields that compare and --require-same-env leave out (dotted names, as
  // docs/environment.md lists them; compare refuses a name it does not compare).
  std::vector<std::string> environment_ignore;

  // The threshold for a benchmark: the first exact match, else the first matching glob
  // (fnmatch), else `fallback` (the --threshold value).
  double threshold_for(const std::string& bench, double fallback) const;
};

// Parses a config file; throws Error naming the file and the field on anything wrong.
Config load_config(const std::filesystem::path& path);

// The directory commands treat as the project root: the git work tree containing `start`,
// else `start` itself.
std::filesystem::path project_root(const std::filesystem::path& start);

// `benchledger.json` under project_root(current directory), or an empty Config.
Config load_default_config();

}  // namespace benchledger
