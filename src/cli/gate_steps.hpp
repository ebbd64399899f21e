// What `gate` and `bisect` share on the command line: a temporary directory for the worktrees,
// the command's own argv for the runs it records, and running under StopSignals so that Ctrl-C
// or a CI runner's SIGTERM removes the worktrees before the process ends by that signal.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace benchledger::cli {

// A fresh directory `TMPDIR/benchledger-NAME-XXXXXX` for the worktrees, removed with what is
// left in it on destruction unless `keep`: outside the user's repository, so that nothing
// checked out shows in its `git status`. Throws Error when it cannot be made.
class WorkDirectory {
 public:
  WorkDirectory(const std::string& name, bool keep);
  ~WorkDirectory();
  WorkDirectory(const WorkDirectory&) = delete;
  WorkDirectory& operator=(const WorkDirectory&) = delete;
  const std::filesystem::path& path() const { return m_path; }

 private:
  std::filesystem::path m_path;
  bool m_keep;
};

// argv as the kernel has it, for the measured runs' `command`.
std::vector<std::string> own_arguments();

// Runs `run` (through run_gating: exit 1 is the command's verdict) with StopSignals alive; after
// a stop signal, says so on stderr (`NAME: stopped by signal …`) and ends by that signal.
int run_stoppable(const std::string& name, const std::function<int()>& run);

}  // namespace benchledger::cli
