// The one golden-file check of the tests: compares an output with a file under tests/, or rewrites
// the file when BENCHLEDGER_UPDATE_GOLDEN=1 (review the diff with git before committing it).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

namespace benchledger::test_support {

// The directory `relative` under the source tree's tests/ (BENCHLEDGER_SOURCE_DIR, set by ctest).
inline std::filesystem::path tests_dir(const std::string& relative) {
  const char* source = std::getenv("BENCHLEDGER_SOURCE_DIR");
  REQUIRE(source != nullptr);
  return std::filesystem::path(source) / "tests" / relative;
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The first line where two texts differ, as "line N:\n  expected: …\n  actual:   …".
inline std::string first_difference(const std::string& expected, const std::string& actual) {
  std::istringstream e(expected), a(actual);
  std::string le, la;
  for (int line = 1;; ++line) {
    const bool more_e = static_cast<bool>(std::getline(e, le));
    const bool more_a = static_cast<bool>(std::getline(a, la));
    if (!more_e && !more_a) return "texts differ only in their final newline";
    if (!more_e || !more_a || le != la) {
      return "line " + std::to_string(line) + ":\n  expected: " + (more_e ? le : "<end>") +
             "\n  actual:   " + (more_a ? la : "<end>");
    }
  }
}

// Checks `actual` against the file `dir`/`name`, byte for byte, naming the first line that
// differs. With BENCHLEDGER_UPDATE_GOLDEN=1 it writes the file instead.
inline void check_golden(const std::filesystem::path& dir, const std::string& name,
                         const std::string& actual) {
  const std::filesystem::path path = dir / name;
  const char* update = std::getenv("BENCHLEDGER_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << actual;
    WARN("rewrote " << path.string());
    return;
  }
  REQUIRE(std::filesystem::exists(path));
  const std::string expected = read_file(path);
  INFO("golden file " << path.string() << " (BENCHLEDGER_UPDATE_GOLDEN=1 rewrites it)\n"
                      << first_difference(expected, actual));
  CHECK(expected == actual);
}

}  // namespace benchledger::test_support
