// Eight processes appending to one ledger at once lose no batch and duplicate none, on every
// store, and the chain they build together verifies.
#include <catch2/catch.hpp>

#include "integration/ledger_census.hpp"
#include "integration/ledger_process.hpp"
#include "unit/ledger/ledger_support.hpp"

using namespace benchledger;
using namespace benchledger::testing;

TEST_CASE("8 concurrent appenders, 2,000 batches in all: every record present exactly once") {
  constexpr int k_processes = 8;
  constexpr int k_batches_each = 250;
  constexpr int k_results = 2;
  ScratchDir dir;
  for (const std::string& uri :
       {(dir / "ledger.ndjson").string(), "sqlite:" + (dir / "ledger.db").string()}) {
    INFO(uri);
    std::vector<Child> children;
    for (int p = 0; p < k_processes; ++p) {
      children.push_back(spawn({LEDGER_APPENDER, uri, std::to_string(k_batches_each),
                                std::to_string(k_results), "writer-" + std::to_string(p)}));
    }
    std::set<std::string> acked;
    for (auto& child : children) {
      const ProcessResult result = finish(child);
      INFO(result.err);
      CHECK(result.exit_code == 0);
      const auto ids = announced(result.out, "ack");
      CHECK(ids.size() == k_batches_each);
      acked.insert(ids.begin(), ids.end());
    }
    REQUIRE(acked.size() == k_processes * k_batches_each);

    const Census census = take_census(uri);
    CHECK(census.duplicate_ids.empty());
    CHECK(census.records == acked.size() * (1 + k_results));
    CHECK(census.results_of_run.size() == acked.size());
    for (const auto& [run, results] : census.results_of_run) {
      INFO(run);
      CHECK(acked.count(run) == 1);
      CHECK(results == k_results);
    }
    const ProcessResult verify = run_ledger({"verify", "--ledger", uri});
    INFO(verify.err);
    CHECK(verify.exit_code == 0);
    CHECK_THAT(verify.out, Catch::Contains(std::to_string(census.records) + " records"));
  }
}
