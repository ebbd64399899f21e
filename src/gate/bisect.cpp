#include "gate/bisect.hpp"

#include <fmt/format.h>
#include <benchledger/error.hpp>

#include "gate/steps.hpp"
#include "gate/worktree.hpp"

namespace benchledger::gate {
namespace {

bool is_commit_id(const std::string& word) {
  if (word.size() != 40) return false;
  for (const char c : word) {
    if ((c < '0' || c > '9') && (c < 'a' || c > 'f')) return false;
  }
  return true;
}

const char* mark_word(BisectMark mark) {
  switch (mark) {
    case BisectMark::good:
      return "good";
    case BisectMark::bad:
      return "bad";
    case BisectMark::skip:
      return "skip";
  }
  return "skip";
}

// Runs `git bisect ARGS...` in the bisect's worktree; its standard output, which says what
// git concluded. Throws Error naming the step when git fails for another reason.
std::string git_bisect(process::Executor& executor, const std::filesystem::path& worktree,
                       const std::vector<std::string>& args, const std::filesystem::path& log) {
  std::vector<std::string> argv{"git", "bisect"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::string line = "$";
  for (const std::string& word : argv) line += " " + word;
  append_to_log(log, line);
  const ProcessResult done = run_process(executor, argv, worktree, log, true);
  append_to_log(log, done.output);
  throw_if_stopped();
  // Exit 2 comes with "only 'skip'ped commits left": a conclusion, not a failure.
  if (!done.ok() && done.output.find("could be any of") == std::string::npos) {
    throw Error(fmt::format("`{}` failed ({}); the end of its output:\n{}", line.substr(2),
                            done.describe(), log_tail(log, 10)));
  }
  return done.output;
}

// What git concluded from `output`, into `outcome`; false while it is still bisecting.
bool concluded(const std::string& output, BisectOutcome& outcome) {
  std::vector<std::string> words;
  for (std::size_t at = 0; at < output.size();) {
    const std::size_t end = output.find_first_of(" \n", at);
    words.push_back(output.substr(at, end == std::string::npos ? std::string::npos : end - at));
    at = end == std::string::npos ? output.size() : end + 1;
  }
  const std::size_t named = output.find(" is the first bad commit");
  if (named != std::string::npos) {
    const std::size_t line = output.rfind('\n', named);
    const std::string commit = output.substr(line == std::string::npos ? 0 : line + 1,
                                             named - (line == std::string::npos ? 0 : line + 1));
    if (!is_commit_id(commit))
      throw Error("git bisect named a first bad commit that is not one: " + commit);
    outcome.first_bad = commit;
    return true;
  }
  if (output.find("could be any of") != std::string::npos) {
    for (const std::string& word : words) {
      if (is_commit_id(word)) outcome.candidates.push_back(word);
    }
    return true;
  }
  return false;
}

}  // namespace

BisectOutcome bisect(const BisectSettings& settings,
                     const std::function<BisectMark(const std::string& commit)>& test) {
  StepExecutor executor;
  const std::filesystem::path repository = repository_root(executor, settings.start, settings.log);
  BisectOutcome outcome;
  outcome.good_commit = resolve_commit(executor, repository, settings.good_revision, settings.log);
  outcome.bad_commit = resolve_commit(executor, repository, settings.bad_revision, settings.log);
  append_to_log(settings.log, "$ git merge-base --is-ancestor GOOD BAD");
  const ProcessResult ancestor = run_process(
      executor, {"git", "merge-base", "--is-ancestor", outcome.good_commit, outcome.bad_commit},
      repository, settings.log, false);
  if (outcome.good_commit == outcome.bad_commit || !ancestor.ok()) {
    throw Error(
        fmt::format("{} ({}) is not an ancestor of {} ({}): bisect looks for the first bad "
                    "commit on the way from a good one to a bad one",
                    settings.good_revision, outcome.good_commit.substr(0, 12),
                    settings.bad_revision, outcome.bad_commit.substr(0, 12)));
  }
  const BisectMark at_bad = test(outcome.bad_commit);
  outcome.steps.push_back({outcome.bad_commit, at_bad});
  if (at_bad != BisectMark::bad) {
    throw Error(fmt::format(
        "{} ({}) tests {} against {}: there is no regression to bisect", settings.bad_revision,
        outcome.bad_commit.substr(0, 12),
        at_bad == BisectMark::good ? "good" : "neither good nor bad (it does not build)",
        settings.good_revision));
  }
  // The bisect's own worktree: git keeps a bisect's state per worktree, and --no-checkout
  // leaves its files alone (each candidate is built in the gate's worktrees), so BISECT_HEAD
  // alone says which commit to test.
  const Worktree worktree(executor, repository, outcome.bad_commit, settings.work / "bisect",
                          settings.log);
  std::string output =
      git_bisect(executor, worktree.path(),
                 {"start", "--no-checkout", outcome.bad_commit, outcome.good_commit}, settings.log);
  while (!concluded(output, outcome)) {
    const std::string commit =
        resolve_commit(executor, worktree.path(), "BISECT_HEAD", settings.log);
    const BisectMark mark = test(commit);
    outcome.steps.push_back({commit, mark});
    output = git_bisect(executor, worktree.path(), {mark_word(mark), commit}, settings.log);
  }
  return outcome;
}

}  // namespace benchledger::gate
