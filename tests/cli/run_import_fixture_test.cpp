// `run --import` reads the committed outputs of harnesses too slow or heavy to run in every test
// (Catch2's XML, asv's results, pyperf's and mitata's JSON; tests/cli/import/regenerate.sh makes
// them with the real tools): what each keeps, and that of two outputs, the second with one
// benchmark 20% slower, compare flags exactly that benchmark. The quick harnesses
// (google-benchmark, hyperfine, pytest-benchmark, go test) run live in
// run_import_harness_test.cpp; their two-output comparisons are here, on committed outputs, so
// that no verdict depends on the load of the machine that runs the tests.
#include <catch2/catch.hpp>

#include "import_compare_support.hpp"

using namespace benchledger::run_test;
using nlohmann::json;

namespace {

std::filesystem::path fixture(const std::string& relative) {
  return source_dir() / "tests/cli/import/fixtures" / relative;
}

}  // namespace

TEST_CASE("Catch2 XML: one result per BENCHMARK with its mean, test case and section as params") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto result = run_cli({"run", "--import", "auto", fixture("catch2/base.xml").string(),
                               "--ledger", ledger.string()});
  INFO(result.err);
  REQUIRE(result.status == 0);
  CHECK_THAT(result.err, Catch::Contains("is catch2") && Catch::Contains("has no samples"));
  const auto records = read_ledger(ledger);
  const json run = run_record(records);
  CHECK(run["source"] == "catch2");
  CHECK(run["env"]["host"].is_null());  // Catch2 2.x says nothing of the machine
  CHECK(run["imported"]["files"][0]["facts"]["executable"] == "catch2-bench");
  const auto results = results_of(records);
  REQUIRE(results.size() == 3);
  CHECK(results[0]["bench"] == "sum 64");
  CHECK(results[0]["params"] == json{{"test_case", "sums"}});
  CHECK(results[2]["bench"] == "sort 256");
  CHECK(results[2]["params"] == json{{"section", "descending"}, {"test_case", "sorting"}});
  CHECK(results[0]["metrics"]["time"]["unit"] == "ns");
  CHECK(results[0]["tool_statistics"]["samples"] == 20);
  CHECK(results[0]["tool_statistics"]["mean"]["value"] == results[0]["metrics"]["time"]["value"]);
  CHECK(results[0]["tool_statistics"]["standard_deviation"]["value"].is_number());
  CHECK(results[0]["tool_statistics"]["outliers"]["variance"].is_number());
  CHECK(schema_problems(ledger).empty());
}

TEST_CASE(
    "asv results: samples of --record-samples, params named from benchmarks.json, the "
    "machine as env") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto result =
      run_cli({"run", "--import", "auto", fixture("asv/results/fixture/base.json").string(),
               "--ledger", ledger.string()});
  INFO(result.err);
  REQUIRE(result.status == 0);
  CHECK_THAT(result.err, Catch::Contains("is asv"));
  const auto records = read_ledger(ledger);
  const json run = run_record(records);
  CHECK(run["source"] == "asv");
  CHECK(run["env"]["cpu"]["arch"] == "x86_64");
  CHECK(run["env"]["cpu"]["logical"].is_number_integer());
  CHECK(run["env"]["memory"]["total_bytes"].is_number_integer());
  CHECK(run["env"]["host"].is_string());
  CHECK(run["env"]["cpu"]["mhz"].is_null());  // asv does not say
  CHECK(run["imported"]["files"][0]["measured_at"].is_string());
  CHECK(run["imported"]["files"][0]["facts"]["commit_hash"].is_string());
  const auto results = results_of(records);
  REQUIRE(results.size() == 4);
  CHECK(results[0]["bench"] == "bench_tiny.TimeSuite.time_sort");
  CHECK(results[0]["params"] == json{{"size", 1000}});
  CHECK(results[1]["params"] == json{{"size", 10000}});
  CHECK(results[0]["metrics"]["time"]["unit"] == "s");
  CHECK(results[0]["metrics"]["time"]["samples"].size() >= 10);
  CHECK(results[3]["bench"] == "bench_tiny.track_answer");
  CHECK(results[3]["metrics"]["value"]["value"] == 42);
  CHECK(schema_problems(ledger).empty());
}

TEST_CASE("mitata JSON: each run's samples, its args as params, the context as env") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto result = run_cli({"run", "--import", "auto", fixture("mitata/base.json").string(),
                               "--ledger", ledger.string()});
  INFO(result.err);
  REQUIRE(result.status == 0);
  CHECK_THAT(result.err, Catch::Contains("is mitata"));
  const auto records = read_ledger(ledger);
  const json run = run_record(records);
  CHECK(run["source"] == "mitata");
  CHECK(run["env"]["cpu"]["arch"] == "x86_64");  // x64-linux
  CHECK(run["env"]["runtimes"]["node"].get<std::string>().rfind("v", 0) == 0);
  CHECK(run["env"]["host"].is_null());  // mitata does not say
  CHECK(run["imported"]["files"][0]["measured_at"].is_string());
  const auto results = results_of(records);
  REQUIRE(results.size() == 3);
  CHECK(results[0]["bench"] == "sum 1e6");
  CHECK(results[1]["bench"] == "sort $size");
  CHECK(results[1]["params"] == json{{"size", 20000}});
  CHECK(results[2]["params"] == json{{"size", 50000}});
  CHECK(results[2]["metrics"]["time"]["unit"] == "ns");
  CHECK(results[2]["metrics"]["time"]["samples"].size() > 12);
  CHECK(schema_problems(ledger).empty());
}

TEST_CASE(
    "two outputs of Catch2, asv, pyperf and mitata, one benchmark 20% slower: compare "
    "flags exactly it") {
  ScratchDir dir;
  struct Format {
    std::string name, base, slowed;
    std::vector<std::string> flagged;
  };
  const std::vector<Format> formats = {
      {"catch2", "catch2/base.xml", "catch2/slowed.xml", {"sum 1024 {\"test_case\":\"sums\"}"}},
      {"asv",
       "asv/results/fixture/base.json",
       "asv/results/fixture/slowed.json",
       {"bench_tiny.time_sum"}},
      {"pyperf", "pyperf/base.json", "pyperf/slowed.json", {"sort_1000"}},
      {"mitata", "mitata/base.json", "mitata/slowed.json", {"sort $size {\"size\":50000}"}},
  };
  for (const Format& f : formats) {
    INFO(f.name);
    const auto found = regressions_between({"--import", f.name, fixture(f.base).string()},
                                           {"--import", f.name, fixture(f.slowed).string()},
                                           dir.path() / (f.name + ".ndjson"));
    INFO(found.output);
    CHECK(found.status == 1);
    CHECK(found.cases == f.flagged);
  }
}

TEST_CASE("two outputs of pgbench, one statement 20% slower: compare flags exactly it") {
  ScratchDir dir;
  const auto found =
      regressions_between({"--import", "pgbench",
                           (source_dir() / "tests/unit/import/pgbench/tpcb_output.txt").string()},
                          {"--import", "pgbench", fixture("pgbench/slowed.txt").string()},
                          dir.path() / "pgbench.ndjson");
  INFO(found.output);
  CHECK(found.status == 1);
  REQUIRE(found.cases.size() == 1);
  CHECK_THAT(found.cases[0], Catch::StartsWith("pgbench/tpcb-like/statement {") &&
                                 Catch::Contains("UPDATE pgbench_branches"));
}

// Two outputs of each quick harness, the second with one benchmark 20% slower: compare flags
// exactly that one. Each output has about a hundred samples a benchmark.
TEST_CASE(
    "google-benchmark, hyperfine, pytest-benchmark and go test: two outputs with one benchmark "
    "20% slower, compare flags exactly it") {
  struct Slowed {
    std::string format, file, regression;
  };
  const std::vector<Slowed> formats = {
      {"google-benchmark", "google-benchmark/%s.json", "BM_SumItems/64"},
      {"hyperfine", "hyperfine/%s.json", "sleep 0.02"},
      {"pytest-benchmark", "pytest-benchmark/%s.json", "test_tiny.py::test_sum {\"size\":512}"},
      // procs is GOMAXPROCS of the machine that made the fixture.
      {"go-test", "go-test/%s.txt", "BenchmarkSum {\"procs\":2,\"size\":64}"},
      {"go-test", "go-test/%s.json", "BenchmarkSum {\"procs\":2,\"size\":64}"},
  };
  ScratchDir dir;
  for (std::size_t i = 0; i < formats.size(); ++i) {
    const Slowed& f = formats[i];
    INFO(f.file);
    const auto output = [&](const std::string& name) {
      std::string relative = f.file;
      return fixture(relative.replace(relative.find("%s"), 2, name)).string();
    };
    const auto found = regressions_between(
        {"--import", f.format, output("base")}, {"--import", f.format, output("slowed")},
        dir.path() / ("ledger-" + std::to_string(i) + ".ndjson"));
    INFO(found.output);
    CHECK(found.status == 1);
    CHECK(found.cases == std::vector<std::string>{f.regression});
  }
}
