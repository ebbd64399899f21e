// The one temporary folder: a private directory under $TMPDIR (or /tmp), removed with what is in
// it when the object goes, unless released. Every folder of src/ that needs a scratch place for a
// child's files, a throwaway server or a gate's worktrees makes it here.
#pragma once

#include <filesystem>
#include <string>

namespace benchledger::process {

// Where temporary files go: $TMPDIR, or /tmp when it is unset or empty (mkdtemp's callers and
// Valgrind alike).
std::filesystem::path temp_root();

class TempDir {
 public:
  // Makes temp_root()/PREFIX-XXXXXX (mode 0700). `what` names what it is for, in the Error
  // thrown when it cannot be made (with the system's reason).
  TempDir(const std::string& prefix, const std::string& what);
  // Removes the directory and everything in it, unless released; nothing more to do if a file
  // stays behind. Never throws.
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return m_path; }
  // Keeps the directory: the destructor leaves it where it is.
  void release() { m_released = true; }

 private:
  std::filesystem::path m_path;
  bool m_released = false;
};

}  // namespace benchledger::process
