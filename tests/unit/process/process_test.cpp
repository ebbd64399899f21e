// Every child benchledger starts goes through process::Child: it finds programs by one rule,
// passes the working folder, environment and user, kills the whole group at the timeout or the
// output cap, and never reads a failed wait as an exit; and every temporary folder is a
// process::TempDir, private, under TMPDIR, and gone with what is in it unless released.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <thread>

#include <benchledger/error.hpp>
#include <catch2/catch.hpp>

#include "process/process.hpp"
#include "process/temp_dir.hpp"
#include "support/scratch_dir.hpp"

namespace process = benchledger::process;
using benchledger::test_support::ScratchDir;

namespace {

process::Spec shell(const std::string& script) {
  process::Spec spec;
  spec.argv = {"sh", "-c", script};
  spec.out = process::Stream::capture();
  return spec;
}

void write_file(const std::filesystem::path& path, const std::string& text, bool executable) {
  std::ofstream(path) << text;
  std::filesystem::permissions(
      path, executable ? std::filesystem::perms::owner_all
                       : std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Gone, or a zombie nobody has reaped yet: either way no longer running.
bool process_ended(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return true;
  std::string line;
  std::getline(stat, line);
  const auto paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z';
}

}  // namespace

TEST_CASE("find_program takes only a regular file this process may execute") {
  const ScratchDir dir;
  write_file(dir / "tool", "#!/bin/sh\n", true);
  write_file(dir / "plain", "not a program\n", false);
  std::filesystem::create_directory(dir / "folder");
  CHECK(process::find_program("tool", {dir.path()}) == std::optional(dir / "tool"));
  CHECK_FALSE(process::find_program("plain", {dir.path()}));
  CHECK_FALSE(process::find_program("folder", {dir.path()}));  // access(X_OK) passes a folder
  CHECK(process::find_program((dir / "tool").string()) == std::optional(dir / "tool"));
  CHECK(process::find_program("sh").has_value());
  CHECK_FALSE(process::find_program("no-such-program-anywhere"));
}

TEST_CASE("a child gets its working folder, environment changes and exit status") {
  const ScratchDir dir;
  process::Spec spec = shell("pwd; echo \"$BENCHLEDGER_PROCESS_TEST\"; echo oops >&2; exit 3");
  spec.dir = dir.path();
  spec.env = {"BENCHLEDGER_PROCESS_TEST=given"};
  spec.err = process::Stream::tail(3);
  const process::Exit exit = process::run(spec);
  CHECK(exit.exit_code == 3);
  CHECK_FALSE(exit.ok());
  CHECK(exit.out == std::filesystem::canonical(dir.path()).string() + "\ngiven\n");
  CHECK(exit.err == "ps\n");  // the last three bytes
}

TEST_CASE("a child's output goes to a file, appended or replacing it") {
  const ScratchDir dir;
  write_file(dir / "log", "before\n", false);
  process::Spec spec = shell("echo out; echo err >&2");
  spec.out = process::Stream::to_file(dir / "log", true);
  spec.err = process::Stream::to_file(dir / "log", true);
  CHECK(process::run(spec).ok());
  CHECK(read_file(dir / "log") == "before\nout\nerr\n");
  spec.err = process::Stream::null();
  spec.out = process::Stream::to_file(dir / "log", false);
  CHECK(process::run(spec).ok());
  CHECK(read_file(dir / "log") == "out\n");
}

TEST_CASE("read_tail reads the end of an open file without moving its offset") {
  const ScratchDir dir;
  write_file(dir / "log", "first\nsecond\n", false);
  const int fd = ::open((dir / "log").c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  CHECK(process::read_tail(fd, 7) == "second\n");
  CHECK(process::read_tail(fd, 1000) == "first\nsecond\n");
  CHECK(::lseek(fd, 0, SEEK_CUR) == 0);
  ::close(fd);
}

TEST_CASE("the timeout kills the child's whole process group") {
  process::Spec spec = shell("sleep 60 & echo $!; wait");
  spec.timeout_s = 0.3;
  const process::Exit exit = process::run(spec);
  CHECK(exit.timed_out);
  CHECK(exit.signal == SIGKILL);
  const auto grandchild = static_cast<pid_t>(std::stol(exit.out));
  REQUIRE(grandchild > 0);
  bool ended = false;
  for (int i = 0; i < 500 && !ended; ++i) {
    ended = process_ended(grandchild);
    if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK(ended);
  if (!ended) ::kill(grandchild, SIGKILL);
}

TEST_CASE("a capture keeps its first bytes and stops a child that writes more") {
  process::Spec spec;
  spec.argv = {"yes"};
  spec.out = process::Stream::capture(1000);
  const process::Exit exit = process::run(spec);
  CHECK(exit.truncated);
  CHECK(exit.out.size() == 1000);
  CHECK_FALSE(exit.exit_code);
}

TEST_CASE("a child that cannot start is an error naming it and the reason") {
  process::Spec spec;
  spec.argv = {"no-such-program-anywhere"};
  CHECK_THROWS_AS(process::run(spec), process::SpawnError);
  spec.argv = {"/no/such/program"};
  CHECK_THROWS_WITH(process::run(spec), Catch::Contains("\"/no/such/program\""));
  // Pinned to a CPU, the child is forked: its failure before exec comes back all the same.
  const ScratchDir dir;
  spec = shell("true");
  spec.cpus = {0};
  spec.dir = dir / "missing";
  CHECK_THROWS_WITH(process::run(spec), Catch::Contains("chdir"));
}

TEST_CASE("a child runs as the user it is given") {
  process::Spec spec = shell("id -u; id -g");
  spec.user = process::User{65534, 65534};  // nobody, nogroup
  spec.parent_death_signal = SIGTERM;
  if (::geteuid() == 0) {
    const process::Exit exit = process::run(spec);
    CHECK(exit.out == "65534\n65534\n");
  } else {
    // Only root may change its user: the refusal is the child's failure to start.
    CHECK_THROWS_AS(process::run(spec), process::SpawnError);
  }
}

TEST_CASE("stop sends its signal, and SIGKILL to a child that ignores it past the grace") {
  process::Spec spec;
  spec.argv = {"sleep", "60"};
  process::Child polite(spec);
  const pid_t first = polite.pid();
  polite.stop(SIGINT, std::chrono::seconds(60));
  CHECK(process_ended(first));
  process::Child deaf(shell("trap '' INT; echo ready; sleep 60"));
  const pid_t second = deaf.pid();
  deaf.stop(SIGINT, std::chrono::milliseconds(200));
  CHECK(process_ended(second));
}

TEST_CASE("a wait that fails is an error, not an exit status") {
  process::Child child(shell("exit 0"));
  int status = 0;
  REQUIRE(::waitpid(child.pid(), &status, 0) == child.pid());  // reaped behind its back
  CHECK_THROWS_WITH(child.reap(), Catch::Contains("No child processes"));
}

TEST_CASE("a temporary folder is private, under TMPDIR, and removed with its files unless kept") {
  const ScratchDir tmp;
  const std::optional<std::string> saved = std::getenv("TMPDIR") != nullptr
                                               ? std::optional<std::string>(std::getenv("TMPDIR"))
                                               : std::nullopt;
  ::setenv("TMPDIR", tmp.path().c_str(), 1);
  std::filesystem::path removed, kept;
  {
    const process::TempDir dir("benchledger-test", "a test");
    removed = dir.path();
    CHECK(removed.parent_path() == tmp.path());
    CHECK(removed.filename().string().rfind("benchledger-test-", 0) == 0);
    CHECK(std::filesystem::status(removed).permissions() == std::filesystem::perms::owner_all);
    std::filesystem::create_directories(removed / "inner");
    write_file(removed / "inner" / "file", "x", false);
  }
  CHECK_FALSE(std::filesystem::exists(removed));
  {
    process::TempDir dir("benchledger-test", "a test");
    kept = dir.path();
    dir.release();
  }
  CHECK(std::filesystem::is_directory(kept));
  // A TMPDIR that is a file: the error names the folder, what it was for and why.
  write_file(tmp / "plain", "", false);
  ::setenv("TMPDIR", (tmp / "plain").c_str(), 1);
  CHECK_THROWS_WITH(process::TempDir("benchledger-test", "a test's files"),
                    Catch::Contains("cannot create a directory like " + (tmp / "plain").string() +
                                    "/benchledger-test-XXXXXX") &&
                        Catch::Contains("for a test's files: Not a directory"));
  if (saved) {
    ::setenv("TMPDIR", saved->c_str(), 1);
  } else {
    ::unsetenv("TMPDIR");
  }
}
