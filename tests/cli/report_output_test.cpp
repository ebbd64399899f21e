// `report -o PATH` writes the file PATH leads to without replacing what is there: through a
// symbolic link, keeping the file's mode and its hard links; `-` and /dev/stdout are standard
// output; a FIFO, a device or a directory is refused with exit 2 and nothing left next to it, and
// so is a file that holds a ledger, whose bytes stay as they were.
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <catch2/catch.hpp>

#include <set>

#include "integration/ledger_process.hpp"
#include "unit/ledger/ledger_support.hpp"

using namespace benchledger;
using namespace benchledger::testing;

namespace {

// A scratch directory with a ledger of one run, and the report of it on standard output.
struct Setup {
  ScratchDir dir;
  std::string ledger = (dir / "ledger.ndjson").string();
  std::string expected;
  Setup() {
    ledger::open_store(ledger)->append(fresh_batch("current", 3));
    const ProcessResult out = report({});
    REQUIRE(out.exit_code == 0);
    REQUIRE_FALSE(out.out.empty());
    expected = out.out;
  }
  ProcessResult report(const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {cli_path(), "report", "--ledger", ledger};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessOptions options;
    options.cwd = dir.path().string();
    options.env = {"BENCHLEDGER_LEDGER=", "NO_COLOR=1"};
    options.hang_guard_seconds = 120;
    return run_process(argv, options);
  }
  std::set<std::string> names() const {
    std::set<std::string> out;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
      out.insert(entry.path().filename().string());
    }
    return out;
  }
};

struct stat stat_of(const std::filesystem::path& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st;
}

}  // namespace

TEST_CASE("report -o writes through a symbolic link and keeps the file's mode") {
  Setup setup;
  const auto real = setup.dir / "real.md";
  write_file(real, "old\n");
  REQUIRE(::chmod(real.c_str(), 0600) == 0);
  std::filesystem::create_symlink("real.md", setup.dir / "link.md");
  const ProcessResult result = setup.report({"-o", "link.md"});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK(std::filesystem::is_symlink(setup.dir / "link.md"));
  CHECK(read_file(real) == setup.expected);
  CHECK((stat_of(real).st_mode & 07777) == 0600);
  CHECK(setup.names() == std::set<std::string>{"ledger.ndjson", "real.md", "link.md"});

  // A link to a file not there yet creates the file it names.
  std::filesystem::create_symlink("later.md", setup.dir / "dangling.md");
  REQUIRE(setup.report({"-o", "dangling.md"}).exit_code == 0);
  CHECK(std::filesystem::is_symlink(setup.dir / "dangling.md"));
  CHECK(read_file(setup.dir / "later.md") == setup.expected);
}

TEST_CASE("report -o onto a file with two hard links rewrites the one file both name") {
  Setup setup;
  const auto first = setup.dir / "first.md";
  write_file(first, "old\n");
  REQUIRE(::chmod(first.c_str(), 0640) == 0);
  std::filesystem::create_hard_link(first, setup.dir / "second.md");
  const ino_t inode = stat_of(first).st_ino;
  const ProcessResult result = setup.report({"-o", "second.md"});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK(stat_of(setup.dir / "second.md").st_ino == inode);
  CHECK(stat_of(first).st_nlink == 2);
  CHECK(read_file(first) == setup.expected);
  CHECK((stat_of(first).st_mode & 07777) == 0640);
  CHECK(setup.names() == std::set<std::string>{"ledger.ndjson", "first.md", "second.md"});
}

TEST_CASE("report -o - and -o /dev/stdout write to standard output, a pipe here") {
  Setup setup;
  for (const std::string path : {"-", "/dev/stdout"}) {
    INFO(path);
    const ProcessResult result = setup.report({"-o", path});
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    CHECK(result.out == setup.expected);
    CHECK(setup.names() == std::set<std::string>{"ledger.ndjson"});
  }
}

TEST_CASE("report -o refuses a FIFO, a device and a directory, and leaves nothing next to them") {
  if (::geteuid() != 0) {
    FAIL("this test makes a device node with mknod: run it as root (tools/test does)");
  }
  Setup setup;
  REQUIRE(::mkfifo((setup.dir / "fifo").c_str(), 0644) == 0);
  REQUIRE(::mknod((setup.dir / "full").c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0);
  std::filesystem::create_directory(setup.dir / "directory");
  std::filesystem::create_symlink("full", setup.dir / "link-to-device");
  const std::set<std::string> before = setup.names();
  struct Case {
    std::string path, kind;
  };
  for (const Case& target : std::vector<Case>{{"fifo", "a FIFO"},
                                              {"full", "a character device"},
                                              {"link-to-device", "a character device"},
                                              {"directory", "a directory"}}) {
    INFO(target.path);
    const ProcessResult result = setup.report({"-o", target.path});
    INFO(result.err);
    CHECK_FALSE(result.hung);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains("cannot write " + target.path + ": it is " +
                                           target.kind + ", not a regular file"));
    CHECK(setup.names() == before);
  }
  CHECK(S_ISFIFO(stat_of(setup.dir / "fifo").st_mode));
  CHECK(S_ISCHR(stat_of(setup.dir / "full").st_mode));
}

TEST_CASE("report -o onto a ledger is refused and the ledger keeps every byte") {
  Setup setup;
  const std::string sqlite = (setup.dir / "ledger.db").string();
  ledger::open_store("sqlite:" + sqlite)->append(fresh_batch("current", 2));
  std::filesystem::create_symlink("ledger.ndjson", setup.dir / "report.md");
  const std::set<std::string> before = setup.names();
  struct Case {
    std::string output, file, kind;
  };
  for (const Case& c : {Case{"ledger.ndjson", setup.ledger, "an NDJSON ledger"},
                        Case{"report.md", setup.ledger, "an NDJSON ledger"},
                        Case{"ledger.db", sqlite, "a SQLite database"}}) {
    INFO(c.output);
    const std::string bytes = read_file(c.file);
    const ProcessResult result = setup.report({"-o", c.output});
    INFO(result.err);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains("cannot write " + c.output + ": it is " + c.kind) &&
                               Catch::Contains("an output never replaces a ledger"));
    CHECK(read_file(c.file) == bytes);
    CHECK(setup.names() == before);
  }
  CHECK(ledger::open_store(setup.ledger)->verify(std::nullopt).ok);
  CHECK(ledger::open_store("sqlite:" + sqlite)->verify(std::nullopt).ok);
}
