// A gate's rounds share out each side's runs and pool back into one run a side, samples and the
// metadata compare judges them by intact.
#include <catch2/catch.hpp>

#include <regex>
#include <string>
#include <vector>

#include <benchledger/error.hpp>
#include <benchledger/record.hpp>

#include "compare/comparison.hpp"
#include "gate/rounds.hpp"
#include "model_fixtures.hpp"

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

TEST_CASE("a profiling count replaces the entry's measuring flags, the command left alone") {
  const Words entry = {
      "--name",   "w", "--runs", "12",  "--warmup=2", "--measure", "time",
      "--filter", "x", "--",     "app", "--runs",     "2",         "--measure=time"};
  const auto args = gate::profile_arguments(entry, "^(w)$");
  REQUIRE(args);
  CHECK(*args == Words{"--name", "w", "--measure", "instructions:valgrind", "--repetitions", "1",
                       "--warmup", "0", "--filter", "^(w)$", "--", "app", "--runs", "2",
                       "--measure=time"});
  CHECK_FALSE(gate::profile_arguments({"--import", "google-benchmark", "gb.json"}, "x"));
  CHECK_FALSE(gate::profile_arguments({"--pgbench=-c 4 -T 10"}, "x"));
}

TEST_CASE("the profiling filter matches its cases' names exactly, regex characters and all") {
  const std::string filter = gate::exact_case_filter(
      {{"sort/copy", {{"n", ParamValue(std::int64_t{1000})}}}, {"a+b (x)", {}}});
  const std::regex re(filter);
  CHECK(std::regex_search(std::string("sort/copy n=1000"), re));
  CHECK(std::regex_search(std::string("a+b (x)"), re));
  CHECK_FALSE(std::regex_search(std::string("sort/copy n=10000"), re));
  CHECK_FALSE(std::regex_search(std::string("sort/copy"), re));
  CHECK_FALSE(std::regex_search(std::string("aab (x)"), re));
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

namespace {

// A round of a `--measure instructions` run: one case whose primary metric is a deterministic
// count from `counter`, and a timing beside it.
gate::Round counted_round(const std::string& label, double instructions,
                          const std::string& counter = "valgrind") {
  gate::Round round;
  round.run = testing::sample_run(new_ulid(), label);
  ResultRecord result;
  result.header.id = new_ulid();
  result.header.time = round.run.header.time;
  result.run = round.run.header.id;
  result.bench = "count/loop";
  result.primary = "instructions";
  result.ops = 1000;
  Metric count = single_value_metric("count", Better::lower, instructions);
  count.deterministic = true;
  count.counter = counter;
  result.metrics["instructions"] = count;
  result.metrics["time"] = metric_from_samples("ns", Better::lower, {instructions / 3});
  round.results.push_back(result);
  return round;
}

compare::Side side_of(const gate::PooledSide& pooled) {
  return compare::Side{{pooled.run}, pooled.results};
}

}  // namespace

TEST_CASE("pooled rounds keep a metric's unit, its determinism and its counter") {
  const gate::PooledSide side = gate::pool_rounds(
      {counted_round("head", 1000), counted_round("head", 1000), counted_round("head", 1000)},
      "head", {});
  REQUIRE(side.results.size() == 1);
  const Metric& count = side.results[0].metrics.at("instructions");
  CHECK(count.unit == "count");
  CHECK(count.better == Better::lower);
  CHECK(count.deterministic);
  CHECK(count.counter == "valgrind");
  CHECK(*count.samples == std::vector<double>{1000, 1000, 1000});
  const Metric& time = side.results[0].metrics.at("time");
  CHECK(time.unit == "ns");
  CHECK_FALSE(time.deterministic);
  CHECK_FALSE(time.counter.has_value());

  // Deterministic in one round only: no longer a count compare may judge by its threshold alone.
  gate::Round timed = counted_round("head", 1000);
  timed.results[0].metrics["instructions"].deterministic = false;
  timed.results[0].metrics["instructions"].counter.reset();
  const gate::PooledSide mixed =
      gate::pool_rounds({counted_round("head", 1000), timed}, "head", {});
  CHECK_FALSE(mixed.results[0].metrics.at("instructions").deterministic);
  CHECK_FALSE(mixed.results[0].metrics.at("instructions").counter.has_value());
  // Counted by two counters: still deterministic, with no one counter to name.
  const gate::PooledSide counters = gate::pool_rounds(
      {counted_round("head", 1000), counted_round("head", 1000, "perf")}, "head", {});
  CHECK(counters.results[0].metrics.at("instructions").deterministic);
  CHECK_FALSE(counters.results[0].metrics.at("instructions").counter.has_value());
}

TEST_CASE("a 1% change of a deterministic count pooled from 3 rounds a side is a regression") {
  std::vector<gate::Round> base, head;
  for (int i = 0; i < 3; ++i) {
    base.push_back(counted_round("base", 100000));
    head.push_back(counted_round("head", 101000));
  }
  const compare::ComparisonReport report =
      compare::compare_sides(side_of(gate::pool_rounds(base, "base", {})),
                             side_of(gate::pool_rounds(head, "head", {})), {}, {});
  REQUIRE(report.cases.size() == 1);
  const compare::CaseComparison& c = report.cases[0];
  CHECK(c.metric == "instructions");
  CHECK(c.base_n == 3);
  CHECK(c.current_n == 3);
  CHECK(c.deterministic);
  CHECK(c.threshold == Approx(0.005));
  CHECK(c.change == Approx(0.01));
  CHECK(c.verdict == compare::Verdict::regression);
  CHECK_FALSE(report.gate_pass);
}

TEST_CASE("the rounds of both sides pair up by round, each side's centre its round's median") {
  const auto measured = [](std::size_t round, std::vector<double> samples, bool failed) {
    return gate::MeasuredRound{0, round, round_of("", std::move(samples), failed)};
  };
  const std::vector<gate::MeasuredRound> base{measured(0, {10, 12, 11}, false),
                                              measured(1, {20, 22, 21}, false),
                                              measured(2, {30, 31, 32}, false)};
  // Round 1 failed on head's side: that pair is left out, and the others keep their order.
  const std::vector<gate::MeasuredRound> head{
      measured(0, {13, 14, 12}, false), measured(1, {1}, true), measured(2, {33, 34, 35}, false)};
  const auto pairs = gate::round_pairs(base, head);
  REQUIRE(pairs.size() == 1);
  const auto& metrics = pairs.at(case_key("work", {}));
  REQUIRE(metrics.size() == 1);
  const compare::RoundCentres& wall = metrics.at("wall");
  CHECK(wall.base == std::vector<double>{11, 31});
  CHECK(wall.current == std::vector<double>{13, 34});
}
