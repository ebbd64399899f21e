// Helpers shared by the engine's tests: running a registry's cases, spinning on the clock,
// running /usr/bin/python3 as an oracle, temporary directories.
#pragma once

#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <benchledger/benchledger.hpp>

#include "engine/clock.hpp"
#include "engine/native.hpp"

namespace benchledger::test {

// Busy-waits until `ns` nanoseconds after the call: a deadline, so that a preemption in the
// middle does not lengthen it.
inline void spin_for(std::int64_t ns) {
  const std::int64_t end = engine::now_ns() + ns;
  while (engine::now_ns() < end) {
  }
}

// The cases of `registry` with these settings (every flag explicit, so that defaults do not
// leak into the tests).
inline std::vector<engine::NativeCase> cases_of(const Registry& registry, int repetitions,
                                                int warmup, double min_time = 0.01,
                                                double timeout = 60) {
  engine::RunSettings settings;
  settings.repetitions = repetitions;
  settings.warmup = warmup;
  settings.min_time = min_time;
  settings.timeout = timeout;
  return engine::expand_cases(registry, "", settings, {}, std::nullopt);
}

inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

struct CommandOutput {
  int status = -1;
  std::string out;
};

// Runs a shell command line, capturing stdout.
inline CommandOutput shell(const std::string& command) {
  CommandOutput result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("popen failed: " + command);
  std::array<char, 4096> buffer{};
  std::size_t n;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    result.out.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

inline std::string python3() {
  const char* python = std::getenv("BENCHLEDGER_PYTHON3");
  return python != nullptr && *python != '\0' ? python : "/usr/bin/python3";
}

inline std::filesystem::path source_dir() {
  const char* dir = std::getenv("BENCHLEDGER_SOURCE_DIR");
  if (dir == nullptr || *dir == '\0')
    throw std::runtime_error("BENCHLEDGER_SOURCE_DIR is not set (run through ctest)");
  return dir;
}

// A fresh directory under TMPDIR, removed with the object.
class TempDir {
 public:
  TempDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/benchledger-test-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    m_path = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(m_path, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return m_path; }

 private:
  std::filesystem::path m_path;
};

}  // namespace benchledger::test
