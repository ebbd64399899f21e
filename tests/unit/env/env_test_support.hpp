// Shared by the env tests: where the fixture trees are, and capturing one deterministically.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

#include <catch2/catch.hpp>

#include "env/env.hpp"

namespace Catch {
// Shows optionals in failure messages as their value or "null".
template <typename T>
struct StringMaker<std::optional<T>> {
  static std::string convert(const std::optional<T>& value) {
    return value ? StringMaker<T>::convert(*value) : std::string("null");
  }
};
}  // namespace Catch

namespace benchledger::env::testing {

inline std::filesystem::path fixtures_dir() {
  const char* source = std::getenv("BENCHLEDGER_SOURCE_DIR");
  if (source == nullptr)
    throw std::runtime_error("BENCHLEDGER_SOURCE_DIR is not set (run via ctest)");
  return std::filesystem::path(source) / "tests/unit/env/fixtures";
}

// Options for a fixture tree: no tools, a fixed compiler and build type, so that every field
// comes from the tree.
inline CaptureOptions fixture_options(const std::string& tree) {
  CaptureOptions options;
  options.root = fixtures_dir() / tree;
  options.run_tools = false;
  options.compiler = "gcc 12.2.0";
  options.build_type = "Release";
  return options;
}

inline Env capture_fixture(const std::string& tree) {
  return capture(fixture_options(tree));
}

}  // namespace benchledger::env::testing
