// Support for the report's end-to-end tests: a scratch directory, a real ledger written through
// the Store API from the report fixtures, and child processes with captured output.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <benchledger/ledger.hpp>

#include "support/process.hpp"
#include "support/scratch_dir.hpp"
#include "unit/report/fixtures.hpp"

namespace benchledger::report::testing {

using test_support::ScratchDir;

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

using Outcome = test_support::ProcessResult;

// Runs argv in `cwd` with stdout and stderr captured; waits for it.
inline Outcome run_process(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                           const std::vector<std::string>& env = {}) {
  test_support::ProcessOptions options;
  options.cwd = cwd.string();
  options.env = env;
  return test_support::run_process(argv, options);
}

inline std::string cli() {
  const char* bin = std::getenv("BENCHLEDGER_BIN");
  if (bin == nullptr)
    throw std::runtime_error("BENCHLEDGER_BIN is not set (run the test through ctest)");
  return bin;
}

inline Outcome run_cli(const std::vector<std::string>& args, const std::filesystem::path& cwd) {
  std::vector<std::string> argv{cli()};
  argv.insert(argv.end(), args.begin(), args.end());
  // No ledger from the environment: every test names its own.
  return run_process(argv, cwd, {"BENCHLEDGER_LEDGER=", "NO_COLOR=1"});
}

// Appends each run with its results as one batch, in the order given.
inline void write_ledger(const std::string& uri, const std::vector<RunData>& runs) {
  const auto store = ledger::open_store(uri);
  for (const RunData& data : runs) {
    std::vector<Record> batch{data.run};
    for (const ResultRecord& r : data.results) batch.emplace_back(r);
    store->append(std::move(batch));
  }
}

// The ledger most tests use: twelve older runs of the current cases, the baseline, then the
// current run, oldest first.
inline std::vector<RunData> standard_history() {
  std::vector<RunData> runs = fixtures::history_before(fixtures::current_run(), 12);
  runs.insert(runs.end() - 1, fixtures::baseline_run());
  std::stable_sort(runs.begin(), runs.end(), [](const RunData& a, const RunData& b) {
    return a.run.header.time < b.run.header.time;
  });
  return runs;
}

}  // namespace benchledger::report::testing
