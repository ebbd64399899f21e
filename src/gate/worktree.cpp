#include "gate/worktree.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <fstream>
#include <optional>
#include <sstream>
#include <system_error>

#include <fmt/format.h>
#include <benchledger/error.hpp>

#include "gate/steps.hpp"

namespace benchledger::gate {
namespace {

std::string first_line(const std::string& text) {
  const std::size_t end = text.find('\n');
  return end == std::string::npos ? text : text.substr(0, end);
}

// The start time of process `pid` (field 22 of /proc/PID/stat, in clock ticks since boot), or
// nothing when there is no such process.
std::optional<unsigned long long> start_time(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return std::nullopt;
  // The command name in parentheses may hold spaces: the fields count from after its ')'.
  const std::size_t name_end = stat.rfind(')');
  if (name_end == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(name_end + 1));
  std::string field;
  for (int number = 3; fields >> field; ++number) {
    if (number == 22) {
      try {
        return std::stoull(field);
      } catch (const std::exception&) {
        return std::nullopt;
      }
    }
  }
  return std::nullopt;
}

// Holds an exclusive lock on `<git common dir>/benchledger-worktrees.lock` while it lives, so
// that gates sharing a repository change git's list of worktrees one at a time: `git worktree
// prune` or `remove` deletes `.git/worktrees` once it is empty, which fails another gate's `add`
// that is creating its entry there at that moment. Without a common directory (git failed, the
// lock file cannot be made) it holds nothing, and git's own errors say what went wrong.
class WorktreeListLock {
 public:
  WorktreeListLock(process::Executor& executor, const std::filesystem::path& repository,
                   const std::filesystem::path& log) {
    const ProcessResult found =
        run_process(executor, {"git", "rev-parse", "--path-format=absolute", "--git-common-dir"},
                    repository, log, true);
    if (!found.ok() || first_line(found.output).empty()) return;
    const std::filesystem::path file =
        std::filesystem::path(first_line(found.output)) / "benchledger-worktrees.lock";
    m_fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (m_fd < 0) return;
    while (::flock(m_fd, LOCK_EX) != 0) {
      if (errno != EINTR) {
        ::close(m_fd);
        m_fd = -1;
        return;
      }
    }
  }
  ~WorktreeListLock() {
    if (m_fd >= 0) ::close(m_fd);  // closing releases the lock
  }
  WorktreeListLock(const WorktreeListLock&) = delete;
  WorktreeListLock& operator=(const WorktreeListLock&) = delete;

 private:
  int m_fd = -1;
};

}  // namespace

void prune_worktrees(process::Executor& executor, const std::filesystem::path& repository,
                     const std::filesystem::path& log) {
  const WorktreeListLock lock(executor, repository, log);
  append_to_log(log, "$ git worktree prune");
  const ProcessResult pruned =
      run_process(executor, {"git", "worktree", "prune"}, repository, log, false);
  if (!pruned.ok()) append_to_log(log, "(git worktree prune " + pruned.describe() + ")");
}

void claim_work_directory(const std::filesystem::path& dir) {
  const int pid = static_cast<int>(::getpid());
  const auto started = start_time(pid);
  // Renamed into place: a gate starting meanwhile reads the whole file or none.
  const std::filesystem::path written = dir / (std::string(k_owner_file) + ".new");
  std::ofstream out(written);
  out << pid << ' ' << started.value_or(0) << '\n';
  out.close();
  std::error_code ec;
  if (out) std::filesystem::rename(written, dir / k_owner_file, ec);
  if (!out || ec) throw Error("cannot write " + (dir / k_owner_file).string());
}

void release_work_directory(const std::filesystem::path& dir) {
  std::error_code ignored;
  std::filesystem::remove(dir / k_owner_file, ignored);
}

std::vector<AbandonedDirectory> remove_abandoned_work_directories(
    const std::filesystem::path& parent, const std::string& prefix) {
  std::vector<AbandonedDirectory> removed;
  // Without /proc no process would seem to be running: nothing is proven abandoned.
  if (!start_time(static_cast<int>(::getpid()))) return removed;
  std::error_code ec;
  std::filesystem::directory_iterator entries(parent, ec);
  if (ec) return removed;
  for (const std::filesystem::directory_entry& entry : entries) {
    if (!entry.path().filename().string().starts_with(prefix)) continue;
    struct stat info {};
    if (::lstat(entry.path().c_str(), &info) != 0 || !S_ISDIR(info.st_mode) ||
        info.st_uid != ::getuid()) {
      continue;
    }
    std::ifstream owner(entry.path() / k_owner_file);
    int pid = 0;
    unsigned long long started = 0;
    if (!(owner >> pid >> started) || pid <= 0 || started == 0) continue;
    const auto running_since = start_time(pid);
    if (running_since && *running_since == started) continue;  // still at work
    std::filesystem::remove_all(entry.path(), ec);
    if (!ec) removed.push_back({entry.path(), pid});
  }
  return removed;
}

std::filesystem::path repository_root(process::Executor& executor,
                                      const std::filesystem::path& start,
                                      const std::filesystem::path& log) {
  append_to_log(log, "$ git rev-parse --show-toplevel   # in " + start.string());
  const ProcessResult found =
      run_process(executor, {"git", "rev-parse", "--show-toplevel"}, start, log, true);
  if (found.exit_code == 127)
    throw Error("git is not installed (the gate needs it: apt-get install git)");
  if (!found.ok() || first_line(found.output).empty()) {
    throw Error(start.string() +
                " is not in a git repository: run the gate in the repository "
                "whose revisions it compares");
  }
  return first_line(found.output);
}

std::string resolve_commit(process::Executor& executor, const std::filesystem::path& repository,
                           const std::string& revision, const std::filesystem::path& log) {
  append_to_log(log, "$ git rev-parse --verify --quiet " + revision + "^{commit}");
  const ProcessResult found = run_process(
      executor,
      {"git", "rev-parse", "--verify", "--quiet", "--end-of-options", revision + "^{commit}"},
      repository, log, true);
  if (!found.ok() || first_line(found.output).empty()) {
    throw Error(fmt::format("unknown revision \"{}\" in {} (fetch it first in a shallow clone)",
                            revision, repository.string()));
  }
  return first_line(found.output);
}

Worktree::Worktree(process::Executor& executor, std::filesystem::path repository,
                   const std::string& commit, std::filesystem::path path, std::filesystem::path log)
    : m_executor(executor),
      m_repository(std::move(repository)),
      m_path(std::move(path)),
      m_log(std::move(log)) {
  const WorktreeListLock lock(m_executor, m_repository, m_log);
  append_to_log(m_log, "$ git worktree add --detach " + m_path.string() + " " + commit);
  const ProcessResult added = run_process(
      m_executor, {"git", "worktree", "add", "--detach", "--force", m_path.string(), commit},
      m_repository, m_log, false);
  if (!added.ok()) {
    throw Error(fmt::format("cannot check out {} in a worktree at {} ({}); git said:\n{}", commit,
                            m_path.string(), added.describe(), log_tail(m_log, 5)));
  }
}

Worktree::~Worktree() {
  if (m_keep) return;
  try {
    const WorktreeListLock lock(m_executor, m_repository, m_log);
    append_to_log(m_log, "$ git worktree remove --force " + m_path.string());
    std::ignore = run_process(m_executor, {"git", "worktree", "remove", "--force", m_path.string()},
                              m_repository, m_log, false);
  } catch (const Error&) {
    // Nothing more to do: the directory goes below, and `git worktree prune` forgets it.
  }
  std::error_code ignored;
  std::filesystem::remove_all(m_path, ignored);
}

}  // namespace benchledger::gate
