// An appender killed with SIGKILL at random moments, 200 times a store, never costs an
// acknowledged batch, never leaves part of a batch, and the chain verifies after the next
// append.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

#include "integration/ledger_census.hpp"
#include "integration/ledger_process.hpp"
#include "unit/ledger/ledger_support.hpp"

using namespace benchledger;
using namespace benchledger::testing;

TEST_CASE("SIGKILL at random moments loses at most the batch in flight, never half of one") {
  constexpr int k_kills = 200;
  constexpr int k_results = 40;  // a batch of ~30 KiB, so kills also land inside write()
  ScratchDir dir;
  std::mt19937 random(20261122);  // seeded: a failure replays
  for (const std::string& uri :
       {(dir / "ledger.ndjson").string(), "sqlite:" + (dir / "ledger.db").string()}) {
    INFO(uri);
    std::set<std::string> acked, begun;
    int killed = 0;
    for (int round = 0; round < k_kills; ++round) {
      Child child = spawn({LEDGER_APPENDER, uri, "1000", std::to_string(k_results), "crash"});
      // Startup, a first append, or the middle of the second or third: 0 to 25 ms.
      std::this_thread::sleep_for(std::chrono::microseconds(random() % 25'000));
      ::kill(child.pid, SIGKILL);
      const ProcessResult result = finish(child);
      if (result.signal == SIGKILL) ++killed;
      const auto ids = announced(result.out, "ack");
      acked.insert(ids.begin(), ids.end());
      const auto started = announced(result.out, "begin");
      begun.insert(started.begin(), started.end());
      INFO(result.err);
      REQUIRE((result.signal == SIGKILL || result.exit_code == 0));

      if (round % 40 == 39 || round == k_kills - 1) {
        const Census census = take_census(uri);
        CHECK(census.duplicate_ids.empty());
        for (const auto& id : acked) {
          INFO("acknowledged batch " << id);
          REQUIRE(census.results_of_run.count(id) == 1);
        }
        for (const auto& [run, results] : census.results_of_run) {
          INFO("batch " << run);
          CHECK(begun.count(run) == 1);
          CHECK(results == k_results);  // all of a batch or none of it
        }
        // At most one batch a killed process had in flight is missing.
        CHECK(census.results_of_run.size() >= acked.size());
        CHECK(census.results_of_run.size() <= begun.size());
        CHECK(begun.size() - acked.size() <= static_cast<std::size_t>(round + 1));
      }
    }
    CHECK(killed >= 190);  // a few may finish or fail to start in time; most must be killed

    // The next append repairs whatever the last kill left, and the chain verifies.
    const ProcessResult after = run_process({LEDGER_APPENDER, uri, "1", "1", "after"});
    INFO(after.err);
    REQUIRE(after.exit_code == 0);
    const ProcessResult verify = run_ledger({"verify", "--ledger", uri});
    INFO(verify.err);
    CHECK(verify.exit_code == 0);
    CHECK(verify.err.find("torn") == std::string::npos);
  }
}

TEST_CASE("a writer killed in the middle of write() leaves no part of its batch behind") {
  ScratchDir dir;
  const auto path = dir / "ledger.ndjson";
  benchledger::ledger::open_store(path.string())->append(fresh_batch("before", 3));
  const std::string before = read_file(path);
  // The seam writes half the batch and then waits, marker in place, to be killed.
  ProcessOptions options;
  options.env = {"BENCHLEDGER_TEST_FAULT=short-write-hang"};
  Child child = spawn({LEDGER_APPENDER, path.string(), "1", "200", "killed"}, options);
  for (int wait = 0; wait < 500 && std::filesystem::file_size(path) == before.size(); ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(std::filesystem::file_size(path) > before.size());
  REQUIRE(std::filesystem::exists(path.string() + ".appending"));
  ::kill(child.pid, SIGKILL);
  const ProcessResult killed = finish(child);
  REQUIRE(killed.signal == SIGKILL);
  CHECK(announced(killed.out, "ack").empty());
  const std::string partial = read_file(path);
  // The half batch holds complete lines: without the marker they would pass for records.
  CHECK(std::count(partial.begin() + static_cast<std::ptrdiff_t>(before.size()), partial.end(),
                   '\n') > 10);

  // Readers do not see the unfinished batch.
  const Census census = take_census(path.string());
  CHECK(census.records == 4);

  const ProcessResult after = run_process({LEDGER_APPENDER, path.string(), "1", "1", "after"});
  INFO(after.err);
  REQUIRE(after.exit_code == 0);
  const std::string repaired = read_file(path);
  CHECK(repaired.substr(0, before.size()) == before);
  CHECK(split_lines(repaired).size() == 6);
  CHECK_FALSE(std::filesystem::exists(path.string() + ".appending"));
  bool moved_aside = false;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    if (entry.path().filename().string().find(".torn-") == std::string::npos) continue;
    moved_aside = read_file(entry.path()) == partial.substr(before.size());
  }
  CHECK(moved_aside);
  CHECK(run_ledger({"verify", "--ledger", path.string()}).exit_code == 0);
}
