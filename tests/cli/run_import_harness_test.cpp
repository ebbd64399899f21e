// `run --import` reads what the real harnesses write, run here on tiny benchmarks (go test,
// pytest-benchmark and pyperf from tools/setup), keeps their samples, params and the
// environment the file states, and refuses a damaged file with exit 2 naming the place. The
// two-output comparisons of these formats read committed outputs
// (run_import_fixture_test.cpp): a live output's spread is the machine's load of the moment.
#include <catch2/catch.hpp>

#include <regex>

#include "import_compare_support.hpp"

using namespace benchledger::run_test;
using nlohmann::json;

namespace {

// The project's virtual environment's interpreter (BENCHLEDGER_PYTHON3), which tools/setup
// gives pytest-benchmark and pyperf from tools/python-requirements.txt.
std::string venv_python() {
  const std::string python = python3();
  if (python.find("/.venv/") == std::string::npos)
    throw std::runtime_error(python + " is not the project's .venv: run tools/setup, then cmake");
  return python;
}

std::string go() {
  if (!std::filesystem::exists("/usr/bin/go"))
    throw std::runtime_error("/usr/bin/go is missing: run tools/setup (Debian's golang-go)");
  return "/usr/bin/go";
}

// The Go package of two benchmarks, one with sub-benchmarks named key=value, that
// tests/cli/import/regenerate.sh also runs for the committed go-test fixtures.
void write_go_package(const std::filesystem::path& dir) {
  std::filesystem::copy(source_dir() / "tests/cli/import/fixtures/go-test/pkg", dir,
                        std::filesystem::copy_options::recursive);
}

// `go test -bench` in `dir` with its caches inside it, -count `count` and -benchtime
// `iterations`; stdout to `output`.
Invocation go_test(const std::filesystem::path& dir, const std::filesystem::path& output,
                   bool json_events, int count = 3, const std::string& iterations = "200x") {
  std::vector<std::string> args = {"GOCACHE=" + (dir / ".gocache").string(),
                                   "GOPATH=" + (dir / ".gopath").string(), "GOFLAGS=-mod=mod", go(),
                                   "test"};
  if (json_events) args.push_back("-json");
  for (const std::string& a :
       {std::string("-run"), std::string("^$"), std::string("-bench"), std::string("."),
        std::string("-benchtime"), iterations, std::string("-count"), std::to_string(count)})
    args.push_back(a);
  args.push_back(".");
  std::ofstream(output).close();
  return run("/usr/bin/env", args, dir, output.c_str());
}

// pytest-benchmark on test_tiny.py (test_sum over `sizes`, a Python list's items) in `dir`, at
// least `rounds` rounds each, their data saved, JSON to `output`.
Invocation pytest_benchmark(const std::filesystem::path& dir, const std::filesystem::path& output,
                            const std::string& sizes, int rounds) {
  std::ofstream(dir / "test_tiny.py") << "import pytest\n\n@pytest.mark.parametrize(\"size\", [" +
                                             sizes +
                                             "])\n"
                                             "def test_sum(benchmark, size):\n"
                                             "    benchmark(sum, range(size))\n";
  return run(venv_python(),
             {"-m", "pytest", "-q", "-p", "no:cacheprovider", "--benchmark-json=" + output.string(),
              "--benchmark-save-data", "--benchmark-min-rounds=" + std::to_string(rounds),
              "--benchmark-max-time=0.05", "test_tiny.py"},
             dir);
}

}  // namespace

TEST_CASE("go test -bench text and -json: one sample per -count, params from the name") {
  ScratchDir dir;
  write_go_package(dir.path() / "pkg");
  for (const bool events : {false, true}) {
    INFO((events ? "go test -json" : "go test text"));
    const auto output = dir.path() / (events ? "go.json" : "go.txt");
    const auto produced = go_test(dir.path() / "pkg", output, events);
    INFO(produced.err);
    REQUIRE(produced.status == 0);
    const auto ledger = dir.path() / (events ? "json.ndjson" : "text.ndjson");
    const auto result =
        run_cli({"run", "--import", "auto", output.string(), "--ledger", ledger.string()});
    INFO(result.err);
    REQUIRE(result.status == 0);
    CHECK_THAT(result.err, Catch::Contains("is go-test"));
    const auto records = read_ledger(ledger);
    const json run = run_record(records);
    CHECK(run["source"] == "go-test");
    CHECK(run["env"]["cpu"]["arch"] == "x86_64");          // goarch amd64
    CHECK(run["env"]["memory"]["total_bytes"].is_null());  // go does not say
    CHECK(run["imported"]["files"][0]["facts"]["goos"] == "linux");
    const auto results = results_of(records);
    REQUIRE(results.size() == 3);
    const json& small = results[0];
    CHECK(small["bench"] == "BenchmarkSum");
    CHECK(small["params"]["size"] == 8);
    CHECK(small["params"]["procs"].is_number_integer());
    CHECK(small["primary"] == "time");
    CHECK(small["metrics"]["time"]["unit"] == "ns");
    CHECK(small["metrics"]["time"]["samples"].size() == 3);
    CHECK(small["metrics"]["bytes"]["value"] == 64);
    CHECK(small["metrics"]["allocs"]["value"] == 1);
    CHECK(small["metrics"]["items/op"]["value"] == 8);
    CHECK(small["ops"] == 600);
    CHECK(results[2]["bench"] == "BenchmarkPlain");
    CHECK(results[2]["metrics"]["throughput"]["better"] == "higher");
    CHECK(schema_problems(ledger).empty());
  }
}

TEST_CASE("pytest-benchmark JSON keeps each saved round as a sample and machine_info as env") {
  ScratchDir dir;
  const auto output = dir.path() / "out.json";
  const auto produced = pytest_benchmark(dir.path(), output, "8, 64", 5);
  INFO(produced.out + produced.err);
  REQUIRE(produced.status == 0);
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto result =
      run_cli({"run", "--import", "auto", output.string(), "--ledger", ledger.string()});
  INFO(result.err);
  REQUIRE(result.status == 0);
  CHECK_THAT(result.err, Catch::Contains("is pytest-benchmark"));
  const auto records = read_ledger(ledger);
  const json run = run_record(records);
  CHECK(run["source"] == "pytest-benchmark");
  CHECK(run["imported"]["files"][0]["tool_version"] == "5.1.0");
  CHECK(run["imported"]["files"][0]["measured_at"].is_string());
  CHECK(run["env"]["runtimes"]["python"].get<std::string>().rfind("Python 3.", 0) == 0);
  CHECK(run["env"]["runtimes"]["compiler"].is_null());  // not this machine's
  const auto results = results_of(records);
  REQUIRE(results.size() == 2);
  CHECK(results[0]["bench"] == "test_tiny.py::test_sum");
  CHECK(results[0]["params"]["size"] == 8);
  CHECK(results[1]["params"]["size"] == 64);
  CHECK(results[0]["metrics"]["time"]["unit"] == "s");
  CHECK(results[0]["metrics"]["time"]["samples"].size() >= 5);
  CHECK(schema_problems(ledger).empty());
}

TEST_CASE("pyperf JSON keeps every value of every run, warmups and calibration left out") {
  ScratchDir dir;
  std::ofstream(dir.path() / "bench.py") << R"py(import pyperf
runner = pyperf.Runner()
runner.timeit("sum_8", stmt="sum(range(8))")
)py";
  const auto output = dir.path() / "pyperf.json";
  const auto produced = run(venv_python(),
                            {"bench.py", "--processes", "3", "--values", "2", "--warmups", "1",
                             "--loops", "100", "-q", "-o", output.string()},
                            dir.path());
  INFO(produced.out + produced.err);
  REQUIRE(produced.status == 0);
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto result =
      run_cli({"run", "--import", "pyperf", output.string(), "--ledger", ledger.string()});
  INFO(result.err);
  REQUIRE(result.status == 0);
  const auto records = read_ledger(ledger);
  const json run = run_record(records);
  CHECK(run["imported"]["files"][0]["tool_version"] == "2.8.1");
  CHECK(run["env"]["cpu"]["logical"].is_number_integer());
  const auto results = results_of(records);
  REQUIRE(results.size() == 1);
  CHECK(results[0]["bench"] == "sum_8");
  CHECK(results[0]["metrics"]["time"]["samples"].size() == 6);  // 3 processes × 2 values
  CHECK(results[0]["ops"] == 600);
  CHECK(schema_problems(ledger).empty());
}

TEST_CASE("an imported run states the file's environment, and --env-from-here this machine's") {
  ScratchDir dir;
  const auto output = dir.path() / "gbench.json";
  REQUIRE(
      run(RUN_GBENCH_FIXTURE, {"--benchmark_filter=BM_Empty", "--benchmark_min_time=0.01",
                               "--benchmark_out_format=json", "--benchmark_out=" + output.string()})
          .status == 0);
  // As if measured on another machine: the host is the file's word.
  std::string text = read_file(output);
  text = std::regex_replace(text, std::regex(R"("host_name": "[^"]*")"),
                            R"("host_name": "Corgi.local")");
  std::ofstream(output) << text;
  const auto ledger = dir.path() / "ledger.ndjson";
  REQUIRE(run_cli({"run", "--import", "google-benchmark", output.string(), "--ledger",
                   ledger.string(), "-q"})
              .status == 0);
  REQUIRE(run_cli({"run", "--import", "google-benchmark", output.string(), "--ledger",
                   ledger.string(), "-q", "--env-from-here"})
              .status == 0);
  std::vector<json> runs;
  for (const json& r : read_ledger(ledger))
    if (r["type"] == "run") runs.push_back(r);
  REQUIRE(runs.size() == 2);
  const json& from_file = runs[0];
  CHECK(from_file["env"]["host"] == "Corgi.local");
  CHECK(from_file["env"]["cpu"]["model"].is_null());  // google-benchmark does not say
  CHECK(from_file["env"]["runtimes"]["build_type"].is_null());
  CHECK(from_file["imported"]["env"] == "file");
  const json& given = from_file["imported"]["files"][0]["env_from_file"];
  CHECK(std::find(given.begin(), given.end(), "host") != given.end());
  CHECK(std::find(given.begin(), given.end(), "cpu.model") == given.end());
  CHECK(from_file["imported"]["files"][0]["measured_at"].is_string());
  CHECK(from_file["imported"]["files"][0]["facts"].contains("library_build_type"));
  const json& here = runs[1];
  CHECK(here["env"]["host"] != "Corgi.local");
  CHECK(here["imported"]["env"] == "here");
  CHECK(here["env"]["fingerprint"] != from_file["env"]["fingerprint"]);

  // compare names the difference between the two machines.
  const auto compared = run_cli({"compare", from_file["id"].get<std::string>(),
                                 here["id"].get<std::string>(), "--ledger", ledger.string()});
  INFO(compared.out + compared.err);
  CHECK(compared.status != 2);
  CHECK_THAT(compared.out + compared.err, Catch::Contains("environment"));
  CHECK(schema_problems(ledger).empty());
}

TEST_CASE("a damaged or unrecognised file is refused with exit 2 naming the file and the place") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  struct Case {
    std::string format, content, message;
  };
  const std::vector<Case> cases = {
      {"pytest-benchmark", R"({"benchmarks": [{"fullname": "t::x", "stats": {"rounds": 3)",
       "not JSON"},
      {"pytest-benchmark", R"({"benchmarks": [{"fullname": "t::x", "stats": {"rounds": "3"}}]})",
       "field \"benchmarks[0].stats.rounds\": expected a non-negative integer"},
      {"pytest-benchmark",
       R"({"benchmarks": [{"fullname": "t::x", "stats": {"rounds": 1, "data": [1, "x"]}}]})",
       "field \"benchmarks[0].stats.data[1]\": expected a number"},
      {"pyperf",
       R"({"benchmarks": [{"metadata": {"name": "a"}, "runs": [{"values": [1, null]}]}]})",
       "field \"benchmarks[0].runs[0].values[1]\": expected a number"},
      {"pyperf", R"({"benchmarks": [{"metadata": {}, "runs": []}]})",
       "field \"benchmarks[0].metadata.name\": missing"},
      {"go-test", "goos: linux\nBenchmarkX-2   \t 100\t  fast ns/op\n",
       ":2: expected a number before \"ns/op\", got \"fast\""},
      {"go-test", "goos: linux\nBenchmarkX-2   \t 100\t  5.0\n",
       ":2: \"5.0\" has no unit after it"},
      {"go-test", "{\"Action\":\"output\",\"Output\":\"goos: linux\\n\"}\n{\"Action\":\"outp",
       ":2: not JSON"},
      {"go-test", "PASS\nok  \texample.com/tiny\t0.1s\n", "no benchmark result lines"},
      {"auto", "name,ms\nx,3\n", "--import auto: not a format benchledger recognises"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const auto file = dir.path() / ("bad" + std::to_string(i));
    std::ofstream(file) << c.content;
    const auto result =
        run_cli({"run", "--import", c.format, file.string(), "--ledger", ledger.string()});
    INFO(c.format << ": " << c.content);
    CHECK(result.status == 2);
    CHECK_THAT(result.err, Catch::Contains(file.string()) && Catch::Contains(c.message));
  }
  CHECK_FALSE(std::filesystem::exists(ledger));  // nothing appended
}

// The corpus of damaged files: each format's real output (run here, or the committed fixture),
// truncated and mistyped, is refused with exit 2 naming the file and the place, and the ledger
// it was to go to keeps its bytes.
namespace {

struct Damage {
  std::string format;
  std::filesystem::path source;
  std::string kind;  // "truncate": the first half; "cut": up to the end of `pattern`'s first
                     // match; "retype": `pattern`'s first match replaced by `replacement`
  std::string pattern, replacement;
  std::string expected;  // in the message besides the file's name
};

std::string damaged(const Damage& d) {
  const std::string text = read_file(d.source);
  if (d.kind == "truncate") return text.substr(0, text.size() / 2);
  std::smatch match;
  if (!std::regex_search(text, match, std::regex(d.pattern)))
    throw std::runtime_error(d.pattern + " is not in " + d.source.string());
  const auto end = static_cast<std::size_t>(match.position(0) + match.length(0));
  if (d.kind == "cut") return text.substr(0, end);
  return text.substr(0, static_cast<std::size_t>(match.position(0))) + d.replacement +
         text.substr(end);
}

}  // namespace

TEST_CASE(
    "a truncated or mistyped output of each format is refused with exit 2 naming the file "
    "and the place, appending nothing") {
  ScratchDir dir;
  const auto gbench = dir.path() / "gbench.json";
  REQUIRE(run(RUN_GBENCH_FIXTURE,
              {"--benchmark_filter=BM_Empty|BM_SumItems", "--benchmark_min_time=0.001",
               "--benchmark_out_format=json", "--benchmark_out=" + gbench.string()})
              .status == 0);
  const auto hyperfine = dir.path() / "hyperfine.json";
  REQUIRE(run("/usr/bin/hyperfine",
              {"-N", "--runs", "2", "--export-json", hyperfine.string(), "sleep 0.001"})
              .status == 0);
  const auto pytest = dir.path() / "pytest.json";
  REQUIRE(pytest_benchmark(dir.path(), pytest, "8", 2).status == 0);
  write_go_package(dir.path() / "pkg");
  const auto go_text = dir.path() / "go.txt";
  const auto go_json = dir.path() / "go.json";
  REQUIRE(go_test(dir.path() / "pkg", go_text, false, 1).status == 0);
  REQUIRE(go_test(dir.path() / "pkg", go_json, true, 1).status == 0);
  const auto fixtures = source_dir() / "tests/cli/import/fixtures";
  const auto asv = fixtures / "asv/results/fixture/base.json";
  const auto catch2 = fixtures / "catch2/base.xml";
  const auto pyperf = fixtures / "pyperf/base.json";
  const auto mitata = fixtures / "mitata/base.json";
  const std::vector<Damage> corpus = {
      {"google-benchmark", gbench, "truncate", "", "", "not JSON"},
      {"google-benchmark", gbench, "retype", R"("real_time": [^,]*)", R"("real_time": "fast")",
       ".real_time\": expected a number"},
      {"hyperfine", hyperfine, "truncate", "", "", "not JSON"},
      {"hyperfine", hyperfine, "retype", R"("times": \[\s*[^,\]]*)", R"("times": ["x")",
       ".times[0]\": expected a number"},
      {"pytest-benchmark", pytest, "truncate", "", "", "not JSON"},
      {"pytest-benchmark", pytest, "retype", R"("data": \[)", R"("data": ["x", )",
       ".stats.data[0]\": expected a number"},
      // A line without its newline is one go test was still writing, not a value without a unit.
      {"go-test", go_text, "cut", R"(Benchmark\S+\s+\d+\s+[\d.]+)", "",
       "no benchmark result lines (`BenchmarkName  N  V unit`): the output looks cut short"},
      {"go-test", go_text, "retype", R"(\s[\d.]+ ns/op)", " fast ns/op",
       "expected a number before \"ns/op\", got \"fast\""},
      {"go-test", go_json, "truncate", "", "", "not JSON"},
      {"pyperf", pyperf, "truncate", "", "", "not JSON"},
      {"pyperf", pyperf, "retype", R"("values":\[)", R"("values":["x",)",
       ".values[0]\": expected a number"},
      {"catch2", catch2, "truncate", "", "", "not XML"},
      {"catch2", catch2, "retype", R"(<mean value="[^"]*")", R"(<mean value="fast")",
       "<mean>: attribute value: expected a number, got \"fast\""},
      {"asv", asv, "truncate", "", "", "not JSON"},
      {"asv", asv, "retype", R"("result_columns": \[)", R"("result_columns": "x", "_": [)",
       "field \"result_columns\": expected an array"},
      {"mitata", mitata, "truncate", "", "", "not JSON"},
      {"mitata", mitata, "retype", R"("samples": \[)", R"("samples": ["x", )",
       ".stats.samples[0]\": expected a number"},
  };
  const auto ledger = dir.path() / "ledger.ndjson";
  REQUIRE(run_cli({"run", "--import", "hyperfine", hyperfine.string(), "--ledger", ledger.string(),
                   "-q"})
              .status == 0);
  const std::string before = read_file(ledger);
  for (std::size_t i = 0; i < corpus.size(); ++i) {
    const Damage& d = corpus[i];
    const auto file = dir.path() / ("damaged-" + std::to_string(i) + "-" + d.kind + "-" +
                                    d.source.filename().string());
    std::ofstream(file) << damaged(d);
    const auto result =
        run_cli({"run", "--import", d.format, file.string(), "--ledger", ledger.string()});
    INFO(d.format << " " << d.kind << " " << d.pattern << ": " << result.err);
    CHECK(result.status == 2);
    CHECK_THAT(result.err, Catch::Contains(file.string()) && Catch::Contains(d.expected));
  }
  CHECK(read_file(ledger) == before);
}
