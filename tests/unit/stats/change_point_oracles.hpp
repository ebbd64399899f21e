// What the change-point oracle tests share: running an oracle script under its virtual
// environment, and judging a change point against the generated series' real steps and outliers.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "stats/change_points.hpp"

namespace benchledger::test {

// Runs tests/unit/stats/SCRIPT under VENV/bin/python3 of the source tree with ARGUMENTS and the
// path OUTPUT (in the working directory) last, and returns the JSON it wrote there. Fails the
// test, naming the command and what tools/setup installs, when the script fails.
inline nlohmann::json run_change_point_oracle(const std::string& venv, const std::string& script,
                                              const std::vector<std::string>& arguments,
                                              const std::string& output,
                                              const std::string& installs) {
  const char* source = std::getenv("BENCHLEDGER_SOURCE_DIR");
  if (source == nullptr) FAIL("BENCHLEDGER_SOURCE_DIR must be set (ctest sets it)");
  const std::filesystem::path out = std::filesystem::current_path() / output;
  std::string command = "'" + std::string(source) + "/" + venv + "/bin/python3' '" + source +
                        "/tests/unit/stats/" + script + "'";
  for (const auto& argument : arguments) command += " '" + argument + "'";
  command += " '" + out.string() + "'";
  if (std::system(command.c_str()) != 0) {
    FAIL(script << " failed (tools/setup installs " << installs << " into " << venv
                << "): " << command);
  }
  std::ifstream in(out);
  return nlohmann::json::parse(in);
}

inline std::vector<std::size_t> indices(const std::vector<stats::ChangePoint>& points) {
  std::vector<std::size_t> out;
  for (const auto& p : points) out.push_back(p.index);
  return out;
}

inline std::size_t distance(std::size_t a, std::size_t b) {
  return a > b ? a - b : b - a;
}

// A change point within 2 points of a real step finds it; any other is false.
inline bool near_step(std::size_t index, const std::vector<std::size_t>& steps) {
  return std::any_of(steps.begin(), steps.end(),
                     [&](std::size_t s) { return distance(index, s) <= 2; });
}

// A change point at an outlier or at the run after it (its return) counts the outlier as a change.
inline bool on_outlier(std::size_t index, const std::vector<std::size_t>& outliers) {
  return std::any_of(outliers.begin(), outliers.end(),
                     [&](std::size_t s) { return index == s || index == s + 1; });
}

// detect's options for the oracles' window and significance, with no minimum change.
inline stats::ChangePointOptions oracle_options(const nlohmann::json& generated) {
  stats::ChangePointOptions options;
  options.window = generated["window"].get<std::size_t>();
  options.max_p = generated["max_p"].get<double>();
  options.min_magnitude = 0;
  return options;
}

}  // namespace benchledger::test
