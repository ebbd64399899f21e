// The user's git repository as the gate sees it: revisions resolved to commits, each checked
// out in a temporary worktree that is removed again (git's own bookkeeping included).
#pragma once

#include <filesystem>
#include <string>

namespace benchledger::gate {

// The top-level directory of the git repository containing `start`. Throws Error when
// `start` is in none (or git is missing).
std::filesystem::path repository_root(const std::filesystem::path& start,
                                      const std::filesystem::path& log);

// The full commit id `revision` names in `repository`. Throws Error naming the revision when
// it names no commit.
std::string resolve_commit(const std::filesystem::path& repository, const std::string& revision,
                           const std::filesystem::path& log);

// A detached checkout of `commit` at `path`, added with `git worktree add` and removed with
// `git worktree remove --force` on destruction unless keep() was called.
class Worktree {
 public:
  // Throws Error when git cannot add the worktree.
  Worktree(std::filesystem::path repository, const std::string& commit, std::filesystem::path path,
           std::filesystem::path log);
  ~Worktree();
  Worktree(const Worktree&) = delete;
  Worktree& operator=(const Worktree&) = delete;

  const std::filesystem::path& path() const { return m_path; }
  void keep() { m_keep = true; }

 private:
  std::filesystem::path m_repository, m_path, m_log;
  bool m_keep = false;
};

}  // namespace benchledger::gate
