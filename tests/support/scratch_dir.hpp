// The one scratch directory of every test: a fresh directory under the system temp dir, outside
// the source tree on purpose (no benchledger.json or git repository above it changes what the CLI
// does), removed with everything in it when the object goes, unless BENCHLEDGER_KEEP_TEST_FILES is
// set (to look at what a failed test left).
#pragma once

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace benchledger::test_support {

class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "benchledger-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    m_path = pattern;
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  virtual ~ScratchDir() {
    if (std::getenv("BENCHLEDGER_KEEP_TEST_FILES") != nullptr) return;
    std::error_code ignored;
    std::filesystem::remove_all(m_path, ignored);
  }

  const std::filesystem::path& path() const { return m_path; }
  std::filesystem::path operator/(const std::string& name) const { return m_path / name; }
  // mkdtemp's suffix: six letters and digits, unique among live scratch directories (for names
  // that must not collide, such as databases on a shared server).
  std::string suffix() const {
    const std::string name = m_path.filename().string();
    return name.substr(name.size() - 6);
  }

 private:
  std::filesystem::path m_path;
};

}  // namespace benchledger::test_support
