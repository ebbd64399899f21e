// A real output of each harness cut at every line or record boundary is refused, or with
// Partial::keep_complete imported as its complete benchmarks with a warning that says it looks cut
// short: never a silent result.
//
// The outputs are the committed ones of tests/cli/import/fixtures (tests/cli/import/regenerate.sh
// makes them with the real tools) and pgbench 15's of tests/unit/import/pgbench.
#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <benchledger/error.hpp>

#include "import/import.hpp"
#include "import/pgbench.hpp"
#include "unit/ledger/ledger_support.hpp"

using namespace benchledger;
using benchledger::import::ImportedResults;
using benchledger::import::Partial;
using benchledger::testing::read_file;
using benchledger::testing::ScratchDir;
using benchledger::testing::write_file;
using Catch::Matchers::Contains;
using std::string;
using std::vector;

namespace {

const string k_cut_short = "the output looks cut short";

std::filesystem::path fixture(const string& relative) {
  return std::filesystem::path(BENCHLEDGER_IMPORT_FIXTURES) / relative;
}

std::filesystem::path pgbench_fixture(const string& name) {
  return std::filesystem::path(BENCHLEDGER_PGBENCH_FIXTURES) / name;
}

using Reader = std::function<ImportedResults(const string& text, Partial partial)>;

// The text cut after each of its lines but the last, and in the middle of each line (a writer
// killed between two writes of a buffer).
vector<string> prefixes(const string& text) {
  vector<string> cut;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    if (end == string::npos) break;
    if (end > start + 1) cut.push_back(text.substr(0, start + (end - start) / 2));
    if (end + 1 < text.size()) cut.push_back(text.substr(0, end + 1));
    start = end + 1;
  }
  return cut;
}

std::size_t samples_of(const ResultRecord& r) {
  const Metric& m = r.metrics.at(r.primary);
  return m.samples ? m.samples->size() : 1;
}

// The result of `whole` with the same case, or nullptr.
const ResultRecord* same_case(const ImportedResults& whole, const ResultRecord& r) {
  for (const ResultRecord& w : whole.results)
    if (w.bench == r.bench && w.params == r.params) return &w;
  return nullptr;
}

bool says_cut_short(const ImportedResults& imported) {
  return std::any_of(imported.warnings.begin(), imported.warnings.end(),
                     [](const string& w) { return w.find(k_cut_short) != string::npos; });
}

struct Outcome {
  std::size_t refused = 0, kept_partially = 0, whole = 0;
};

// Each prefix is refused; or it already holds the tool's closing and gives what the whole file
// gives (`may_end` says where a format cannot tell an end from a cut: the results it then gives
// are complete ones of the whole file); with keep_complete it is refused, or gives complete results
// of the whole file and a warning that it looks cut short.
Outcome check_prefixes(const string& text, const Reader& read,
                       const std::function<bool(const string&)>& may_end = nullptr) {
  const ImportedResults whole = read(text, Partial::refuse);
  REQUIRE_FALSE(says_cut_short(whole));
  Outcome outcome;
  for (const string& prefix : prefixes(text)) {
    INFO("the first " << prefix.size() << " bytes, ending \""
                      << prefix.substr(prefix.size() > 60 ? prefix.size() - 60 : 0) << "\"");
    bool accepted = false;
    try {
      const ImportedResults imported = read(prefix, Partial::refuse);
      accepted = true;
      CHECK_FALSE(says_cut_short(imported));
      if (imported.results.size() == whole.results.size()) {
        ++outcome.whole;
      } else {
        CHECK((may_end && may_end(prefix)));
      }
      for (const ResultRecord& r : imported.results) {
        const ResultRecord* w = same_case(whole, r);
        REQUIRE(w != nullptr);
        CHECK(samples_of(r) == samples_of(*w));
      }
    } catch (const Error& e) {
      ++outcome.refused;
    }
    if (accepted) continue;
    try {
      const ImportedResults kept = read(prefix, Partial::keep_complete);
      ++outcome.kept_partially;
      CHECK(says_cut_short(kept));
      CHECK(kept.results.size() < whole.results.size());
      for (const ResultRecord& r : kept.results) {
        const ResultRecord* w = same_case(whole, r);
        REQUIRE(w != nullptr);
        CHECK(samples_of(r) == samples_of(*w));  // each with all its samples
      }
    } catch (const Error& e) {
      CHECK_THAT(e.what(), Contains(k_cut_short) || Contains("no benchmark result lines"));
    }
  }
  return outcome;
}

// go test's committed output (-count 100) with each benchmark's first three result lines only:
// the output of -count 3, every line as go test wrote it, small enough to cut at every line in a
// debug build. `-json` events: a result line is one event, or two when go test wrote its name
// first (the name's event ends with a tab, the numbers' event follows).
string first_three_samples(const string& text, bool events) {
  std::map<string, int> seen;
  string kept;
  bool skip_continuation = false;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start) + 1;
    const string line = text.substr(start, end - start);
    start = end;
    if (skip_continuation) {
      skip_continuation = false;
      continue;
    }
    const std::size_t output = events ? line.find("\"Output\":\"Benchmark") : 0;
    const std::size_t name_at = events ? output + 10 : 0;
    const std::size_t tab = line.find(events ? "\\t" : "\t", name_at);
    if (output != string::npos && line.compare(name_at, 9, "Benchmark") == 0 &&
        tab != string::npos) {
      const string name = line.substr(name_at, line.find_first_of(" \\\t", name_at) - name_at);
      if (++seen[name] > 3) {
        skip_continuation = events && line.find("\\n\"") == string::npos;
        continue;
      }
    }
    kept += line;
  }
  return kept;
}

string refusal(const std::function<void()>& read) {
  try {
    read();
  } catch (const Error& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("go test's output cut at any line is refused unless its closing line is there") {
  const string text = first_three_samples(read_file(fixture("go-test/base.txt")), false);
  REQUIRE(std::count(text.begin(), text.end(), '\n') == 4 + 9 + 2);
  const Outcome outcome = check_prefixes(
      text, [](const string& t, Partial p) { return import::read_go_test(t, "out.txt", p); });
  CHECK(outcome.whole == 2);  // up to PASS, and PASS's line cut: the benchmarks are all there
  // From the end of BenchmarkSum/size=64-2's first line to the middle of PASS.
  CHECK(outcome.kept_partially == 12);
  // The first 8 lines of the whole output: the headers and four of BenchmarkSum/size=8's hundred
  // samples.
  const string whole = read_file(fixture("go-test/base.txt"));
  std::size_t eighth = 0;
  for (int line = 0; line < 8; ++line) eighth = whole.find('\n', eighth) + 1;
  CHECK(refusal([&] { import::read_go_test(whole.substr(0, eighth), "out.txt"); }) ==
        "out.txt: ends after BenchmarkSum/size=8-2's 4th sample, without go test's closing \"ok\" "
        "or \"FAIL\" line: the output looks cut short, and no benchmark in it is complete "
        "(nothing was imported)");
  // Cut inside BenchmarkPlain: the two others are whole.
  const string inside_plain = whole.substr(0, whole.find("BenchmarkPlain-2") + 200);
  const ImportedResults kept =
      import::read_go_test(inside_plain, "out.txt", Partial::keep_complete);
  REQUIRE(kept.results.size() == 2);
  CHECK(samples_of(kept.results[0]) == 100);
  CHECK(samples_of(kept.results[1]) == 100);
  CHECK_THAT(kept.warnings.back(),
             Contains("out.txt: ends after BenchmarkPlain-2's 2nd sample and part of a line") &&
                 Contains("--allow-partial imported its 2 complete benchmarks and left out "
                          "BenchmarkPlain-2 (2 samples)"));
}

TEST_CASE("go test -json cut at any event is refused until its package's pass or fail event") {
  const string text = first_three_samples(read_file(fixture("go-test/base.json")), true);
  REQUIRE(import::read_go_test(text, "out.json").results.size() == 3);
  const Outcome outcome = check_prefixes(
      text, [](const string& t, Partial p) { return import::read_go_test(t, "out.json", p); });
  CHECK(outcome.whole == 0);
  CHECK(outcome.kept_partially > 10);
}

TEST_CASE("a failed go test with its benchmarks' lines is a finished output, not a cut one") {
  const string failed =
      "goos: linux\nBenchmarkOk-2   \t 100\t 5.0 ns/op\n--- FAIL: BenchmarkBad\n"
      "    bad_test.go:9: broken\nFAIL\nexit status 1\nFAIL\texample.com/bad\t0.1s\n";
  const ImportedResults imported = import::read_go_test(failed, "failed.txt");
  CHECK(imported.results.size() == 1);
  CHECK(imported.warnings.empty());
}

TEST_CASE(
    "pgbench's output cut at any line is refused without its summary, and its statements "
    "are checked against the built-in script's") {
  const Outcome outcome = check_prefixes(
      read_file(pgbench_fixture("tpcb_output.txt")),
      [](const string& t, Partial p) {
        return import::read_pgbench({{t, "out.txt"}}, p);
      },
      // Cut right after its tps line, an output is one of a run without --report-per-command.
      [](const string& prefix) { return prefix.ends_with("(without initial connection time)\n"); });
  // From the heading of the statements to the middle of the 11th: the run's result and those
  // before.
  CHECK(outcome.kept_partially == 23);
  // The issue's three lines: a header, the vacuum, one progress line.
  const string three =
      "pgbench (15.18 (Debian 15.18-0+deb12u1))\nstarting vacuum...end.\n"
      "progress: 1.0 s, 540.2 tps, lat 7.193 ms stddev 12.130, 0 failed\n";
  CHECK(refusal([&] {
          import::read_pgbench({{ three, "out.txt" }});
        }) ==
        "out.txt: ends after its 1st progress line, without pgbench's summary (its \"tps = \" "
        "line): the output looks cut short, and no benchmark in it is complete (nothing was "
        "imported)");
  check_prefixes(read_file(pgbench_fixture("select_only_retries.txt")),
                 [](const string& t, Partial p) {
                   return import::read_pgbench({{t, "out"}}, p);
                 });
}

TEST_CASE("pgbench's aborted run is a failure it reports, not a cut output") {
  // pgbench 15 when a client aborts: the error, the summary of what ran, and the verdict after it.
  const string aborted =
      "pgbench (15.18 (Debian 15.18-0+deb12u1))\n"
      "pgbench: error: client 0 script 0 aborted in command 5 query 0: ERROR:  boom\n"
      "transaction type: <builtin: TPC-B (sort of)>\nscaling factor: 1\nquery mode: simple\n"
      "number of clients: 1\nnumber of threads: 1\nmaximum number of tries: 1\n"
      "number of transactions per client: 10\n"
      "number of transactions actually processed: 0/10\nnumber of failed transactions: 0 "
      "(0.000%)\nlatency average = 0.000 ms\ninitial connection time = 3.215 ms\n"
      "tps = 0.000000 (without initial connection time)\n"
      "pgbench: error: Run was aborted; the above results are incomplete.\n";
  const ImportedResults imported = import::read_pgbench({{aborted, "aborted.txt"}});
  REQUIRE(imported.results.size() == 1);
  CHECK(imported.results[0].ops == 0);
  CHECK_FALSE(says_cut_short(imported));
  CHECK_THAT(imported.warnings.back(), Contains("Run was aborted"));
}

TEST_CASE("cargo-criterion's messages cut at any record are refused until their group completes") {
  const Outcome outcome = check_prefixes(
      read_file(fixture("criterion/messages.ndjson")),
      [](const string& t, Partial p) { return import::read_cargo_criterion(t, "m.ndjson", p); },
      // Between two groups the stream has no end to miss: cargo-criterion writes no last message.
      [](const string& prefix) {
        const auto last = prefix.rfind('\n', prefix.size() - 2);
        return prefix.find("group-complete", last == string::npos ? 0 : last) != string::npos;
      });
  CHECK(outcome.kept_partially >= 1);
}

TEST_CASE("Catch2's XML cut at any line is refused, saying it looks cut short") {
  const string text = read_file(fixture("catch2/base.xml"));
  for (const string& prefix : prefixes(text)) {
    INFO(prefix.size());
    CHECK_THAT(refusal([&] { import::read_catch2_xml(prefix, "base.xml"); }),
               Contains("base.xml:") && Contains(k_cut_short));
  }
  // Closed by something other than Catch2: its totals missing.
  string closed = text.substr(0, text.find("<OverallResults", text.rfind("</Group>")));
  closed += "</Catch>\n";
  CHECK_THAT(refusal([&] { import::read_catch2_xml(closed, "base.xml"); }),
             Contains("<Catch> ends without Catch2's closing <OverallResults>: " + k_cut_short));
}

TEST_CASE("a Catch2 run with a failed benchmark is a finished output, not a cut one") {
  // What Catch2 2.x's XML reporter writes when a BENCHMARK throws: <failed> in its results, and
  // the totals after the test cases.
  const string failed = R"(<?xml version="1.0" encoding="UTF-8"?>
<Catch name="bench">
  <Group name="bench">
    <TestCase name="fails" filename="bench.cpp" line="3">
      <BenchmarkResults name="throws" samples="20" resamples="100000" iterations="1" clockResolution="20" estimatedDuration="0">
        <failed message="boom"/>
      </BenchmarkResults>
      <OverallResult success="false"/>
    </TestCase>
    <OverallResults successes="0" failures="1" expectedFailures="0"/>
    <OverallResultsCases successes="0" failures="1" expectedFailures="0"/>
  </Group>
  <OverallResults successes="0" failures="1" expectedFailures="0"/>
  <OverallResultsCases successes="0" failures="1" expectedFailures="0"/>
</Catch>
)";
  const ImportedResults imported = import::read_catch2_xml(failed, "failed.xml");
  REQUIRE(imported.results.size() == 1);
  CHECK(imported.results[0].primary == "failed");
  CHECK(imported.results[0].errors == 1);
  CHECK_FALSE(says_cut_short(imported));
}

TEST_CASE("a JSON document cut anywhere is refused where the parser met its end") {
  struct Document {
    string file;
    std::function<void(const string&)> read;
  };
  const vector<Document> documents = {
      {"google-benchmark/base.json",
       [](const string& t) { import::read_google_benchmark(t, "doc"); }},
      {"hyperfine/base.json", [](const string& t) { import::read_hyperfine(t, "doc"); }},
      {"pytest-benchmark/base.json",
       [](const string& t) { import::read_pytest_benchmark(t, "doc"); }},
      {"pyperf/base.json", [](const string& t) { import::read_pyperf(t, "doc"); }},
      {"asv/results/fixture/base.json",
       [](const string& t) { import::read_asv(t, "doc", "", ""); }},
      {"mitata/base.json", [](const string& t) { import::read_mitata(t, "doc"); }},
      {"vitest/base.json", [](const string& t) { import::read_vitest(t, "doc"); }},
      {"tinybench/base.json", [](const string& t) { import::read_tinybench(t, "doc"); }},
      {"jmh/base.json", [](const string& t) { import::read_jmh(t, "doc"); }},
  };
  for (const Document& d : documents) {
    const string text = read_file(fixture(d.file));
    // Line boundaries of a pretty-printed document, or member boundaries of a one-line one,
    // evenly spread.
    vector<std::size_t> cuts;
    const char boundary = std::count(text.begin(), text.end(), '\n') > 2 ? '\n' : ',';
    for (std::size_t at = text.find(boundary); at != string::npos; at = text.find(boundary, at + 1))
      if (text.find_first_not_of(" \t\r\n", at + 1) != string::npos) cuts.push_back(at + 1);
    // About half a megabyte parsed a document: a debug build parses a few a second.
    const std::size_t wanted =
        std::clamp<std::size_t>((1u << 20) / std::max<std::size_t>(text.size(), 1), 3, 20);
    const std::size_t step = std::max<std::size_t>(1, cuts.size() / wanted);
    for (std::size_t i = 0; i < cuts.size(); i += step) {
      INFO(d.file << " cut after " << cuts[i] << " bytes");
      const string prefix = text.substr(0, cuts[i]);
      CHECK_THAT(refusal([&] { d.read(prefix); }),
                 Contains("doc: not JSON") && Contains(k_cut_short));
      CHECK_THAT(refusal([&] { import::detect_format(prefix, "doc"); }),
                 Contains("doc: --import auto: a JSON document that ends before it closes: " +
                          k_cut_short));
    }
  }
}

TEST_CASE(
    "criterion's folder with a sample.json but not what criterion writes after it is cut "
    "short") {
  ScratchDir dir;
  const auto folder = dir.path() / "criterion";
  std::filesystem::copy(fixture("criterion/base"), folder,
                        std::filesystem::copy_options::recursive);
  // Killed after the sample, before the estimates and benchmark.json of sum/iter/1024.
  std::filesystem::remove(folder / "sum/iter/1024/new/estimates.json");
  std::filesystem::remove(folder / "sum/iter/1024/new/benchmark.json");
  CHECK(refusal([&] { import::read_criterion(folder); }) ==
        folder.string() +
            ": sum/iter/1024/new has sample.json without the estimates.json and benchmark.json "
            "criterion writes after it: the output looks cut short (nothing was imported; "
            "--allow-partial imports its 2 complete benchmarks and leaves out sum/iter/1024/new)");
  const ImportedResults kept = import::read_criterion(folder, Partial::keep_complete);
  CHECK(kept.results.size() == 2);
  CHECK(says_cut_short(kept));
  // Its sample.json named as the file to read: the same.
  CHECK_THAT(refusal([&] { import::read_criterion(folder / "sum/iter/1024/new/sample.json"); }),
             Contains("has sample.json without") && Contains(k_cut_short));
  // An estimates.json missing beside a benchmark.json.
  std::filesystem::copy(fixture("criterion/base/sum/iter/1024/new/benchmark.json"),
                        folder / "sum/iter/1024/new/benchmark.json");
  CHECK_THAT(refusal([&] { import::read_criterion(folder); }),
             Contains("sum/iter/1024/new has sample.json without the estimates.json criterion "
                      "writes after it: " +
                      k_cut_short));
}

TEST_CASE("a JMH entry with fewer scores than its forks and iterations is cut short") {
  nlohmann::json document = nlohmann::json::parse(read_file(fixture("jmh/base.json")));
  auto& fork = document[2]["primaryMetric"]["rawData"][1];
  fork.erase(fork.end() - 3, fork.end());
  const string text = document.dump(4);
  CHECK(refusal([&] { import::read_jmh(text, "jmh.json"); }) ==
        "jmh.json: entry [2] (bench.Tiny.sum, avgt) has 17 of the 20 scores of its 2 forks of 10 "
        "measurement iterations: the output looks cut short (nothing was imported; "
        "--allow-partial imports its 7 complete benchmarks and leaves out [2] bench.Tiny.sum "
        "(avgt))");
  const ImportedResults kept = import::read_jmh(text, "jmh.json", Partial::keep_complete);
  CHECK(kept.results.size() == 7);
  CHECK(says_cut_short(kept));
}
