// Every input file a command reads is bounded and never hangs: `ledger import`, the config file
// and `run --import` refuse a FIFO or a device at once with exit 2 naming it, a line over the
// limit is refused as soon as the limit is passed, and an over-sized harness file is refused.
// Each command runs under a hang guard that kills it and fails the test.
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "integration/ledger_process.hpp"
#include "unit/ledger/ledger_support.hpp"

using namespace benchledger;
using namespace benchledger::testing;

namespace {

constexpr int k_hang_guard_seconds = 120;

ProcessResult guarded(std::vector<std::string> argv, std::vector<std::string> env = {},
                      std::string cwd = {}) {
  ProcessOptions options;
  options.hang_guard_seconds = k_hang_guard_seconds;
  options.env = std::move(env);
  options.cwd = std::move(cwd);
  argv.insert(argv.begin(), cli_path());
  return run_process(argv, options);
}

// A sparse file of `size` zero bytes: no newline anywhere, and nothing to write.
void sparse_file(const std::filesystem::path& path, std::uintmax_t size) {
  write_file(path, "");
  std::filesystem::resize_file(path, size);
}

void expect_refused(const ProcessResult& result, const std::string& message) {
  INFO(result.err);
  CHECK_FALSE(result.hung);
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.err, Catch::Contains(message));
}

}  // namespace

TEST_CASE("ledger import refuses a device and a FIFO at once, and an endless line at the limit") {
  ScratchDir dir;
  const std::string ledger = (dir / "ledger.ndjson").string();
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0644) == 0);
  expect_refused(guarded({"ledger", "import", "/dev/zero", "--ledger", ledger}),
                 "cannot read /dev/zero: it is a character device, not a regular file");
  expect_refused(guarded({"ledger", "import", (dir / "fifo").string(), "--ledger", ledger}),
                 "cannot read " + (dir / "fifo").string() + ": it is a FIFO, not a regular file");

  // 200 MB without a newline: refused once the first line passes 16 MiB, not read to its end.
  sparse_file(dir / "no-newline.ndjson", 200u << 20);
  expect_refused(
      guarded({"ledger", "import", (dir / "no-newline.ndjson").string(), "--ledger", ledger}),
      (dir / "no-newline.ndjson").string() +
          ":1: record is over the limit of 16777216 bytes a line (refused after its first "
          "16777217 bytes; nothing was imported)");
  CHECK_FALSE(std::filesystem::exists(ledger));
}

TEST_CASE("a config file that is a FIFO or a device is refused, not waited on") {
  ScratchDir dir;
  const auto project = dir / "project";
  std::filesystem::create_directories(project / ".git");  // the project root is here
  REQUIRE(::mkfifo((project / "benchledger.json").c_str(), 0644) == 0);
  // No ledger from the environment, so that the config file is read for it.
  expect_refused(guarded({"ledger", "log"}, {"BENCHLEDGER_LEDGER="}, project.string()),
                 "cannot read config file " + (project / "benchledger.json").string() +
                     ": it is a FIFO, not a regular file");
  std::filesystem::remove(project / "benchledger.json");
  std::filesystem::create_symlink("/dev/zero", project / "benchledger.json");
  expect_refused(guarded({"ledger", "log"}, {"BENCHLEDGER_LEDGER="}, project.string()),
                 "it is a character device, not a regular file");
}

TEST_CASE("run --import refuses a FIFO and a file over its limit") {
  ScratchDir dir;
  const std::string ledger = (dir / "ledger.ndjson").string();
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0644) == 0);
  for (const std::string format : {"google-benchmark", "hyperfine"}) {
    INFO(format);
    expect_refused(
        guarded({"run", "--import", format, (dir / "fifo").string(), "--ledger", ledger}),
        "cannot read " + (dir / "fifo").string() + ": it is a FIFO, not a regular file");
  }
  sparse_file(dir / "huge.json", (64u << 20) + 1);
  expect_refused(
      guarded({"run", "--import", "google-benchmark", (dir / "huge.json").string(), "--ledger",
               ledger}),
      "cannot read " + (dir / "huge.json").string() + ": it is over the limit of 67108864 bytes");
  CHECK_FALSE(std::filesystem::exists(ledger));
}
