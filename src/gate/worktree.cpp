#include "gate/worktree.hpp"

#include <system_error>

#include <fmt/format.h>
#include <benchledger/error.hpp>

#include "gate/process.hpp"

namespace benchledger::gate {
namespace {

std::string first_line(const std::string& text) {
  const std::size_t end = text.find('\n');
  return end == std::string::npos ? text : text.substr(0, end);
}

}  // namespace

std::filesystem::path repository_root(const std::filesystem::path& start,
                                      const std::filesystem::path& log) {
  append_to_log(log, "$ git rev-parse --show-toplevel   # in " + start.string());
  const ProcessResult found =
      run_process({"git", "rev-parse", "--show-toplevel"}, start, log, true);
  if (found.exit_code == 127)
    throw Error("git is not installed (the gate needs it: apt-get install git)");
  if (!found.ok() || first_line(found.output).empty()) {
    throw Error(start.string() +
                " is not in a git repository: run the gate in the repository "
                "whose revisions it compares");
  }
  return first_line(found.output);
}

std::string resolve_commit(const std::filesystem::path& repository, const std::string& revision,
                           const std::filesystem::path& log) {
  append_to_log(log, "$ git rev-parse --verify --quiet " + revision + "^{commit}");
  const ProcessResult found = run_process(
      {"git", "rev-parse", "--verify", "--quiet", "--end-of-options", revision + "^{commit}"},
      repository, log, true);
  if (!found.ok() || first_line(found.output).empty()) {
    throw Error(fmt::format("unknown revision \"{}\" in {} (fetch it first in a shallow clone)",
                            revision, repository.string()));
  }
  return first_line(found.output);
}

Worktree::Worktree(std::filesystem::path repository, const std::string& commit,
                   std::filesystem::path path, std::filesystem::path log)
    : m_repository(std::move(repository)), m_path(std::move(path)), m_log(std::move(log)) {
  append_to_log(m_log, "$ git worktree add --detach " + m_path.string() + " " + commit);
  const ProcessResult added =
      run_process({"git", "worktree", "add", "--detach", "--force", m_path.string(), commit},
                  m_repository, m_log, false);
  if (!added.ok()) {
    throw Error(fmt::format("cannot check out {} in a worktree at {} ({}); git said:\n{}", commit,
                            m_path.string(), added.describe(), log_tail(m_log, 5)));
  }
}

Worktree::~Worktree() {
  if (m_keep) return;
  try {
    append_to_log(m_log, "$ git worktree remove --force " + m_path.string());
    std::ignore = run_process({"git", "worktree", "remove", "--force", m_path.string()},
                              m_repository, m_log, false);
  } catch (const Error&) {
    // Nothing more to do: the directory goes below, and `git worktree prune` forgets it.
  }
  std::error_code ignored;
  std::filesystem::remove_all(m_path, ignored);
}

}  // namespace benchledger::gate
