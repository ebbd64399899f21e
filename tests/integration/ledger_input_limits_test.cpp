// No ledger line crashes a reader: a record nested deeper than 512 levels is a break `ledger
// verify` names (exit 1), the bad record every other command reports (exit 1 or 2, naming its
// line and field), and a file `ledger import` refuses (exit 2); a number no double holds is a
// field named the same way.
#include <catch2/catch.hpp>

#include "integration/ledger_process.hpp"
#include "ledger/canonical.hpp"
#include "unit/ledger/ledger_support.hpp"

using namespace benchledger;
using namespace benchledger::ledger;
using namespace benchledger::testing;

namespace {

// 600 KB on one line: it overflowed the stack of every reader before the limit.
constexpr std::size_t k_deep = 300000;

std::string nested_arrays(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

// A result of `run` whose canonical line chains onto `last`, with `member` (`"name":value`)
// added at its end: canonical but for that member.
std::string result_line(const std::string& run, const std::string& last,
                        const std::string& member) {
  ResultRecord result = sample_result(run, new_ulid());
  result.header.time = now_rfc3339();
  result.header.prev = sha256_hex(last);
  std::string line = serialize(result);
  return line.insert(line.size() - 1, "," + member);
}

ProcessResult run_cli(std::vector<std::string> args) {
  args.insert(args.begin(), cli_path());
  return run_process(args);
}

}  // namespace

TEST_CASE("every command reading a ledger reports a line nested 300,000 deep, never crashes") {
  ScratchDir dir;
  const auto path = dir / "ledger.ndjson";
  const auto store = open_store(path.string());
  store->append(fresh_batch("base", 1));
  store->append(fresh_batch("head", 1));
  REQUIRE(split_lines(read_file(path)).size() == 4);
  write_file(path, read_file(path) + nested_arrays(k_deep) + "\n");
  const std::string ledger = path.string();
  const std::string problem =
      "field \"[0][0][0][0][0][0][0][0]…\": nested deeper than 512 levels of arrays and objects";

  const ProcessResult verify = run_ledger({"verify", "--ledger", ledger});
  INFO(verify.err.substr(0, 2000));
  CHECK(verify.exit_code == 1);
  CHECK_THAT(verify.err, Catch::Contains(ledger + ": line 5: not a valid record"));
  CHECK_THAT(verify.err, Catch::Contains(problem));

  // Each stops at the bad record as at any other: exit 1, but compare's 2 (its 1 is a regression).
  const std::vector<std::pair<std::vector<std::string>, int>> readers = {
      {{"ledger", "log"}, 1},
      {{"ledger", "show", "head"}, 1},
      {{"report", "head"}, 1},
      {{"compare", "base", "head"}, 2},
      {{"history", "executors/sort*"}, 1},
      {{"detect", "executors/sort*"}, 1},
  };
  for (auto [args, exit_code] : readers) {
    args.insert(args.end(), {"--ledger", ledger});
    const ProcessResult result = run_cli(args);
    INFO(args[0] << " " << args[1] << ": " << result.err.substr(0, 2000));
    CHECK(result.signal == 0);
    CHECK(result.exit_code == exit_code);
    CHECK_THAT(result.err, Catch::Contains(ledger + " line 5: " + problem));
  }
}

TEST_CASE("verify names a record with a deep member by its line and id") {
  ScratchDir dir;
  const auto path = dir / "ledger.ndjson";
  const std::vector<Record> batch = fresh_batch("base", 1);
  open_store(path.string())->append(batch);
  const std::string last = split_lines(read_file(path)).back();
  const std::string deep =
      result_line(header_of(batch[0]).id, last, "\"deep\":{\"a\":" + nested_arrays(k_deep) + "}");
  write_file(path, read_file(path) + deep + "\n");
  const ProcessResult verify = run_ledger({"verify", "--ledger", path.string()});
  INFO(verify.err.substr(0, 2000));
  CHECK(verify.exit_code == 1);
  CHECK_THAT(verify.err,
             Catch::Contains(path.string() + ": line 3 (id " +
                             std::string(peek_canonical(deep)->id) + "): not a valid record"));
  CHECK_THAT(verify.err, Catch::Contains("field \"deep.a[0][0][0][0][0][0]…\": nested deeper than "
                                         "512 levels of arrays and objects"));
}

TEST_CASE("ledger import refuses a deep record and a number no double holds, naming the field") {
  ScratchDir dir;
  const std::string ledger = (dir / "ledger.ndjson").string();
  const auto file = dir / "in.ndjson";
  const std::vector<Record> batch = fresh_batch("in", 1);
  const std::string run = serialize(batch[0]);
  const auto refused = [&](const std::string& member, const std::string& message) {
    write_file(file, run + "\n" + result_line(header_of(batch[0]).id, run, member) + "\n");
    const ProcessResult result = run_ledger({"import", file.string(), "--ledger", ledger});
    INFO(result.err.substr(0, 2000));
    CHECK(result.signal == 0);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains(file.string() + ":2: " + message));
    CHECK_FALSE(std::filesystem::exists(ledger));
  };
  refused("\"deep\":{\"a\":" + nested_arrays(30000) + "}",
          "field \"deep.a[0][0][0][0][0][0]…\": nested deeper than 512 levels");
  refused("\"deep\":" + nested_arrays(k_deep), "field \"deep[0][0][0]");
  // The record itself is a level: 512 arrays in it are one too many, 511 are imported as they are.
  refused("\"deep\":" + nested_arrays(512),
          "field \"deep[0][0][0][0][0][0][0]…\": nested deeper than 512 levels");
  write_file(file, run + "\n" +
                       result_line(header_of(batch[0]).id, run, "\"deep\":" + nested_arrays(511)) +
                       "\n");
  const ProcessResult within = run_ledger({"import", file.string(), "--ledger", ledger});
  INFO(within.err);
  CHECK(within.exit_code == 0);
  CHECK(run_ledger({"verify", "--ledger", ledger}).exit_code == 0);
  std::filesystem::remove(ledger);

  for (const std::string& number :
       std::vector<std::string>{"1e400", "-1e400", "1" + std::string(399, '0')}) {
    refused("\"big\":" + number, "field \"big\": the number " + number.substr(0, 40));
    refused("\"big\":[0," + number + "]", "field \"big[1]\": the number " + number.substr(0, 40));
  }
}
