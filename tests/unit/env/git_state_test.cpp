// capture_git reports a real repository's commit, branch and dirtiness, and nulls elsewhere.
#include <stdlib.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>

#include <catch2/catch.hpp>

#include "env/env.hpp"
#include "env_test_support.hpp"

using benchledger::env::capture_git;
using std::optional;
using std::string;

namespace {

class TempDir {
 public:
  TempDir() {
    string pattern = (std::filesystem::temp_directory_path() / "benchledger-git-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    m_dir = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_dir, ec);
  }
  const std::filesystem::path& path() const { return m_dir; }

 private:
  std::filesystem::path m_dir;
};

// Runs a git command in dir through the shell; returns its stdout.
string git(const std::filesystem::path& dir, const string& args) {
  const string command = "git -C '" + dir.string() +
                         "' -c user.name=test -c user.email=test@example.com "
                         "-c init.defaultBranch=trunk -c commit.gpgsign=false " +
                         args + " 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::array<char, 256> buffer{};
  string out;
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) out += buffer.data();
  REQUIRE(::pclose(pipe) == 0);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace

TEST_CASE("capture_git reads commit, branch and dirtiness of a repository") {
  TempDir repo;
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
  TempDir plain;
  CHECK(capture_git(plain.path()) == benchledger::GitState{});
  CHECK(capture_git(plain.path() / "missing") == benchledger::GitState{});
  const auto no_git_dir = benchledger::env::testing::fixtures_dir() / "tools_ok";
  CHECK(capture_git(std::filesystem::current_path(), std::chrono::milliseconds(2000),
                    {no_git_dir}) == benchledger::GitState{});
}
