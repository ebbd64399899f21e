// The git state of a run: commit, branch and whether the work tree has uncommitted changes.
#include <string>
#include <vector>

#include "env/env.hpp"
#include "env/sources.hpp"
#include "process/process.hpp"

namespace benchledger::env {

GitCapture capture_git_with_notes(const std::filesystem::path& dir,
                                  std::chrono::milliseconds timeout,
                                  const std::vector<std::filesystem::path>& tool_dirs) {
  GitCapture capture;
  GitState& state = capture.git;
  try {
    const auto git = process::find_program("git", tool_dirs);
    if (!git) return capture;  // not installed: null, nothing to tell
    // The output of a successful call, or nullopt; a failure other than a non-zero exit (which
    // the caller judges) becomes a note.
    const auto ask = [&](std::vector<std::string> args) -> std::optional<process::Exit> {
      const std::string subcommand = args.front();
      process::Spec spec;
      spec.argv = {git->string(), "-C", dir.string()};
      spec.argv.insert(spec.argv.end(), args.begin(), args.end());
      spec.timeout_s = static_cast<double>(timeout.count()) / 1e3;
      spec.out = process::Stream::capture(1024 * 1024);
      process::Exit run = process::run(spec);
      if (run.timed_out) {
        capture.notes.push_back("git " + subcommand + ": no answer within " +
                                std::to_string(timeout.count()) + " ms (killed)");
        return std::nullopt;
      }
      if (run.truncated) {
        capture.notes.push_back("git " + subcommand + ": more than 1 MiB of output (killed)");
        return std::nullopt;
      }
      if (!run.exit_code) {
        capture.notes.push_back("git " + subcommand + ": ended by a signal");
        return std::nullopt;
      }
      return run;
    };
    const auto commit = ask({"rev-parse", "--verify", "HEAD"});
    // A non-zero exit here: not a repository, or one without commits; nothing to tell.
    if (!commit || commit->exit_code != 0) return capture;
    state.commit = detail::trim(commit->out);
    // symbolic-ref -q exits 1 on a detached HEAD: no branch, and nothing to tell.
    if (auto branch = ask({"symbolic-ref", "--short", "-q", "HEAD"});
        branch && branch->exit_code == 0) {
      const std::string name = detail::trim(branch->out);
      if (!name.empty()) state.branch = name;
    }
    if (auto status = ask({"status", "--porcelain", "--untracked-files=no"})) {
      if (status->exit_code == 0) {
        state.dirty = !detail::trim(status->out).empty();
      } else {
        capture.notes.push_back("git status: exited with status " +
                                std::to_string(*status->exit_code));
      }
    }
  } catch (const std::exception& e) {
    capture.git = GitState{};  // unknown: every field null
    capture.notes.push_back(std::string("git: ") + e.what());
  }
  return capture;
}

GitState capture_git(const std::filesystem::path& dir, std::chrono::milliseconds timeout,
                     const std::vector<std::filesystem::path>& tool_dirs) {
  return capture_git_with_notes(dir, timeout, tool_dirs).git;
}

}  // namespace benchledger::env
