// The user's git repository as the gate sees it: revisions resolved to commits, each checked
// out in a temporary worktree that is removed again (git's own bookkeeping included). Every git
// command runs through the executor it is given (gate/steps.hpp's run_process).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "process/executor.hpp"

namespace benchledger::gate {

// The top-level directory of the git repository containing `start`. Throws Error when
// `start` is in none (or git is missing).
std::filesystem::path repository_root(process::Executor& executor,
                                      const std::filesystem::path& start,
                                      const std::filesystem::path& log);

// The full commit id `revision` names in `repository`. Throws Error naming the revision when
// it names no commit.
std::string resolve_commit(process::Executor& executor, const std::filesystem::path& repository,
                           const std::string& revision, const std::filesystem::path& log);

// `git worktree prune` in `repository`: git forgets the worktrees whose folders are gone (those
// of a gate killed outright, once remove_abandoned_work_directories has removed its folder). A
// failure is logged and otherwise ignored: the stale entries only clutter `git worktree list`.
void prune_worktrees(process::Executor& executor, const std::filesystem::path& repository,
                     const std::filesystem::path& log);

// The file in a gate's (or bisect's) temporary folder that names the process using it.
inline constexpr const char* k_owner_file = ".benchledger-owner";

// Writes k_owner_file into `dir`: this process's id and start time, which tell a later gate
// whether the folder's user is still running. Throws Error when it cannot be written.
void claim_work_directory(const std::filesystem::path& dir);

// Gives up the claim (a kept folder is the user's, not a dead gate's): removes k_owner_file.
void release_work_directory(const std::filesystem::path& dir);

// A folder left behind by a gate that was killed outright (SIGKILL, the OOM killer), removed.
struct AbandonedDirectory {
  std::filesystem::path path;
  int pid = 0;  // the process its owner file named
};

// Removes each directory `parent`/`prefix`* that this user owns (not a symbolic link) and whose
// k_owner_file names a process that is no longer running (no such process, or another that
// started later under a reused id). A folder without the file is never touched: it may be one
// being made right now, or not benchledger's. Never throws: what cannot be read or removed is
// left as it is.
std::vector<AbandonedDirectory> remove_abandoned_work_directories(
    const std::filesystem::path& parent, const std::string& prefix);

// A detached checkout of `commit` at `path`, added with `git worktree add` and removed with
// `git worktree remove --force` on destruction unless keep() was called, both through
// `executor`, which must outlive it.
class Worktree {
 public:
  // Throws Error when git cannot add the worktree.
  Worktree(process::Executor& executor, std::filesystem::path repository, const std::string& commit,
           std::filesystem::path path, std::filesystem::path log);
  ~Worktree();
  Worktree(const Worktree&) = delete;
  Worktree& operator=(const Worktree&) = delete;

  const std::filesystem::path& path() const { return m_path; }
  void keep() { m_keep = true; }

 private:
  process::Executor& m_executor;
  std::filesystem::path m_repository, m_path, m_log;
  bool m_keep = false;
};

}  // namespace benchledger::gate
