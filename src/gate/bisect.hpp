// `benchledger bisect GOOD BAD` without its measuring and printing (docs/history.md): git bisect
// between two commits of the user's repository, run in a temporary worktree of its own (so that
// neither the user's checkout nor a bisect of theirs is touched), each candidate judged by a
// test the caller gives.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace benchledger::gate {

enum class BisectMark { good, bad, skip };

struct BisectSettings {
  std::filesystem::path start;  // the git repository containing this
  std::string good_revision, bad_revision;
  std::filesystem::path work;  // an empty directory for the worktree
  std::filesystem::path log;   // git's output is appended here
};

struct BisectStep {
  std::string commit;
  BisectMark mark = BisectMark::skip;
};

struct BisectOutcome {
  std::string good_commit, bad_commit;
  std::vector<BisectStep> steps;  // in the order tested, BAD first
  // The first bad commit, when git could name it; else the commits it could be (skipped ones
  // among them).
  std::optional<std::string> first_bad;
  std::vector<std::string> candidates;
};

// Resolves both revisions, tests BAD first (it must test bad: else there is nothing to bisect),
// then lets git bisect choose each next commit and marks it as `test` says, until git names the
// first bad commit or only skipped commits are left. Throws Error when GOOD is not an ancestor
// of BAD, when BAD does not test bad, or when git fails; what `test` throws passes through.
BisectOutcome bisect(const BisectSettings& settings,
                     const std::function<BisectMark(const std::string& commit)>& test);

}  // namespace benchledger::gate
