// `run --import` reads the committed outputs of harnesses too slow or heavy to run in every test
// (Catch2's XML, asv's results, pyperf's and mitata's JSON; tests/cli/import/regenerate.sh makes
// them with the real tools): what each keeps, and that of two outputs, the second with one
// benchmark 20% slower, compare flags exactly that benchmark. The quick harnesses
// (google-benchmark, hyperfine, pytest-benchmark, go test) run live in
// run_import_harness_test.cpp; their two-output comparisons are here, on committed outputs, so
// that no verdict depends on the load of the machine that runs the tests.
#include <algorithm>
#include <fstream>
#include <map>

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

// Rust criterion and JMH: their committed outputs (tests/cli/import/regenerate.sh criterion jmh),
// what each keeps, the slowed copy flagged alone, and each damaged copy refused whole.
namespace {

// The cases of a ledger's results, as compare names them: `bench` or `bench {params}`.
std::vector<std::string> case_names(const std::vector<json>& results) {
  std::vector<std::string> names;
  for (const json& r : results)
    names.push_back(r["bench"].get<std::string>() +
                    (r["params"].empty() ? "" : " " + r["params"].dump()));
  return names;
}

}  // namespace

TEST_CASE(
    "criterion: every new folder under target/criterion, per-iteration samples, group, function "
    "and value as bench and params, no environment") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto result = run_cli(
      {"run", "--import", "auto", fixture("criterion/base").string(), "--ledger", ledger.string()});
  INFO(result.err);
  REQUIRE(result.status == 0);
  CHECK_THAT(result.err, Catch::Contains("is criterion"));
  const auto records = read_ledger(ledger);
  const json run = run_record(records);
  CHECK(run["source"] == "criterion");
  CHECK(run["env"]["host"].is_null());  // criterion says nothing of the machine
  CHECK(run["env"]["cpu"]["model"].is_null());
  CHECK(run["env"]["cpu"]["logical"].is_null());
  CHECK(run["imported"]["files"][0]["env_from_file"].empty());
  const auto results = results_of(records);
  CHECK(case_names(results) == std::vector<std::string>{"sort_256",
                                                        R"(sum {"function":"iter","value":1024})",
                                                        R"(sum {"function":"iter","value":64})"});
  REQUIRE(results.size() == 3);
  const json& sum = results[1];
  CHECK(sum["primary"] == "time");
  CHECK(sum["metrics"]["time"]["unit"] == "ns");
  CHECK(sum["metrics"]["time"]["better"] == "lower");
  CHECK(sum["metrics"]["time"]["samples"].size() == 100);
  CHECK(sum["metrics"]["throughput"]["unit"] == "elements/s");
  CHECK(sum["metrics"]["throughput"]["better"] == "higher");
  CHECK(sum["metrics"]["throughput"]["samples"].size() == 100);
  CHECK(sum["ops"].get<std::int64_t>() > 100);
  CHECK(sum["tool_statistics"]["mean"]["lower"].is_number());
  CHECK(sum["tool_statistics"]["slope"]["value"].is_number());
  CHECK(results[0]["metrics"].count("throughput") == 0);  // sort_256 states none
  CHECK(schema_problems(ledger).empty());

  // One benchmark's folder, or any of its files, is that benchmark alone.
  for (const std::string one :
       {"criterion/base/sum/iter/64/new", "criterion/base/sum/iter/64/new/estimates.json"}) {
    INFO(one);
    const auto single = dir.path() / "single.ndjson";
    std::filesystem::remove(single);
    REQUIRE(run_cli({"run", "--import", "criterion", fixture(one).string(), "--ledger",
                     single.string()})
                .status == 0);
    CHECK(case_names(results_of(read_ledger(single))) ==
          std::vector<std::string>{R"(sum {"function":"iter","value":64})"});
  }
}

TEST_CASE(
    "cargo-criterion messages: the same cases as criterion's folders, samples from "
    "measured_values, cargo's own messages skipped") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto result =
      run_cli({"run", "--import", "auto", fixture("criterion/messages.ndjson").string(), "--ledger",
               ledger.string()});
  INFO(result.err);
  REQUIRE(result.status == 0);
  CHECK_THAT(result.err, Catch::Contains("is criterion"));
  const auto results = results_of(read_ledger(ledger));
  std::vector<std::string> names = case_names(results);
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"sort_256", R"(sum {"function":"iter","value":1024})",
                                          R"(sum {"function":"iter","value":64})"});
  for (const json& r : results) {
    INFO(r["bench"]);
    CHECK(r["metrics"]["time"]["unit"] == "ns");
    CHECK(r["metrics"]["time"]["samples"].size() == 100);
    CHECK(r["tool_statistics"]["typical"]["value"].is_number());
    CHECK(r["metrics"].contains("throughput") == (r["bench"] == "sum"));
  }
  CHECK(run_record(read_ledger(ledger))["env"]["host"].is_null());
  CHECK(schema_problems(ledger).empty());
}

TEST_CASE(
    "JMH JSON: each entry's raw data per fork and iteration, its mode and params, the gc "
    "profiler's metrics, the JVM as facts") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto result = run_cli(
      {"run", "--import", "auto", fixture("jmh/base.json").string(), "--ledger", ledger.string()});
  INFO(result.err);
  REQUIRE(result.status == 0);
  CHECK_THAT(result.err, Catch::Contains("is jmh"));
  const auto records = read_ledger(ledger);
  const json run = run_record(records);
  CHECK(run["source"] == "jmh");
  CHECK(run["env"]["host"].is_null());  // JMH says nothing of the machine
  CHECK(run["env"]["cpu"]["model"].is_null());
  CHECK(run["env"]["runtimes"]["java"] == "OpenJDK 64-Bit Server VM 17.0.15+6-Debian-1deb12u1");
  CHECK(run["imported"]["files"][0]["env_from_file"] == json::array({"runtimes.java"}));
  const json& file = run["imported"]["files"][0];
  CHECK(file["tool_version"] == "1.37");
  CHECK(file["facts"]["jdkVersion"].get<std::string>().rfind("17.", 0) == 0);
  CHECK(file["facts"]["vmName"].is_string());
  CHECK(file["facts"]["settings"]["forks"] == 2);
  CHECK(file["facts"]["settings"]["measurementIterations"] == 10);
  const auto results = results_of(records);
  REQUIRE(results.size() == 8);
  std::map<std::string, json> by_case;
  for (const json& r : results)
    by_case[r["bench"].get<std::string>() + " " + r["params"].dump()] = r;
  const json& sum = by_case.at(R"(bench.Tiny.sum {"mode":"avgt","size":1024})");
  CHECK(sum["primary"] == "time");
  CHECK(sum["metrics"]["time"]["unit"] == "ns");
  CHECK(sum["metrics"]["time"]["better"] == "lower");
  CHECK(sum["metrics"]["time"]["samples"].size() == 20);  // 2 forks of 10 iterations
  CHECK(sum["metrics"]["gc.alloc.rate.norm"]["unit"] == "bytes");
  CHECK(sum["metrics"]["gc.alloc.rate.norm"]["samples"].size() == 20);
  const json& sort = by_case.at(R"(bench.Tiny.sort {"mode":"thrpt","size":64})");
  CHECK(sort["primary"] == "throughput");
  CHECK(sort["metrics"]["throughput"]["unit"] == "ops/s");
  CHECK(sort["metrics"]["throughput"]["better"] == "higher");
  const json& copy = by_case.at(R"(bench.Tiny.copy {"mode":"sample","size":64})");
  CHECK(copy["metrics"]["time"]["unit"] == "us");
  CHECK(copy["metrics"]["time"]["samples"].size() == 20);  // one mean per iteration
  CHECK(copy["ops"].get<std::int64_t>() > 20);             // the histograms' calls
  CHECK(by_case.at(R"(bench.Tiny.sumOnce {"mode":"ss","size":64})")["metrics"]["time"]["unit"] ==
        "us");
  CHECK(schema_problems(ledger).empty());
}

TEST_CASE(
    "two JMH runs on different JVMs: compare names runtimes.java and --require-same-env "
    "refuses them") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto other_jvm = dir.path() / "jdk21.json";
  std::string text = read_file(fixture("jmh/base.json"));
  for (std::size_t at = 0; (at = text.find("17.0.15+6-Debian-1deb12u1", at)) != std::string::npos;)
    text.replace(at, 25, "21.0.5+11-Debian-1deb12u1");
  std::ofstream(other_jvm) << text;
  for (const auto& [label, file] :
       {std::pair{"jdk17", fixture("jmh/base.json")}, std::pair{"jdk21", other_jvm}})
    REQUIRE(run_cli({"run", "--import", "jmh", file.string(), "--label", label, "--ledger",
                     ledger.string(), "-q"})
                .status == 0);
  const auto compared =
      run_cli({"compare", "jdk17", "jdk21", "--ledger", ledger.string(), "--format", "json"});
  INFO(compared.err);
  const json report = json::parse(compared.out);
  CHECK(report["environment_differences"] ==
        json::array({"runtimes.java: \"OpenJDK 64-Bit Server VM 17.0.15+6-Debian-1deb12u1\" -> "
                     "\"OpenJDK 64-Bit Server VM 21.0.5+11-Debian-1deb12u1\""}));
  const auto strict =
      run_cli({"compare", "jdk17", "jdk21", "--ledger", ledger.string(), "--require-same-env"});
  CHECK(strict.status == 2);
  CHECK_THAT(strict.err, Catch::Contains("runtimes.java"));
}

TEST_CASE("a symbolic link that loops inside target/criterion is passed over, not a crash") {
  ScratchDir dir;
  const auto copy = dir.path() / "criterion";
  std::filesystem::copy(fixture("criterion/base"), copy, std::filesystem::copy_options::recursive);
  std::filesystem::create_directory_symlink("loop", copy / "loop");
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto result = run_cli({"run", "--import", "criterion", copy.string(), "--ledger",
                               ledger.string(), "-q", "--format", "json"});
  INFO(result.err);
  CHECK(result.status == 0);
  const auto expected = run_cli({"run", "--import", "criterion", fixture("criterion/base").string(),
                                 "--dry-run", "-q", "--format", "json"});
  CHECK(results_of(read_ledger(ledger)).size() == lines_of(expected.out).size() - 1);
}

TEST_CASE(
    "two outputs of criterion, cargo-criterion and JMH, one benchmark 20% slower: compare flags "
    "exactly it") {
  ScratchDir dir;
  struct Format {
    std::string name, base, slowed;
    std::vector<std::string> flagged;
  };
  const std::vector<Format> formats = {
      {"criterion",
       "criterion/base",
       "criterion/slowed",
       {R"(sum {"function":"iter","value":1024})"}},
      {"criterion",
       "criterion/messages.ndjson",
       "criterion/messages-slowed.ndjson",
       {R"(sum {"function":"iter","value":1024})"}},
      {"jmh",
       "jmh/base.json",
       "jmh/slowed.json",
       {R"(bench.Tiny.sum {"mode":"avgt","size":1024})"}},
  };
  for (const Format& f : formats) {
    INFO(f.base);
    const auto found = regressions_between(
        {"--import", f.name, fixture(f.base).string()},
        {"--import", f.name, fixture(f.slowed).string()},
        dir.path() / (std::filesystem::path(f.base).filename().string() + ".ndjson"));
    INFO(found.output);
    CHECK(found.status == 1);
    CHECK(found.cases == f.flagged);
  }
}

TEST_CASE(
    "a truncated, mistyped or incomplete criterion, cargo-criterion or JMH output is refused with "
    "exit 2 naming the file and the place, appending nothing") {
  ScratchDir dir;
  struct Damage {
    std::string format;
    std::string source;     // under the fixtures
    std::string file;       // in `source` when it is a folder: the file damaged
    std::string find, put;  // the first `find` replaced by `put`; empty: the first half kept
    std::string expected;   // in the message besides the damaged file's name
  };
  const std::vector<Damage> corpus = {
      {"criterion", "criterion/base", "sort_256/new/sample.json", "", "", "not JSON"},
      {"criterion", "criterion/base", "sort_256/new/sample.json", R"("times":[)",
       R"("times":["x",)", "field \"times[0]\": expected a number"},
      {"criterion", "criterion/base", "sort_256/new/sample.json", R"("iters":)", R"("_":)",
       "field \"iters\": missing"},
      // More iterations than a count holds: refused, never cast out of range.
      {"criterion", "criterion/base", "sort_256/new/sample.json", R"("iters":[)",
       R"("iters":[1e30,)", "field \"iters[0]\": expected a whole count from 1 to 2^53"},
      {"criterion", "criterion/base", "sum/iter/64/new/benchmark.json", R"("group_id":)",
       R"("group":)", "field \"group_id\": missing"},
      {"criterion", "criterion/base", "sum/iter/64/new/benchmark.json", R"({"Elements":64})",
       R"({"Apples":64})", "field \"throughput\": expected Elements, Bytes or BytesDecimal"},
      {"criterion", "criterion/base", "sum/iter/64/new/estimates.json", R"("point_estimate":)",
       R"("point_estimate":"x","_":)", "field \"mean.point_estimate\": expected a number"},
      {"criterion", "criterion/messages.ndjson", "", "", "", "not JSON"},
      {"criterion", "criterion/messages.ndjson", "", R"("measured_values":[)",
       R"("measured_values":[null,)", "field \"measured_values[0]\": expected a number"},
      {"criterion", "criterion/messages.ndjson", "", R"("measured_values":[)",
       R"("measured_values":[1,)",
       "field \"measured_values\": expected 100 times, one per "
       "iteration_count, got 101"},
      {"criterion", "criterion/messages.ndjson", "", R"("unit":"ns","throughput")",
       R"("unit":7,"throughput")", "field \"unit\": expected a string"},
      {"jmh", "jmh/base.json", "", "", "", "not JSON"},
      {"jmh", "jmh/base.json", "", R"("rawData" : [)", R"("rawData" : ["x", )",
       "field \"[0].primaryMetric.rawData[0]\": expected an array of iterations' scores"},
      {"jmh", "jmh/base.json", "", R"("primaryMetric")", R"("primary")",
       "field \"[0].primaryMetric\": missing"},
      {"jmh", "jmh/base.json", "", R"("mode" : "thrpt")", R"("mode" : "fast")",
       "field \"[0].mode\": expected thrpt, avgt, sample or ss, got \"fast\""},
      // Calls that overflow a count when added: refused, never a signed overflow.
      {"jmh", "jmh/base.json", "", R"("rawDataHistogram" : [)",
       R"("rawDataHistogram" : [[[[1, 9223372036854775807], [1, 1]]],)",
       "rawDataHistogram[0][0][1][1]\": the counts add up to more than 2^63"},
  };
  const auto ledger = dir.path() / "ledger.ndjson";
  REQUIRE(run_cli({"run", "--import", "jmh", fixture("jmh/base.json").string(), "--ledger",
                   ledger.string(), "-q"})
              .status == 0);
  const std::string before = read_file(ledger);
  for (std::size_t i = 0; i < corpus.size(); ++i) {
    const Damage& d = corpus[i];
    const auto copy = dir.path() / ("damaged-" + std::to_string(i));
    std::filesystem::copy(fixture(d.source), copy, std::filesystem::copy_options::recursive);
    const auto damaged = d.file.empty() ? copy : copy / d.file;
    std::string text = read_file(damaged);
    if (d.find.empty()) {
      text = text.substr(0, text.size() / 2);
    } else {
      const auto at = text.find(d.find);
      REQUIRE(at != std::string::npos);
      text.replace(at, d.find.size(), d.put);
    }
    std::ofstream(damaged, std::ios::trunc) << text;
    const auto result =
        run_cli({"run", "--import", d.format, copy.string(), "--ledger", ledger.string()});
    INFO(d.source << " " << d.file << " " << d.find << ": " << result.err);
    CHECK(result.status == 2);
    CHECK_THAT(result.err, Catch::Contains(damaged.string()) && Catch::Contains(d.expected));
  }
  CHECK(read_file(ledger) == before);
}
