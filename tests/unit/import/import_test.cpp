// The importers turn google-benchmark's and hyperfine's JSON into result records keeping every
// field they read, and refuse a bad file whole, naming the file and the field.
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <benchledger/error.hpp>

#include "import/import.hpp"
#include "unit/ledger/ledger_support.hpp"

using namespace benchledger;
using benchledger::testing::ScratchDir;
using benchledger::testing::write_file;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;
using std::string;
using std::vector;

namespace {

// google-benchmark 1.7's --benchmark_format=json for two benchmarks of two repetitions each
// (with --benchmark_repetitions=2 and without --benchmark_report_aggregates_only), a user
// counter, an aggregate, and a benchmark that called SkipWithError.
constexpr const char* k_google = R"({
  "context": {"date": "2026-11-24T06:00:00+00:00", "host_name": "bench-01",
              "num_cpus": 2, "library_build_type": "release"},
  "benchmarks": [
    {"name": "BM_Sort/64", "family_index": 0, "per_family_instance_index": 0,
     "run_name": "BM_Sort/64", "run_type": "iteration", "repetitions": 2,
     "repetition_index": 0, "threads": 1, "iterations": 1000, "real_time": 101.5,
     "cpu_time": 100.5, "time_unit": "ns", "items_per_second": 6.3e8, "bytes_per_second": 2.5e9,
     "swaps": 12, "compares_per_second": 4.0e9},
    {"name": "BM_Sort/64", "family_index": 0, "per_family_instance_index": 0,
     "run_name": "BM_Sort/64", "run_type": "iteration", "repetitions": 2,
     "repetition_index": 1, "threads": 1, "iterations": 1200, "real_time": 99.5,
     "cpu_time": 98.5, "time_unit": "ns", "items_per_second": 6.4e8, "bytes_per_second": 2.6e9,
     "swaps": 14, "compares_per_second": 4.2e9},
    {"name": "BM_Sort/64_mean", "family_index": 0, "per_family_instance_index": 0,
     "run_name": "BM_Sort/64", "run_type": "aggregate", "repetitions": 2, "threads": 1,
     "aggregate_name": "mean", "aggregate_unit": "time", "iterations": 2, "real_time": 100.5,
     "cpu_time": 99.5, "time_unit": "ns"},
    {"name": "BM_Open", "family_index": 1, "per_family_instance_index": 0,
     "run_name": "BM_Open", "run_type": "iteration", "repetitions": 2, "repetition_index": 0,
     "threads": 1, "iterations": 0, "real_time": 0, "cpu_time": 0, "time_unit": "ns",
     "error_occurred": true, "error_message": "no database configured"},
    {"name": "BM_Open", "family_index": 1, "per_family_instance_index": 0,
     "run_name": "BM_Open", "run_type": "iteration", "repetitions": 2, "repetition_index": 1,
     "threads": 1, "iterations": 0, "real_time": 0, "cpu_time": 0, "time_unit": "ns",
     "error_occurred": true, "error_message": "no database configured"}
  ]
})";

// hyperfine's --export-json for a parameter scan of two commands, one of whose runs failed.
constexpr const char* k_hyperfine = R"({
  "results": [
    {"command": "sleep 0.01", "mean": 0.0105, "stddev": 0.0002, "median": 0.0104,
     "user": 0.0006, "system": 0.0009, "min": 0.0103, "max": 0.0108,
     "times": [0.0103, 0.0104, 0.0108], "exit_codes": [0, 0, 0],
     "parameters": {"delay": "0.01"}},
    {"command": "sleep 0.02", "mean": 0.0205, "stddev": 0.0002, "median": 0.0205,
     "user": 0.0007, "system": 0.0010, "min": 0.0203, "max": 0.0207,
     "times": [0.0203, 0.0207], "exit_codes": [0, 1],
     "parameters": {"delay": "0.02", "round": 2}}
  ]
})";

// The message of the Error that reading `text` as `format` throws ("" when none is thrown).
string refusal(const string& format, const string& text) {
  try {
    if (format == "google-benchmark") {
      import::read_google_benchmark(text, "bench.json");
    } else {
      import::read_hyperfine(text, "bench.json");
    }
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("google-benchmark JSON gives one result per run_name with each repetition a sample") {
  const auto imported = import::read_google_benchmark(k_google, "gbench.json");
  REQUIRE(imported.results.size() == 2);
  CHECK(imported.warnings.empty());

  const ResultRecord& sort = imported.results[0];
  CHECK(sort.bench == "BM_Sort/64");
  CHECK(sort.params.empty());
  CHECK(sort.primary == "time");
  CHECK(sort.ops == 2200);
  CHECK(sort.errors == 0);
  CHECK(sort.run.empty());  // the caller's run sets it
  CHECK(sort.header.prev == string(k_zero_hash));

  const Metric& time = sort.metrics.at("time");
  CHECK(time.unit == "ns");
  CHECK(time.better == Better::lower);
  CHECK(time.samples == std::optional<vector<double>>(vector<double>{101.5, 99.5}));
  CHECK(time.value == 100.5);  // the median of the samples, not the aggregate
  CHECK(time.summary.n == 2);

  const Metric& cpu = sort.metrics.at("cpu_time");
  CHECK(cpu.unit == "ns");
  CHECK(cpu.samples == std::optional<vector<double>>(vector<double>{100.5, 98.5}));

  const Metric& items = sort.metrics.at("items");
  CHECK(items.unit == "items/s");
  CHECK(items.better == Better::higher);
  CHECK(items.samples == std::optional<vector<double>>(vector<double>{6.3e8, 6.4e8}));
  const Metric& bytes = sort.metrics.at("bytes");
  CHECK(bytes.unit == "bytes/s");
  CHECK(bytes.better == Better::higher);
  CHECK(bytes.samples == std::optional<vector<double>>(vector<double>{2.5e9, 2.6e9}));

  // User counters: a rate (a name ending in per_second or _rate) is better higher.
  const Metric& swaps = sort.metrics.at("swaps");
  CHECK(swaps.unit == "count");
  CHECK(swaps.better == Better::lower);
  CHECK(swaps.samples == std::optional<vector<double>>(vector<double>{12, 14}));
  CHECK(sort.metrics.at("compares_per_second").better == Better::higher);
  // Nothing else: the fixed keys (iterations, threads, repetition_index ...) are not counters.
  CHECK(sort.metrics.size() == 6);

  const ResultRecord& open = imported.results[1];
  CHECK(open.bench == "BM_Open");
  CHECK(open.primary == "failed");
  CHECK(open.metrics.at("failed").value == 1);
  CHECK(open.ops == 1);
  CHECK(open.errors == 1);
  CHECK(open.header.extra.at("failure").at("message") == "no database configured");

  CHECK(imported.results[0].header.id != imported.results[1].header.id);
}

TEST_CASE(
    "google-benchmark's NaN and Infinity, which it writes for a zero counter's cv, are read") {
  // What google-benchmark 1.7 writes with --benchmark_repetitions=3 for a counter that is 0 in
  // every repetition: its coefficient of variation is 0/0, written as a bare NaN.
  const auto imported = import::read_google_benchmark(R"({
  "benchmarks": [
    {"name": "BM_Append", "run_name": "BM_Append", "run_type": "iteration", "repetitions": 3,
     "repetition_index": 0, "iterations": 1, "real_time": 240, "cpu_time": 1, "time_unit": "ms",
     "failed": 0, "rate": 10},
    {"name": "BM_Append", "run_name": "BM_Append", "run_type": "iteration", "repetitions": 3,
     "repetition_index": 1, "iterations": 1, "real_time": 250, "cpu_time": 1, "time_unit": "ms",
     "failed": 0, "rate": -Infinity},
    {"name": "BM_Append_cv", "run_name": "BM_Append", "run_type": "aggregate", "repetitions": 3,
     "aggregate_name": "cv", "aggregate_unit": "percentage", "iterations": 3,
     "real_time": NaN, "cpu_time": 0.1, "time_unit": "ms", "failed": NaN,"rate":-NaN},
    {"name": "BM_Text", "run_name": "BM_Text", "run_type": "iteration", "iterations": 1,
     "real_time": 1, "time_unit": "ms", "label": "NaN, Infinity, nan"}
  ]
})",
                                                      "gbench.json");
  REQUIRE(imported.results.size() == 2);
  const ResultRecord& append = imported.results[0];
  CHECK(append.metrics.at("time").samples ==
        std::optional<vector<double>>(vector<double>{240, 250}));
  CHECK(append.metrics.at("failed").samples == std::optional<vector<double>>(vector<double>{0, 0}));
  // A counter not finite in every repetition is left out, as one that a repetition lacks is; the
  // cv aggregate, all NaN, adds nothing.
  CHECK(append.metrics.count("rate") == 0);
  CHECK(append.metrics.count("cv") == 0);
  CHECK(imported.results[1].bench == "BM_Text");
  // A time that is not finite is still refused, by name.
  CHECK_THAT(refusal("google-benchmark", R"({"benchmarks": [{"name": "a", "run_type": "iteration",
      "iterations": 1, "real_time": NaN}]})"),
             Catch::Contains("benchmarks[0].real_time"));
}

TEST_CASE("google-benchmark aggregates alone give one value and a warning, a debug build too") {
  const auto imported = import::read_google_benchmark(R"({
    "context": {"library_build_type": "debug"},
    "benchmarks": [
      {"name": "BM_A_mean", "run_name": "BM_A", "run_type": "aggregate", "aggregate_name": "mean",
       "iterations": 3, "real_time": 12.0, "cpu_time": 11.0, "time_unit": "us"},
      {"name": "BM_A_median", "run_name": "BM_A", "run_type": "aggregate",
       "aggregate_name": "median", "iterations": 3, "real_time": 10.0, "cpu_time": 9.0,
       "time_unit": "us"},
      {"name": "BM_A_cv", "run_name": "BM_A", "run_type": "aggregate", "aggregate_name": "cv",
       "aggregate_unit": "percentage", "iterations": 3, "real_time": 0.05, "cpu_time": 0.05,
       "time_unit": "us"}
    ]})",
                                                      "agg.json");
  REQUIRE(imported.results.size() == 1);
  const Metric& time = imported.results[0].metrics.at("time");
  CHECK(time.unit == "us");
  CHECK(time.value == 10.0);  // the median aggregate
  CHECK_FALSE(time.samples.has_value());
  CHECK(imported.results[0].ops == 0);
  REQUIRE(imported.warnings.size() == 2);
  CHECK_THAT(imported.warnings[0],
             Equals("agg.json: the google-benchmark library was a debug build"));
  CHECK_THAT(imported.warnings[1], Contains("agg.json: BM_A: only aggregates were reported"));
}

TEST_CASE("a bad google-benchmark file is refused naming the file and the field") {
  CHECK_THAT(refusal("google-benchmark", "{\"benchmarks\": ["), Contains("bench.json: not JSON"));
  CHECK_THAT(refusal("google-benchmark", "[]"),
             Equals("bench.json: the document: expected an object"));
  CHECK_THAT(refusal("google-benchmark", "{}"),
             Equals("bench.json: field \"benchmarks\": missing"));
  CHECK_THAT(refusal("google-benchmark", R"({"benchmarks": {}})"),
             Equals("bench.json: field \"benchmarks\": expected an array"));
  CHECK_THAT(refusal("google-benchmark", R"({"benchmarks": [7]})"),
             Equals("bench.json: field \"benchmarks[0]\": expected an object"));
  CHECK_THAT(refusal("google-benchmark", R"({"benchmarks": [{"real_time": 1}]})"),
             Equals("bench.json: field \"benchmarks[0].name\": missing"));
  CHECK_THAT(refusal("google-benchmark", R"({"benchmarks": [{"name": "x", "iterations": 1}]})"),
             Equals("bench.json: field \"benchmarks[0].real_time\": missing"));
  CHECK_THAT(refusal("google-benchmark",
                     R"({"benchmarks": [{"name": "x", "iterations": 1, "real_time": "fast"}]})"),
             Equals("bench.json: field \"benchmarks[0].real_time\": expected a number"));
  CHECK_THAT(refusal("google-benchmark", R"({"benchmarks": [{"name": "x", "real_time": 1}]})"),
             Equals("bench.json: field \"benchmarks[0].iterations\": missing"));
  CHECK_THAT(
      refusal("google-benchmark",
              R"({"benchmarks": [{"name": "x", "iterations": -1, "real_time": 1}]})"),
      Equals("bench.json: field \"benchmarks[0].iterations\": expected a non-negative integer"));
  CHECK_THAT(refusal("google-benchmark",
                     R"({"benchmarks": [{"name": "x", "iterations": 1, "real_time": 1},
                                        {"name": "x", "iterations": 1, "real_time": 1,
                                         "time_unit": "us"}]})"),
             Equals("bench.json: field \"benchmarks[1].time_unit\": \"us\" differs from the "
                    "earlier \"ns\""));
  CHECK_THAT(refusal("google-benchmark",
                     R"({"benchmarks": [{"name": "x", "iterations": 1, "real_time": 1,
                                         "cpu_time": null}]})"),
             Equals("bench.json: field \"benchmarks[0].cpu_time\": expected a number"));
  CHECK_THAT(refusal("google-benchmark", R"({"benchmarks": [{"name": "x_mean", "run_name": "x",
                                            "run_type": "aggregate", "iterations": 1,
                                            "aggregate_name": "mean"}]})"),
             Equals("bench.json: field \"benchmarks\": \"x\" has neither iterations nor "
                    "aggregates"));
}

TEST_CASE("a google-benchmark percentage aggregate alone is kept as a metric in %") {
  const auto imported = import::read_google_benchmark(
      R"({"benchmarks": [{"name": "x_cv", "run_name": "x", "run_type": "aggregate",
                          "iterations": 1, "aggregate_name": "cv",
                          "aggregate_unit": "percentage", "real_time": 0.25}]})",
      "bench.json");
  REQUIRE(imported.results.size() == 1);
  CHECK(imported.results[0].primary == "cv");
  CHECK(imported.results[0].metrics.at("cv").unit == "%");
  CHECK(imported.results[0].metrics.at("cv").value == Approx(25));
}

TEST_CASE("a google-benchmark field of the wrong type is refused, not an internal error") {
  CHECK_THAT(
      refusal("google-benchmark", R"({"benchmarks": [{"name": "x", "error_occurred": "yes"}]})"),
      Equals("bench.json: field \"benchmarks[0].error_occurred\": expected true or false"));
  CHECK_THAT(refusal("google-benchmark", R"({"benchmarks": [{"name": "x",
                                            "error_occurred": true, "error_message": 3}]})"),
             Equals("bench.json: field \"benchmarks[0].error_message\": expected a string"));
  CHECK_THAT(refusal("google-benchmark", R"({"benchmarks": [{"name": "x", "run_type": 1}]})"),
             Equals("bench.json: field \"benchmarks[0].run_type\": expected a string"));
  CHECK_THAT(refusal("google-benchmark", R"({"benchmarks": [{"name": "x", "run_name": false}]})"),
             Equals("bench.json: field \"benchmarks[0].run_name\": expected a string"));
  CHECK_THAT(refusal("google-benchmark", R"({"benchmarks": [{"name": "x",
                                            "run_type": "aggregate", "aggregate_name": 1,
                                            "real_time": 1}]})"),
             Equals("bench.json: field \"benchmarks[0].aggregate_name\": expected a string"));
}

TEST_CASE("hyperfine JSON gives one result per command with each run a sample, in ms") {
  const auto imported = import::read_hyperfine(k_hyperfine, "hyperfine.json");
  REQUIRE(imported.results.size() == 2);
  REQUIRE(imported.warnings.size() == 1);
  CHECK(imported.warnings[0] ==
        "hyperfine.json: sleep 0.02: 1 of 2 runs exited with a non-zero "
        "status; their times are left out");

  const ResultRecord& first = imported.results[0];
  CHECK(first.bench == "sleep 0.01");
  CHECK(first.params == std::map<string, ParamValue>{{"delay", ParamValue(string("0.01"))}});
  CHECK(first.primary == "wall");
  CHECK(first.ops == 3);
  CHECK(first.errors == 0);
  CHECK(first.run.empty());
  const Metric& wall = first.metrics.at("wall");
  CHECK(wall.unit == "ms");
  CHECK(wall.better == Better::lower);
  REQUIRE(wall.samples.has_value());
  REQUIRE(wall.samples->size() == 3);
  CHECK((*wall.samples)[0] == Approx(10.3));
  CHECK((*wall.samples)[2] == Approx(10.8));
  CHECK(wall.value == Approx(10.4));
  // user and sys are hyperfine's means: one value, no samples.
  CHECK(first.metrics.at("user").value == Approx(0.6));
  CHECK_FALSE(first.metrics.at("user").samples.has_value());
  CHECK(first.metrics.at("sys").value == Approx(0.9));
  CHECK(first.metrics.at("sys").unit == "ms");
  CHECK(first.metrics.size() == 3);

  const ResultRecord& second = imported.results[1];
  CHECK(second.bench == "sleep 0.02");
  CHECK(second.errors == 1);  // one run exited 1: its time is not a sample
  CHECK(second.ops == 2);
  REQUIRE(second.metrics.at("wall").samples->size() == 1);
  CHECK((*second.metrics.at("wall").samples)[0] == Approx(20.3));
  // A parameter that is not a string is kept as its JSON text.
  CHECK(second.params.at("round") == ParamValue(string("2")));
}

TEST_CASE("a bad hyperfine file is refused naming the file and the field") {
  CHECK_THAT(refusal("hyperfine", "not json"), Contains("bench.json: not JSON"));
  CHECK_THAT(refusal("hyperfine", "{}"), Equals("bench.json: field \"results\": missing"));
  CHECK_THAT(refusal("hyperfine", R"({"results": 1})"),
             Equals("bench.json: field \"results\": expected an array"));
  CHECK_THAT(refusal("hyperfine", R"({"results": ["sleep 1"]})"),
             Equals("bench.json: field \"results[0]\": expected an object"));
  CHECK_THAT(refusal("hyperfine", R"({"results": [{"times": [1]}]})"),
             Equals("bench.json: field \"results[0].command\": missing"));
  CHECK_THAT(refusal("hyperfine", R"({"results": [{"command": "true"}]})"),
             Equals("bench.json: field \"results[0].times\": missing"));
  CHECK_THAT(refusal("hyperfine", R"({"results": [{"command": "true", "times": []}]})"),
             Equals("bench.json: field \"results[0].times\": expected a non-empty array"));
  CHECK_THAT(refusal("hyperfine", R"({"results": [{"command": "true", "times": [1, "2"]}]})"),
             Equals("bench.json: field \"results[0].times[1]\": expected a number"));
  CHECK_THAT(
      refusal("hyperfine", R"({"results": [{"command": "true", "times": [1], "user": "0.1"}]})"),
      Equals("bench.json: field \"results[0].user\": expected a number"));
}

TEST_CASE("import_file reads a file by format, and names an unknown format or a missing file") {
  ScratchDir dir;
  write_file(dir / "gbench.json", k_google);
  write_file(dir / "hyperfine.json", k_hyperfine);
  CHECK(import::import_file("google-benchmark", dir / "gbench.json").results.size() == 2);
  CHECK(import::import_file("hyperfine", dir / "hyperfine.json").results.size() == 2);
  CHECK(import::import_formats() == vector<string>{"auto", "google-benchmark", "hyperfine",
                                                   "pytest-benchmark", "go-test", "pyperf",
                                                   "catch2", "asv", "mitata", "criterion", "jmh",
                                                   "vitest", "tinybench", "ndjson", "csv"});

  CHECK_THROWS_WITH(
      import::import_file("nosuchharness", dir / "gbench.json"),
      "--import nosuchharness: unknown format (known: auto, google-benchmark, hyperfine, "
      "pytest-benchmark, go-test, pyperf, catch2, asv, mitata, criterion, jmh, vitest, tinybench, "
      "ndjson, csv)");
  const auto missing = (dir / "missing.json").string();
  CHECK_THROWS_WITH(import::import_file("hyperfine", missing),
                    "cannot read " + missing + ": No such file or directory");
  // The origin in a refusal is the file's path.
  write_file(dir / "broken.json", R"({"results": [{"command": "true", "times": []}]})");
  const auto broken = (dir / "broken.json").string();
  CHECK_THROWS_WITH(import::import_file("hyperfine", broken),
                    broken + ": field \"results[0].times\": expected a non-empty array");
}

TEST_CASE("numbers a harness could not have written are refused naming the file and the place") {
  const auto refused = [](const std::function<void()>& read, const std::string& expected) {
    try {
      read();
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK_THAT(e.what(), Contains(expected));
    }
  };
  // go test: a value that is not finite, and -count lines whose iterations overflow a count.
  refused([] { import::read_go_test("BenchmarkX-4 100 NaN ns/op\n", "go.txt"); },
          "go.txt:1: expected a number before \"ns/op\", got \"NaN\"");
  refused(
      [] {
        import::read_go_test(
            "BenchmarkX-4 5000000000000000000 1 ns/op\nBenchmarkX-4 5000000000000000000 1 ns/op\n",
            "go.txt");
      },
      "go.txt:2: BenchmarkX-4: the iterations of its -count lines add up");
  // pytest-benchmark: rounds times iterations beyond a count.
  refused(
      [] {
        import::read_pytest_benchmark(
            R"({"benchmarks": [{"name": "test_x", "fullname": "t.py::test_x",
                "stats": {"rounds": 9000000000000000000, "iterations": 4, "min": 1, "max": 1,
                          "mean": 1, "stddev": 0, "median": 1}}]})",
            "pytest.json");
      },
      "pytest.json: field \"benchmarks[0].stats\": rounds times iterations");
  // pyperf: loops below 1.
  refused(
      [] {
        import::read_pyperf(
            R"({"version": "1.0", "metadata": {"loops": 0},
                "benchmarks": [{"metadata": {"name": "b"}, "runs": [{"values": [0.5]}]}]})",
            "pyperf.json");
      },
      "pyperf.json: field \"benchmarks[0].metadata.loops\": expected 1 or more loops");
  // auto: a text that starts like go test's but is one 1 MiB word is no format, not a crash.
  refused([] { import::detect_format("Benchmark" + std::string(1 << 20, 'x'), "big.txt"); },
          "big.txt: --import auto: not a format");
}
