// Running the real CLI (BENCHLEDGER_BIN) and the test appender as child processes for the
// ledger's integration tests, through the tests' one process starter (support/process.hpp).
#pragma once

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/process.hpp"

namespace benchledger::testing {

using test_support::Child;
using test_support::finish;
using test_support::ProcessOptions;
using test_support::ProcessResult;
using test_support::run_process;
using test_support::spawn;

inline std::string cli_path() {
  const char* bin = std::getenv("BENCHLEDGER_BIN");
  if (bin == nullptr) throw std::runtime_error("BENCHLEDGER_BIN is not set (run through ctest)");
  return bin;
}

// `benchledger ledger ARGS...`
inline ProcessResult run_ledger(const std::vector<std::string>& args,
                                const ProcessOptions& options = {}) {
  std::vector<std::string> argv = {cli_path(), "ledger"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, options);
}

}  // namespace benchledger::testing
