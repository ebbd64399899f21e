// `run --import vitest` and `--import tinybench` read the committed outputs of the real tools
// (tests/cli/import/regenerate.sh makes them) and tinybench's output live: what each keeps, that of
// two outputs, the second with one benchmark 20% slower, compare flags exactly that benchmark, and
// that a damaged file is refused with exit 2 naming the file and the place, appending nothing.
#include <catch2/catch.hpp>

#include <fstream>

#include "import_compare_support.hpp"

using namespace benchledger::run_test;
using nlohmann::json;

namespace {

std::filesystem::path fixture(const std::string& relative) {
  return source_dir() / "tests/cli/import/fixtures" / relative;
}

json fixture_json(const std::string& relative) {
  return json::parse(read_file(fixture(relative)));
}

struct Imported {
  Invocation cli;
  json run;
  std::vector<json> results;
};

Imported import_auto(const std::filesystem::path& file, const std::filesystem::path& ledger) {
  Imported imported;
  imported.cli = run_cli({"run", "--import", "auto", file.string(), "--ledger", ledger.string()});
  if (imported.cli.status != 0) return imported;
  const auto records = read_ledger(ledger);
  imported.run = run_record(records);
  imported.results = results_of(records);
  return imported;
}

}  // namespace

TEST_CASE(
    "tinybench live: bench.mjs run now by the pinned tinybench is read with its samples, node's "
    "version and the task that threw") {
  // tools/setup puts node (the machine's, else Debian's) on PATH and npm-installs the pinned
  // tinybench beside bench.mjs.
  const std::filesystem::path node = "/usr/bin/node";
  const auto folder = fixture("tinybench");
  if (!std::filesystem::exists(node))
    FAIL("/usr/bin/node is missing: run tools/setup (Node.js 20 or later)");
  if (!std::filesystem::exists(folder / "node_modules/tinybench/package.json"))
    FAIL("tinybench is not installed: run tools/setup (npm ci in " + folder.string() + ")");
  ScratchDir dir;
  const auto output = dir.path() / "tinybench.json";
  const Invocation ran = run(node.string(), {(folder / "bench.mjs").string(), "failing"});
  INFO(ran.err);
  REQUIRE(ran.status == 0);
  std::ofstream(output) << ran.out;
  const auto ledger = dir.path() / "ledger.ndjson";
  const Imported imported = import_auto(output, ledger);
  INFO(imported.cli.err);
  REQUIRE(imported.cli.status == 0);
  CHECK_THAT(imported.cli.err, Catch::Contains("is tinybench"));
  const std::string version = run(node.string(), {"--version"}).out;
  CHECK(imported.run["env"]["runtimes"]["node"] == version.substr(0, version.find('\n')));
  CHECK(imported.run["imported"]["files"][0]["facts"]["runtime"] == "node");
  const auto& results = imported.results;
  REQUIRE(results.size() == 4);
  CHECK(results[0]["bench"] == "sum 1e5");
  CHECK(results[1]["params"] == json{{"size", 1000}});
  CHECK(results[2]["params"] == json{{"size", 10000}});
  for (std::size_t i = 0; i < 3; ++i) {
    INFO(results[i]["bench"]);
    const json& time = results[i]["metrics"]["time"];
    REQUIRE(time.contains("samples"));
    CHECK(time["samples"].size() == results[i]["ops"].get<std::size_t>());
    CHECK(!time["samples"].empty());
    CHECK(results[i]["metrics"]["throughput"]["samples"].size() == time["samples"].size());
  }
  CHECK(results[3]["bench"] == "parse");
  CHECK(results[3]["primary"] == "failed");
  CHECK(schema_problems(ledger).empty());
}

TEST_CASE(
    "vitest bench --outputJson: vitest's statistics in ms and hz, the file and describe group in "
    "the name, key=value words as params, no environment") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const Imported imported = import_auto(fixture("vitest/base.json"), ledger);
  INFO(imported.cli.err);
  REQUIRE(imported.cli.status == 0);
  CHECK_THAT(imported.cli.err,
             Catch::Contains("is vitest") && Catch::Contains("vitest's report has no samples"));
  CHECK(imported.run["source"] == "vitest");
  // vitest's report says nothing of the machine, the runtime or its own version.
  CHECK(imported.run["env"]["host"].is_null());
  CHECK(imported.run["env"]["cpu"]["model"].is_null());
  CHECK(imported.run["env"]["runtimes"]["node"].is_null());
  CHECK(imported.run["imported"]["files"][0]["env_from_file"].empty());
  CHECK(imported.run["imported"]["files"][0]["tool_version"].is_null());

  const json file = fixture_json("vitest/base.json");
  const auto& results = imported.results;
  REQUIRE(results.size() == 4);
  CHECK(results[0]["bench"] == "bench/sort.bench.js > reverse");
  CHECK(results[0]["params"] == json{{"size", 10000}});
  CHECK(results[1]["bench"] == "bench/sort.bench.js > sort");
  CHECK(results[1]["params"] == json{{"size", 1000}});
  CHECK(results[2]["bench"] == "bench/sort.bench.js > sort");
  CHECK(results[2]["params"] == json{{"size", 10000}});
  CHECK(results[3]["bench"] == "bench/sum.bench.js > sum 1e5");
  CHECK(results[3]["params"].empty());

  const json& sort = file["files"][0]["groups"][1]["benchmarks"][1];
  const json& time = results[2]["metrics"]["time"];
  CHECK(results[2]["primary"] == "time");
  CHECK(time["unit"] == "ms");
  CHECK(time["better"] == "lower");
  CHECK(!time.contains("samples"));
  CHECK(time["value"] == sort["median"]);
  CHECK(time["summary"]["mean"] == sort["mean"]);
  CHECK(time["summary"]["stddev"] == sort["sd"]);
  CHECK(time["summary"]["p99"] == sort["p99"]);
  CHECK(time["summary"]["n"] == sort["sampleCount"]);
  CHECK(results[2]["ops"] == sort["sampleCount"]);
  CHECK(results[2]["metrics"]["hz"]["value"] == sort["hz"]);
  CHECK(results[2]["metrics"]["hz"]["unit"] == "ops/s");
  CHECK(results[2]["metrics"]["hz"]["better"] == "higher");
  CHECK(results[2]["tool_statistics"]["p75"] == sort["p75"]);
  CHECK(results[2]["tool_statistics"]["rme"] == sort["rme"]);
  CHECK(results[2]["tool_statistics"]["unit"] == "ms");
  CHECK(schema_problems(ledger).empty());
}

TEST_CASE(
    "vitest: a benchmark that threw, which vitest writes without statistics, is a failed "
    "result") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const Imported imported = import_auto(fixture("vitest/failed.json"), ledger);
  INFO(imported.cli.err);
  REQUIRE(imported.cli.status == 0);
  CHECK_THAT(imported.cli.err, Catch::Contains("bench/fails.bench.js > parse: no statistics"));
  REQUIRE(imported.results.size() == 2);
  CHECK(imported.results[0]["bench"] == "bench/fails.bench.js > parse");
  CHECK(imported.results[0]["primary"] == "failed");
  CHECK_THAT(imported.results[0]["failure"]["message"].get<std::string>(),
             Catch::Contains("threw"));
  CHECK(imported.results[1]["bench"] == "bench/fails.bench.js > stringify");
  CHECK(imported.results[1]["metrics"]["time"]["value"].is_number());
  CHECK(schema_problems(ledger).empty());
}

TEST_CASE(
    "tinybench's tasks as JSON: latency and throughput samples when retained, params from the "
    "name, node's version from the file") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const Imported imported = import_auto(fixture("tinybench/base.json"), ledger);
  INFO(imported.cli.err);
  REQUIRE(imported.cli.status == 0);
  CHECK_THAT(imported.cli.err, Catch::Contains("is tinybench"));
  CHECK_THAT(imported.cli.err, !Catch::Contains("no samples"));
  const json file = fixture_json("tinybench/base.json");
  CHECK(imported.run["source"] == "tinybench");
  CHECK(imported.run["env"]["runtimes"]["node"] ==
        "v" + file[0]["result"]["runtimeVersion"].get<std::string>());
  CHECK(imported.run["env"]["host"].is_null());  // tinybench does not say
  CHECK(imported.run["env"]["cpu"]["model"].is_null());
  CHECK(imported.run["imported"]["files"][0]["env_from_file"] == json{"runtimes.node"});
  CHECK(imported.run["imported"]["files"][0]["facts"]["runtime"] == "node");
  CHECK(imported.run["imported"]["files"][0]["facts"]["timestampProviderName"] ==
        file[0]["result"]["timestampProviderName"]);

  const auto& results = imported.results;
  REQUIRE(results.size() == 3);
  CHECK(results[0]["bench"] == "sum 1e5");
  CHECK(results[0]["params"].empty());
  CHECK(results[1]["bench"] == "sort");
  CHECK(results[1]["params"] == json{{"size", 1000}});
  CHECK(results[2]["params"] == json{{"size", 10000}});
  const json& latency = file[2]["result"]["latency"];
  const json& time = results[2]["metrics"]["time"];
  CHECK(time["unit"] == "ms");
  CHECK(time["samples"] == latency["samples"]);
  CHECK(time["samples"].size() == latency["samplesCount"].get<std::size_t>());
  CHECK(results[2]["ops"] == latency["samplesCount"]);
  const json& throughput = results[2]["metrics"]["throughput"];
  CHECK(throughput["unit"] == "ops/s");
  CHECK(throughput["better"] == "higher");
  CHECK(throughput["samples"] == file[2]["result"]["throughput"]["samples"]);
  CHECK(!results[2].contains("tool_statistics"));
  CHECK(schema_problems(ledger).empty());
}

TEST_CASE("tinybench without retainSamples: its statistics as one value, with a warning") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const Imported imported = import_auto(fixture("tinybench/statistics.json"), ledger);
  INFO(imported.cli.err);
  REQUIRE(imported.cli.status == 0);
  CHECK_THAT(imported.cli.err, Catch::Contains("retainSamples: true"));
  const json latency = fixture_json("tinybench/statistics.json")[1]["result"]["latency"];
  REQUIRE(imported.results.size() == 3);
  const json& time = imported.results[1]["metrics"]["time"];
  CHECK(!time.contains("samples"));
  CHECK(time["value"] == latency["p50"]);
  CHECK(time["summary"]["mean"] == latency["mean"]);
  CHECK(time["summary"]["p999"] == latency["p999"]);
  CHECK(time["summary"]["n"] == latency["samplesCount"]);
  CHECK(imported.results[1]["tool_statistics"]["latency"]["p75"] == latency["p75"]);
  CHECK(imported.results[1]["tool_statistics"]["throughput"]["unit"] == "ops/s");
  CHECK(schema_problems(ledger).empty());
}

TEST_CASE("tinybench: a task that threw is a failed result") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const Imported imported = import_auto(fixture("tinybench/failed.json"), ledger);
  INFO(imported.cli.err);
  REQUIRE(imported.cli.status == 0);
  REQUIRE(imported.results.size() == 4);
  CHECK(imported.results[3]["bench"] == "parse");
  CHECK(imported.results[3]["primary"] == "failed");
  CHECK(imported.results[3]["failure"]["message"] == "the task threw");
  CHECK(imported.results[0]["metrics"]["time"]["samples"].size() > 10);
}

TEST_CASE(
    "two outputs of vitest and of tinybench, one benchmark 20% slower: compare flags "
    "exactly it") {
  ScratchDir dir;
  struct Format {
    std::string name;
    std::vector<std::string> flagged;
  };
  const std::vector<Format> formats = {
      {"vitest", {"bench/sort.bench.js > sort {\"size\":10000}"}},
      {"tinybench", {"sort {\"size\":10000}"}},
  };
  for (const Format& f : formats) {
    INFO(f.name);
    const auto found =
        regressions_between({"--import", f.name, fixture(f.name + "/base.json").string()},
                            {"--import", f.name, fixture(f.name + "/slowed.json").string()},
                            dir.path() / (f.name + ".ndjson"));
    INFO(found.output);
    CHECK(found.status == 1);
    CHECK(found.cases == f.flagged);
  }
}

namespace {

struct Damage {
  std::string format, source;  // source: a fixture
  std::string from, to;        // the first `from` replaced by `to`; empty: the first half only
  std::string expected;        // in the message besides the file's name
};

}  // namespace

TEST_CASE(
    "a truncated, mistyped or incomplete vitest or tinybench output is refused with exit 2 "
    "naming the file and the place, appending nothing") {
  ScratchDir dir;
  const std::vector<Damage> corpus = {
      {"vitest", "vitest/base.json", "", "", "not JSON"},
      {"vitest", "vitest/base.json", R"("hz": )", R"("hz": "fast", "_": )",
       R"(field "files[0].groups[0].benchmarks[0].hz": expected a number)"},
      {"vitest", "vitest/base.json", R"("fullName")", R"("name")",
       R"(field "files[0].groups[0].fullName": missing)"},
      {"vitest", "vitest/base.json", R"("median")", R"("medain")",
       R"(field "files[0].groups[0].benchmarks[0].median": missing)"},
      {"vitest", "vitest/base.json", R"("groups": [)", R"("groups": 7, "_": [)",
       R"(field "files[0].groups": expected an array)"},
      {"vitest", "vitest/base.json", R"("files": [)", R"("files": 7, "_": [)",
       R"(field "files": expected an array)"},
      {"tinybench", "tinybench/base.json", "", "", "not JSON"},
      {"tinybench", "tinybench/base.json", R"("samples":[)", R"("samples":["x",)",
       R"(field "[0].result.latency.samples[0]": expected a number)"},
      {"tinybench", "tinybench/base.json", R"("latency")", R"("latncy")",
       R"(field "[0].result.latency": missing)"},
      {"tinybench", "tinybench/statistics.json", R"("p50")", R"("p5O")",
       R"(field "[0].result.latency.p50": missing)"},
      {"tinybench", "tinybench/statistics.json", R"("samplesCount":)", R"("samplesCount":-)",
       R"(field "[0].result.latency.samplesCount": expected a non-negative integer)"},
      {"tinybench", "tinybench/base.json", R"("state":"completed")", R"("state":3)",
       R"(field "[0].result.state": expected a string)"},
  };
  const auto ledger = dir.path() / "ledger.ndjson";
  REQUIRE(run_cli({"run", "--import", "tinybench", fixture("tinybench/base.json").string(),
                   "--ledger", ledger.string(), "-q"})
              .status == 0);
  const std::string before = read_file(ledger);
  for (std::size_t i = 0; i < corpus.size(); ++i) {
    const Damage& d = corpus[i];
    const std::string text = read_file(fixture(d.source));
    std::string broken;
    if (d.from.empty()) {
      broken = text.substr(0, text.size() / 2);
    } else {
      const std::size_t at = text.find(d.from);
      REQUIRE(at != std::string::npos);
      broken = text.substr(0, at) + d.to + text.substr(at + d.from.size());
    }
    const auto file = dir.path() / ("damaged-" + std::to_string(i) + "-" + d.format + ".json");
    std::ofstream(file) << broken;
    const auto result =
        run_cli({"run", "--import", d.format, file.string(), "--ledger", ledger.string()});
    INFO(d.format << " " << d.from << " -> " << d.to << ": " << result.err);
    CHECK(result.status == 2);
    CHECK_THAT(result.err, Catch::Contains(file.string()) && Catch::Contains(d.expected));
  }
  // tinybench 2's flat result (vitest's report keeps that shape), as a script serialises it.
  const auto flat = dir.path() / "tinybench2.json";
  std::ofstream(flat)
      << R"([{"name": "sort", "result": {"hz": 5000, "mean": 0.2, "samples": [0.2]}}])";
  const auto refused =
      run_cli({"run", "--import", "tinybench", flat.string(), "--ledger", ledger.string()});
  CHECK(refused.status == 2);
  CHECK_THAT(refused.err,
             Catch::Contains(flat.string() + R"(: field "[0].result": a tinybench 2 result)"));
  CHECK(read_file(ledger) == before);
}
