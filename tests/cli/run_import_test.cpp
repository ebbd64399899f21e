// `benchledger run --import FORMAT FILE` records another harness's real output as a run:
// google-benchmark JSON (repetitions as samples, counters, errors) and hyperfine's export.
#include <catch2/catch.hpp>

#include "run_support.hpp"

using namespace benchledger::run_test;
using nlohmann::json;

TEST_CASE("google-benchmark JSON becomes one result per benchmark with repetitions as samples") {
  ScratchDir dir;
  const auto output = dir.path() / "gbench.json";
  const auto produced =
      run(RUN_GBENCH_FIXTURE, {"--benchmark_format=json", "--benchmark_repetitions=3",
                               "--benchmark_filter=^BM_(Empty|SumItems|Refuses)",
                               "--benchmark_min_time=0.01", "--benchmark_out=" + output.string()});
  REQUIRE(produced.status == 0);
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto result = run_cli(
      {"run", "--import", "google-benchmark", output.string(), "--ledger", ledger.string()});
  INFO(result.err);
  CHECK(result.status == 0);
  const auto records = read_ledger(ledger);
  CHECK(records[0]["source"] == "google-benchmark");
  const auto results = results_of(records);
  REQUIRE(results.size() == 3);
  const json& empty = results[0];
  CHECK(empty["bench"] == "BM_Empty");
  CHECK(empty["metrics"]["time"]["samples"].size() == 3);
  CHECK(empty["metrics"]["time"]["unit"] == "ns");
  CHECK(empty["metrics"]["cpu_time"]["samples"].size() == 3);
  CHECK(empty["ops"].get<std::int64_t>() > 1000);
  const json& items = results[1];
  CHECK(items["bench"] == "BM_SumItems/64");
  CHECK(items["metrics"]["items"]["better"] == "higher");
  CHECK(items["metrics"]["cache_misses"]["value"] == 3.0);
  const json& refused = results[2];
  CHECK(refused["bench"] == "BM_Refuses");
  CHECK(refused["primary"] == "failed");
  CHECK(refused["failure"]["message"] == "no database configured");
  CHECK(schema_problems(ledger).empty());

  std::ofstream(dir.path() / "broken.json")
      << R"({"benchmarks": [{"name": "x", "real_time": "fast"}]})";
  const auto broken = run_cli({"run", "--import", "google-benchmark",
                               (dir.path() / "broken.json").string(), "--ledger", ledger.string()});
  CHECK(broken.status == 2);
  CHECK_THAT(broken.err, Catch::Contains("field \"benchmarks[0].real_time\": expected a number"));
}

TEST_CASE("hyperfine's exported JSON becomes one result per command with each run as a sample") {
  ScratchDir dir;
  const auto output = dir.path() / "hyperfine.json";
  const auto produced = run("/usr/bin/hyperfine", {"-N", "--runs", "4", "--warmup", "1",
                                                   "--export-json", output.string(), "sleep 0.01"});
  REQUIRE(produced.status == 0);  // hyperfine comes from tools/setup's packages
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto result =
      run_cli({"run", "--import", "hyperfine", output.string(), "--ledger", ledger.string(), "-q"});
  REQUIRE(result.status == 0);
  const auto results = results_of(read_ledger(ledger));
  REQUIRE(results.size() == 1);
  CHECK(results[0]["bench"] == "sleep 0.01");
  CHECK(results[0]["metrics"]["wall"]["unit"] == "ms");
  CHECK(results[0]["metrics"]["wall"]["samples"].size() == 4);
  CHECK(results[0]["metrics"]["wall"]["value"].get<double>() >= 10);
  CHECK(results[0]["ops"] == 4);
  CHECK(schema_problems(ledger).empty());
}

TEST_CASE("google-benchmark's complexity fit becomes a result of its own, not a refusal") {
  ScratchDir dir;
  const auto output = dir.path() / "complexity.json";
  const auto produced = run(RUN_GBENCH_FIXTURE,
                            {"--benchmark_filter=BM_Linear", "--benchmark_min_time=0.01",
                             "--benchmark_out_format=json", "--benchmark_out=" + output.string()});
  REQUIRE(produced.status == 0);
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto result = run_cli(
      {"run", "--import", "google-benchmark", output.string(), "--ledger", ledger.string(), "-q"});
  INFO(result.err);
  REQUIRE(result.status == 0);
  const auto results = results_of(read_ledger(ledger));
  REQUIRE(results.size() == 4);  // 16, 64, 256 and the fit
  CHECK(results[0]["bench"] == "BM_Linear/16");
  const json& fit = results[3];
  CHECK(fit["bench"] == "BM_Linear");
  CHECK(fit["params"]["big_o"] == "N");
  CHECK(fit["primary"] == "real_coefficient");
  CHECK(fit["metrics"]["real_coefficient"]["unit"] == "ns");
  CHECK(fit["metrics"]["real_coefficient"]["value"].get<double>() > 0);
  CHECK(fit["metrics"]["cpu_coefficient"]["value"].get<double>() > 0);
  CHECK(fit["metrics"]["rms"]["unit"] == "%");
  CHECK(schema_problems(ledger).empty());
}

TEST_CASE("google-benchmark aggregates alone keep the percentage ones (cv) as metrics in %") {
  ScratchDir dir;
  const auto output = dir.path() / "aggregates.json";
  const auto produced = run(RUN_GBENCH_FIXTURE,
                            {"--benchmark_filter=BM_Empty", "--benchmark_min_time=0.01",
                             "--benchmark_repetitions=3", "--benchmark_report_aggregates_only=true",
                             "--benchmark_out_format=json", "--benchmark_out=" + output.string()});
  REQUIRE(produced.status == 0);
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto result = run_cli(
      {"run", "--import", "google-benchmark", output.string(), "--ledger", ledger.string()});
  INFO(result.err);
  REQUIRE(result.status == 0);
  CHECK_THAT(result.err, Catch::Contains("only aggregates were reported"));
  const auto results = results_of(read_ledger(ledger));
  REQUIRE(results.size() == 1);
  CHECK(results[0]["primary"] == "time");
  REQUIRE(results[0]["metrics"].contains("cv"));
  CHECK(results[0]["metrics"]["cv"]["unit"] == "%");
  CHECK(results[0]["metrics"]["cv"]["better"] == "lower");
  CHECK(schema_problems(ledger).empty());
}

TEST_CASE("hyperfine's failed runs are counted as errors, not kept as samples") {
  ScratchDir dir;
  const auto output = dir.path() / "hyperfine.json";
  const auto once = dir.path() / "once";
  std::ofstream(once) << "";
  // The first run finds the file and removes it (exit 0); the next two fail (exit 3).
  const auto produced =
      run("/usr/bin/hyperfine",
          {"-i", "--runs", "3", "--export-json", output.string(), "-n", "once", "-n", "fails",
           "rm " + once.string() + " 2>/dev/null || exit 3", "exit 1"});
  REQUIRE(produced.status == 0);
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto result =
      run_cli({"run", "--import", "hyperfine", output.string(), "--ledger", ledger.string()});
  INFO(result.err);
  REQUIRE(result.status == 0);
  CHECK_THAT(result.err, Catch::Contains("2 of 3 runs exited with a non-zero status"));
  CHECK_THAT(result.err, Catch::Contains("fails: every run failed"));
  const auto results = results_of(read_ledger(ledger));
  REQUIRE(results.size() == 2);
  CHECK(results[0]["bench"] == "once");
  CHECK(results[0]["metrics"]["wall"]["samples"].size() == 1);
  CHECK(results[0]["ops"] == 3);
  CHECK(results[0]["errors"] == 2);
  CHECK(results[1]["bench"] == "fails");
  CHECK(results[1]["primary"] == "failed");
  CHECK(results[1]["errors"] == 3);
  CHECK(results[1]["metrics"].count("wall") == 0);
  CHECK(schema_problems(ledger).empty());
}

TEST_CASE("an import is a run of its own and names the formats it knows") {
  ScratchDir dir;
  const auto mixed = run_cli({"run", "--import", "google-benchmark", "x.json", "--", "true"});
  CHECK(mixed.status == 2);
  CHECK_THAT(mixed.err, Catch::Contains("cannot be combined with measuring"));
  std::ofstream(dir.path() / "x.json") << "{}";
  const auto unknown =
      run_cli({"run", "--import", "nosuchharness", (dir.path() / "x.json").string(), "--ledger",
               (dir.path() / "l.ndjson").string()});
  CHECK(unknown.status == 2);
  CHECK_THAT(unknown.err, Catch::Contains("unknown format (known: auto, google-benchmark, "
                                          "hyperfine, pytest-benchmark, go-test, pyperf, "
                                          "catch2, asv, mitata, criterion, jmh, vitest, tinybench, "
                                          "ndjson, csv)"));
}

TEST_CASE("a file named as the wrong format is refused, naming the format it looks like") {
  ScratchDir dir;
  const auto hyperfine = source_dir() / "tests/cli/import/fixtures/hyperfine/base.json";
  const auto result = run_cli({"run", "--import", "go-test", hyperfine.string(), "--ledger",
                               (dir.path() / "l.ndjson").string(), "-q"});
  CHECK(result.status == 2);
  CHECK_THAT(result.err, Catch::Contains("looks like hyperfine output: --import hyperfine"));
  CHECK_FALSE(std::filesystem::exists(dir.path() / "l.ndjson"));
}

TEST_CASE("importing the same file twice records its hash and warns on the second run") {
  ScratchDir dir;
  const auto file = source_dir() / "tests/cli/import/fixtures/hyperfine/base.json";
  const auto other = source_dir() / "tests/cli/import/fixtures/hyperfine/slowed.json";
  const auto ledger = (dir.path() / "l.ndjson").string();
  const auto first = run_cli(
      {"run", "--import", "hyperfine", file.string(), "--ledger", ledger, "--label", "first"});
  REQUIRE(first.status == 0);
  CHECK_THAT(first.err, !Catch::Contains("same content"));
  const auto different =
      run_cli({"run", "--import", "hyperfine", other.string(), "--ledger", ledger});
  REQUIRE(different.status == 0);
  CHECK_THAT(different.err, !Catch::Contains("same content"));
  // A copy under another name is the same file: the bytes decide, not the path.
  const auto copy = dir.path() / "copy.json";
  std::filesystem::copy_file(file, copy);
  const auto again = run_cli({"run", "--import", "hyperfine", copy.string(), "--ledger", ledger});
  REQUIRE(again.status == 0);  // a warning, not a refusal: the run is appended
  std::vector<nlohmann::json> runs;
  for (const auto& record : read_ledger(ledger)) {
    if (record["type"] == "run") runs.push_back(record);
  }
  REQUIRE(runs.size() == 3);
  CHECK(schema_problems(ledger).empty());
  CHECK(runs[0]["imported"]["files"][0]["sha256"].get<std::string>().size() == 64);
  CHECK(runs[2]["imported"]["files"][0]["sha256"] == runs[0]["imported"]["files"][0]["sha256"]);
  CHECK_THAT(again.err, Catch::Contains("has the same content as") &&
                            Catch::Contains(runs[0]["id"].get<std::string>() + " (first)"));
  // Kept with the run, for compare and report to show.
  CHECK_THAT(runs[2]["warnings"].dump(), Catch::Contains("in the ledger twice"));
}
