// A private directory under $TMPDIR (or /tmp) for a child's output files, removed with what
// is in it when the object goes.
#pragma once

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

#include <benchledger/error.hpp>

namespace benchledger::engine {

// Where temporary files go: $TMPDIR, or /tmp when it is unset or empty (mkdtemp's callers and
// Valgrind alike).
inline std::filesystem::path temp_root() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
}

class ScratchDir {
 public:
  // `what` names the files it is for, in the error when it cannot be made.
  ScratchDir(const std::string& prefix, const std::string& what) {
    std::string pattern = (temp_root() / (prefix + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw Error("cannot create a directory like " + pattern + " for " + what);
    m_path = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(m_path, ignored);  // nothing to do if a file stays behind
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return m_path; }

 private:
  std::filesystem::path m_path;
};

}  // namespace benchledger::engine
