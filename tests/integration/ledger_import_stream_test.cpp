// An import read in chunks (the files twice, a chunk at a time) is still all or nothing in every
// store: a bad record, a conflicting id or a kill anywhere in a file of many chunks leaves the
// ledger as it was.
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <catch2/catch.hpp>

#include "integration/ledger_process.hpp"
#include "ledger/import_plan.hpp"
#include "unit/ledger/ledger_support.hpp"

using namespace benchledger;
using namespace benchledger::ledger;
using namespace benchledger::testing;

namespace {

// Records of a run and `results` results, written as an import file.
void write_import_file(const std::filesystem::path& path, int results) {
  std::filesystem::remove(path);
  open_store(path.string())->append(fresh_batch("current", results));
}

std::vector<std::string> all_bytes(const std::string& uri) {
  std::vector<std::string> out;
  open_store(uri)->scan_bytes([&](std::int64_t, std::string_view bytes) {
    out.emplace_back(bytes);
    return true;
  });
  return out;
}

// The file's lines, with line `number` (1-based) replaced.
void replace_line(const std::filesystem::path& path, std::size_t number, const std::string& line) {
  std::vector<std::string> lines = split_lines(read_file(path));
  lines.at(number - 1) = line;
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  write_file(path, text);
}

}  // namespace

TEST_CASE("a bad record in the middle of an import of many chunks appends nothing to any store") {
  ScratchDir dir;
  const auto input = dir / "input.ndjson";
  const std::size_t middle = 2 * ImportPlan::k_chunk + ImportPlan::k_chunk / 2;  // third chunk
  for (const auto& uri : store_uris(dir)) {
    INFO(uri);
    open_store(uri)->append(fresh_batch("baseline", 3));
    const auto before = all_bytes(uri);

    // A line that is not a record.
    write_import_file(input, 4000);
    replace_line(input, middle, R"({"schema":"benchledger/1","type":"result"})");
    ProcessResult result = run_ledger({"import", input.string(), "--ledger", uri});
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains(input.string() + ":" + std::to_string(middle) + ":"));
    CHECK(all_bytes(uri) == before);

    // A record whose id the ledger holds with other content, in the fourth chunk.
    write_import_file(input, 4000);
    std::string held = all_bytes(uri)[1];
    const std::string id = held.substr(held.find("\"id\":\"") + 6, 26);
    auto lines = split_lines(read_file(input));
    std::string changed = lines.at(3500 - 1);
    changed.replace(changed.find("\"id\":\"") + 6, 26, id);
    replace_line(input, 3500, changed);
    result = run_ledger({"import", input.string(), "--ledger", uri});
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains(input.string() + ":3500:") &&
                               Catch::Contains("with other content") &&
                               Catch::Contains("nothing was imported"));
    CHECK(all_bytes(uri) == before);

    // An id repeated with other content chunks apart: the later line is named.
    write_import_file(input, 4000);
    lines = split_lines(read_file(input));
    std::string repeated = lines.at(3800 - 1);
    const std::string early_id =
        lines.at(10 - 1).substr(lines.at(10 - 1).find("\"id\":\"") + 6, 26);
    repeated.replace(repeated.find("\"id\":\"") + 6, 26, early_id);
    replace_line(input, 3800, repeated);
    result = run_ledger({"import", input.string(), "--ledger", uri});
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains(input.string() + ":3800:") &&
                               Catch::Contains("appears twice with different content"));
    CHECK(all_bytes(uri) == before);

    // The same file without the conflict imports, all of it, and again skips all of it.
    write_import_file(input, 4000);
    result = run_ledger({"import", input.string(), "--ledger", uri});
    INFO(result.err);
    CHECK(result.exit_code == 0);
    CHECK_THAT(result.out, Catch::Contains("imported 4001 records"));
    result = run_ledger({"import", input.string(), "--ledger", uri});
    CHECK_THAT(result.out, Catch::Contains("imported 0 records") &&
                               Catch::Contains("skipped 4001 already there"));
    CHECK(all_bytes(uri).size() == before.size() + 4001);
    CHECK(run_ledger({"verify", "--ledger", uri}).exit_code == 0);
  }
}

TEST_CASE("an import killed after some of its chunks are written leaves the ledger as before") {
  ScratchDir dir;
  const auto ledger = dir / "ledger.ndjson";
  const auto input = dir / "input.ndjson";
  open_store(ledger.string())->append(fresh_batch("baseline", 3));
  const std::string before = read_file(ledger);
  const std::string head_before =
      run_ledger({"verify", "--ledger", ledger.string()}).out.substr(0, 200);
  write_import_file(input, 12000);  // 12 chunks, about 11 MB
  const auto input_size = std::filesystem::file_size(input);

  // Killed once at least two chunks are in the file, well before the last one.
  Child child =
      spawn({cli_path(), "ledger", "import", input.string(), "--ledger", ledger.string()});
  const auto started = std::chrono::steady_clock::now();
  bool killed = false;
  while (std::chrono::steady_clock::now() - started < std::chrono::minutes(5)) {
    const auto size = std::filesystem::file_size(ledger);
    if (size > before.size() + input_size / 10) {
      ::kill(child.pid, SIGKILL);
      killed = true;
      break;
    }
    if (::waitpid(child.pid, nullptr, WNOHANG) != 0) break;  // finished first: fails below
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  const ProcessResult result = finish(child);
  REQUIRE(killed);
  REQUIRE(result.signal == SIGKILL);
  REQUIRE(std::filesystem::file_size(ledger) > before.size());
  REQUIRE(std::filesystem::file_size(ledger) < before.size() + input_size);
  REQUIRE(std::filesystem::exists(ledger.string() + ".appending"));

  // Readers see the ledger as it was, complete lines of the import or not.
  const ProcessResult verify = run_ledger({"verify", "--ledger", ledger.string()});
  CHECK(verify.exit_code == 0);
  CHECK(verify.out.substr(0, 200) == head_before);
  CHECK(all_bytes(ledger.string()).size() == split_lines(before).size());

  // The next writer moves the partial import aside; the import then goes through whole.
  const ProcessResult again = run_ledger({"import", input.string(), "--ledger", ledger.string()});
  INFO(again.err);
  CHECK(again.exit_code == 0);
  CHECK_THAT(again.err, Catch::Contains("moved") && Catch::Contains("interrupted append"));
  CHECK_THAT(again.out, Catch::Contains("imported 12001 records"));
  CHECK(read_file(ledger).substr(0, before.size()) == before);
  CHECK(run_ledger({"verify", "--ledger", ledger.string()}).exit_code == 0);
  CHECK_FALSE(std::filesystem::exists(ledger.string() + ".appending"));
}
