// A gate's rounds share out each side's runs and pool back into one run a side, samples intact.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <benchledger/error.hpp>
#include <benchledger/record.hpp>

#include "gate/rounds.hpp"

using namespace benchledger;
using Words = std::vector<std::string>;

TEST_CASE("an entry's runs are shared out over the rounds, the command left alone") {
  const auto rounds =
      gate::round_arguments({"--name", "w", "--runs", "11", "--", "app", "--runs", "2"}, 4);
  REQUIRE(rounds.size() == 4);
  CHECK(rounds[0] == Words{"--name", "w", "--repetitions", "3", "--", "app", "--runs", "2"});
  CHECK(rounds[1] == Words{"--name", "w", "--repetitions", "3", "--", "app", "--runs", "2"});
  CHECK(rounds[2] == Words{"--name", "w", "--repetitions", "3", "--", "app", "--runs", "2"});
  CHECK(rounds[3] == Words{"--name", "w", "--repetitions", "2", "--", "app", "--runs", "2"});
}

TEST_CASE("without a count the default 10 is shared; fewer runs than rounds make fewer rounds") {
  const auto by_default = gate::round_arguments({"--suite", "executors"}, 5);
  REQUIRE(by_default.size() == 5);
  for (const Words& words : by_default)
    CHECK(words == Words{"--suite", "executors", "--repetitions", "2"});
  const auto few = gate::round_arguments({"--repetitions=2"}, 5);
  CHECK(few == std::vector<Words>{{"--repetitions", "1"}, {"--repetitions", "1"}});
  CHECK_THROWS_WITH(gate::round_arguments({"--runs", "ten"}, 5),
                    Catch::Contains("--runs \"ten\": expected a whole number"));
}

TEST_CASE("an import is run whole in every round") {
  const Words entry = {"--import", "google-benchmark", "gb.json"};
  CHECK(gate::round_arguments(entry, 3) == std::vector<Words>{entry, entry, entry});
}

namespace {

gate::Round round_of(const std::string& warning, std::vector<double> samples, bool failed) {
  gate::Round round;
  round.run.header.id = new_ulid();
  round.run.source = "command";
  round.run.env.fingerprint = std::string(64, 'a');
  round.run.warnings = {warning};
  ResultRecord result;
  result.header.id = new_ulid();
  result.run = round.run.header.id;
  result.bench = "work";
  if (failed) {
    result.primary = "failed";
    result.metrics["failed"] = metric_from_samples("count", Better::lower, {1});
    result.ops = 2;
    result.errors = 2;
  } else {
    result.primary = "wall";
    result.ops = static_cast<std::int64_t>(samples.size());
    result.metrics["wall"] = metric_from_samples("ms", Better::lower, std::move(samples));
  }
  round.results.push_back(result);
  return round;
}

}  // namespace

TEST_CASE("a side's rounds pool into one run and one result per case, samples concatenated") {
  const std::vector<gate::Round> rounds = {round_of("load average 3.1", {1, 2}, false),
                                           round_of("load average 4.7", {3, 4}, false),
                                           round_of("hot", {5}, false)};
  const gate::PooledSide side = gate::pool_rounds(rounds, "head", {"benchledger", "gate"});
  CHECK(side.run.label == "head");
  CHECK(side.run.command == Words{"benchledger", "gate"});
  CHECK(side.run.warnings == Words{"load average 3.1", "hot"});
  CHECK(side.run.header.id != rounds[0].run.header.id);
  REQUIRE(side.results.size() == 1);
  const ResultRecord& work = side.results[0];
  CHECK(work.run == side.run.header.id);
  CHECK(work.ops == 5);
  const Metric& wall = work.metrics.at("wall");
  CHECK(*wall.samples == std::vector<double>{1, 2, 3, 4, 5});
  CHECK(wall.value == 3);
  CHECK(wall.summary.n == 5);
}

TEST_CASE("a case failed in some rounds keeps their errors; failed in all, it stays failed") {
  const gate::PooledSide some =
      gate::pool_rounds({round_of("", {1, 2}, false), round_of("", {}, true)}, "head", {});
  REQUIRE(some.results.size() == 1);
  CHECK(some.results[0].primary == "wall");
  CHECK(some.results[0].errors == 2);
  CHECK(some.results[0].ops == 4);
  const gate::PooledSide all =
      gate::pool_rounds({round_of("", {}, true), round_of("", {}, true)}, "head", {});
  REQUIRE(all.results.size() == 1);
  CHECK(all.results[0].primary == "failed");
  CHECK(all.results[0].errors == 4);
  CHECK_THROWS_AS(gate::pool_rounds({}, "head", {}), Error);
}
