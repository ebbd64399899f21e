// What the scipy oracle tests share: running an oracle script of this folder under
// BENCHLEDGER_PYTHON3 (Debian's python3-scipy) and reading the JSON it writes.
#pragma once

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/process.hpp"

namespace benchledger::test {

// Runs tests/unit/stats/SCRIPT with the path OUTPUT (in the working directory) as its argument
// and returns the JSON it wrote there. Fails the test when the script fails.
inline nlohmann::json run_scipy_oracle(const std::string& script, const std::string& output) {
  const char* python = std::getenv("BENCHLEDGER_PYTHON3");
  const char* source = std::getenv("BENCHLEDGER_SOURCE_DIR");
  if (python == nullptr || source == nullptr) {
    FAIL("BENCHLEDGER_PYTHON3 and BENCHLEDGER_SOURCE_DIR must be set (ctest sets them)");
  }
  const std::filesystem::path out = std::filesystem::current_path() / output;
  const std::string path = std::string(source) + "/tests/unit/stats/" + script;
  const auto run = benchledger::test_support::run_process({python, path, out.string()});
  if (run.exit_code != 0) FAIL("the scipy oracle failed: " << path << "\n" << run.err);
  std::ifstream in(out);
  return nlohmann::json::parse(in);
}

// Equal within a relative tolerance, or an absolute one near zero.
inline bool close(double actual, double expected, double relative, double absolute = 1e-300) {
  return std::abs(actual - expected) <= absolute + relative * std::abs(expected);
}

// A JSON array of the oracle's numbers.
inline std::vector<double> values(const nlohmann::json& array) {
  return array.get<std::vector<double>>();
}

}  // namespace benchledger::test
