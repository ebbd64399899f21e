// The names and statistics vitest and tinybench share become cases and metrics as
// docs/import.md says: `key=value` words as params, samples when kept, else the statistics.
#include <catch2/catch.hpp>

#include <benchledger/error.hpp>

#include "import/tinybench_results.hpp"

using namespace benchledger;
using namespace benchledger::import::detail;

TEST_CASE("case_from_name keeps the words of a name and makes its key=value words params") {
  const NamedCase sort = case_from_name("", "sort  size=1000 order=desc");
  CHECK(sort.bench == "sort");
  CHECK(sort.params == Params{{"size", std::int64_t{1000}}, {"order", std::string("desc")}});
  // Words that are not one key and one value stay in the name.
  const NamedCase odd = case_from_name("", "a==b =x y= ratio=0.5");
  CHECK(odd.bench == "a==b =x y=");
  CHECK(odd.params == Params{{"ratio", 0.5}});
  // A vitest group's fullName comes first; a name of params alone is named by it.
  CHECK(case_from_name("bench/a.bench.js > sort", "size=10").bench == "bench/a.bench.js > sort");
  CHECK(case_from_name("bench/a.bench.js", "sum 1e5").bench == "bench/a.bench.js > sum 1e5");
  // Without a group, such a name stays whole.
  CHECK(case_from_name("", "size=10").bench == "size=10");
}

TEST_CASE(
    "metric_from_statistics takes the samples when kept, else the tool's median and summary") {
  const StatisticNames names = {"p50", "samplesCount"};
  const json with_samples = {{"samples", {1.0, 2.0, 4.0}}, {"p50", 9.0}};
  const Metric sampled = metric_from_statistics(with_samples, names, "ms", Better::lower, "x", "f");
  REQUIRE(sampled.samples);
  CHECK(*sampled.samples == std::vector<double>{1.0, 2.0, 4.0});
  CHECK(sampled.value == 2.0);  // recomputed, not the file's p50

  const json statistics = {{"p50", 2.5}, {"samplesCount", 40}, {"mean", 3.0},
                           {"sd", 0.5},  {"min", 1.0},         {"max", 9.0},
                           {"p99", 8.0}, {"p999", 8.5},        {"samples", json::array()}};
  const Metric summary = metric_from_statistics(statistics, names, "ms", Better::lower, "x", "f");
  CHECK(!summary.samples);
  CHECK(summary.value == 2.5);
  CHECK(summary.summary.n == 40);
  CHECK(summary.summary.p99 == 8.0);

  json incomplete = statistics;
  incomplete.erase("sd");
  CHECK_THROWS_WITH(metric_from_statistics(incomplete, names, "ms", Better::lower,
                                           "[0].result.latency", "f.json"),
                    "f.json: field \"[0].result.latency.sd\": missing");
}
