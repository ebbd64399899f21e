// The NDJSON line reader returns every complete line exactly, across buffer boundaries, and
// never returns the bytes after the last newline or a line over the length limit; asked to, it
// stops at a line over the limit without reading on.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ledger/ndjson/line_reader.hpp"
#include "unit/ledger/ledger_support.hpp"

using benchledger::ledger::ndjson::LineReader;
using benchledger::testing::ScratchDir;
using benchledger::testing::write_file;

namespace {

struct Read {
  std::vector<std::string> lines;
  std::vector<std::int64_t> offsets;
  std::vector<bool> too_long;
  std::int64_t tail = 0, tail_offset = 0;
};

Read read_all(const std::filesystem::path& path, std::int64_t limit, std::size_t max_line) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  LineReader reader(fd, path.string(), limit, max_line);
  Read out;
  LineReader::Line line;
  while (reader.next(line)) {
    out.lines.emplace_back(line.bytes);
    out.offsets.push_back(line.offset);
    out.too_long.push_back(line.too_long);
  }
  out.tail = reader.tail_bytes();
  out.tail_offset = reader.tail_offset();
  ::close(fd);
  return out;
}

}  // namespace

TEST_CASE("lines longer than the first buffer come back whole, with their offsets") {
  ScratchDir dir;
  const std::string big(3u << 20, 'x');  // three times the initial 1 MiB buffer
  write_file(dir / "f", "a\n" + big + "\n\nlast\ntorn");
  const Read read = read_all(dir / "f", -1, 16u << 20);
  REQUIRE(read.lines.size() == 4);
  CHECK(read.lines[0] == "a");
  CHECK(read.lines[1] == big);
  CHECK(read.lines[2].empty());
  CHECK(read.lines[3] == "last");
  CHECK(read.offsets[3] == static_cast<std::int64_t>(2 + big.size() + 2));
  CHECK(read.tail == 4);
  CHECK(read.tail_offset == static_cast<std::int64_t>(2 + big.size() + 2 + 5));
}

TEST_CASE("a line over the limit is flagged and skipped, and reading goes on after it") {
  ScratchDir dir;
  write_file(dir / "f", "ok\n" + std::string(5000, 'y') + "\nafter\n" + std::string(7000, 'z'));
  const Read read = read_all(dir / "f", -1, 1000);
  REQUIRE(read.lines.size() == 3);
  CHECK(read.lines[0] == "ok");
  CHECK(read.too_long[1]);
  CHECK(read.lines[1].empty());
  CHECK(read.lines[2] == "after");
  CHECK(read.tail == 7000);
}

TEST_CASE("the reader stops at the limit it was given, as at the end of the file") {
  ScratchDir dir;
  write_file(dir / "f", "one\ntwo\nthree\n");
  const Read read = read_all(dir / "f", 10, 1000);
  REQUIRE(read.lines.size() == 2);
  CHECK(read.lines[1] == "two");
  CHECK(read.tail == 2);
}

TEST_CASE("with LongLine::stop a line over the limit is returned at once, nothing after it read") {
  // A pipe whose writer stays open: reading on after the limit would wait for ever. The read
  // runs in a child process, which a hang guard kills.
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  const std::string over(1001, 'x');  // max_line 1000, no newline
  REQUIRE(::write(pipe_fds[1], over.data(), over.size()) == static_cast<ssize_t>(over.size()));
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::close(pipe_fds[1]);
    LineReader reader(pipe_fds[0], "pipe", -1, 1000, LineReader::LongLine::stop);
    LineReader::Line line;
    const bool got = reader.next(line);
    const bool ended = !reader.next(line);
    ::_exit(got && line.too_long && line.number == 1 && line.length == 1001 && ended ? 0 : 1);
  }
  ::close(pipe_fds[0]);
  int status = 0;
  bool hung = true;
  for (int wait = 0; wait < 1200 && hung; ++wait) {  // a hang guard of 120 s, not a timing
    hung = ::waitpid(child, &status, WNOHANG) == 0;
    if (hung) ::usleep(100'000);
  }
  if (hung) {
    ::kill(child, SIGKILL);
    ::waitpid(child, &status, 0);
  }
  ::close(pipe_fds[1]);
  CHECK_FALSE(hung);
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
}
