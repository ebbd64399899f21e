// capture_git reports a real repository's commit, branch and dirtiness, nulls elsewhere, and a
// note for each way git itself failed.
#include <stdlib.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "env/env.hpp"
#include "env_test_support.hpp"
#include "support/process.hpp"
#include "support/scratch_dir.hpp"

using benchledger::env::capture_git;
using benchledger::env::capture_git_with_notes;
using std::optional;
using std::string;

namespace {

using benchledger::test_support::ScratchDir;

// Runs a git command in dir through the shell; returns its stdout.
string git(const std::filesystem::path& dir, const string& args) {
  const string command = "git -C '" + dir.string() +
                         "' -c user.name=test -c user.email=test@example.com "
                         "-c init.defaultBranch=trunk -c commit.gpgsign=false " +
                         args + " 2>/dev/null";
  const auto result = benchledger::test_support::run_shell(command);
  REQUIRE(result.exit_code == 0);
  string out = result.out;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace

TEST_CASE("capture_git reads commit, branch and dirtiness of a repository") {
  ScratchDir repo;
  git(repo.path(), "init -q");
  std::ofstream(repo.path() / "a.txt") << "one\n";
  git(repo.path(), "add a.txt");
  git(repo.path(), "commit -q -m first");
  const string head = git(repo.path(), "rev-parse HEAD");

  auto state = capture_git(repo.path());
  CHECK(state.commit == optional<string>(head));
  CHECK(state.branch == optional<string>("trunk"));
  CHECK(state.dirty == optional<bool>(false));

  // An untracked file does not make the tree dirty; a changed tracked file does.
  std::ofstream(repo.path() / "untracked.txt") << "x\n";
  CHECK(capture_git(repo.path()).dirty == optional<bool>(false));
  std::ofstream(repo.path() / "a.txt") << "two\n";
  CHECK(capture_git(repo.path()).dirty == optional<bool>(true));

  // A detached HEAD has no branch; a subdirectory belongs to the same repository.
  git(repo.path(), "checkout -q --detach");
  std::filesystem::create_directory(repo.path() / "sub");
  state = capture_git(repo.path() / "sub");
  CHECK(state.commit == optional<string>(head));
  CHECK(state.branch == optional<string>());
}

TEST_CASE("capture_git outside a repository, or without git, gives nulls") {
  ScratchDir plain;
  CHECK(capture_git(plain.path()) == benchledger::GitState{});
  CHECK(capture_git(plain.path() / "missing") == benchledger::GitState{});
  const auto no_git_dir = benchledger::env::testing::fixtures_dir() / "tools_ok";
  CHECK(capture_git(std::filesystem::current_path(), std::chrono::milliseconds(2000),
                    {no_git_dir}) == benchledger::GitState{});
}

namespace {

// An executable named git in dir, with the given content.
void write_git(const std::filesystem::path& dir, const string& content) {
  std::ofstream(dir / "git", std::ios::binary) << content;
  std::filesystem::permissions(dir / "git", std::filesystem::perms::owner_all);
}

bool any_contains(const std::vector<string>& lines, const string& part) {
  for (const auto& line : lines) {
    if (line.find(part) != string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("outside a repository, or without git, capture_git has nothing to tell") {
  ScratchDir plain;
  CHECK(capture_git_with_notes(plain.path()).notes.empty());
  const auto no_git_dir = benchledger::env::testing::fixtures_dir() / "tools_ok";
  CHECK(capture_git_with_notes(plain.path(), std::chrono::milliseconds(2000), {no_git_dir})
            .notes.empty());
}

TEST_CASE("a git that does not answer in time leaves the state null and says so") {
  ScratchDir tools, repo;
  write_git(tools.path(), "#!/bin/sh\nsleep 60\n");
  const auto capture =
      capture_git_with_notes(repo.path(), std::chrono::milliseconds(300), {tools.path()});
  CHECK(capture.git == benchledger::GitState{});
  INFO((capture.notes.empty() ? string() : capture.notes.front()));
  CHECK(any_contains(capture.notes, "git rev-parse: no answer within 300 ms (killed)"));
}

TEST_CASE("a git that cannot be started leaves the state null and says so") {
  ScratchDir tools, repo;
  write_git(tools.path(), "neither an ELF file nor a script\n");  // execve: ENOEXEC
  const auto capture =
      capture_git_with_notes(repo.path(), std::chrono::milliseconds(2000), {tools.path()});
  CHECK(capture.git == benchledger::GitState{});
  REQUIRE(capture.notes.size() == 1);
  CHECK(capture.notes.front().rfind("git: ", 0) == 0);
}

TEST_CASE("a git that fails on a repository it recognised keeps what it read and says so") {
  ScratchDir tools, repo;
  // argv: git -C DIR SUBCOMMAND ...
  write_git(tools.path(),
            "#!/bin/sh\n"
            "case \"$3\" in\n"
            "  rev-parse) echo 0123456789abcdef0123456789abcdef01234567 ;;\n"
            "  symbolic-ref) echo trunk ;;\n"
            "  status) exit 3 ;;\n"
            "esac\n");
  const auto capture =
      capture_git_with_notes(repo.path(), std::chrono::milliseconds(2000), {tools.path()});
  CHECK(capture.git.commit == optional<string>("0123456789abcdef0123456789abcdef01234567"));
  CHECK(capture.git.branch == optional<string>("trunk"));
  CHECK(capture.git.dirty == optional<bool>());
  CHECK(capture.notes == std::vector<string>{"git status: exited with status 3"});
}
