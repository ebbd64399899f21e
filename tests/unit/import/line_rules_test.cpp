// Every reader of line-delimited input follows the one rule of model/lines.hpp: a real output
// with CRLF line ends, blank lines and no '\n' after its last line gives what the output as the
// tool wrote it gives, and a bad line is named by the line an editor shows.
//
// The outputs are the committed ones of tests/cli/import/fixtures.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <benchledger/record.hpp>

#include "import/import.hpp"
#include "import/pgbench.hpp"
#include "unit/ledger/ledger_support.hpp"

using namespace benchledger;
using benchledger::import::ImportedResults;
using benchledger::testing::read_file;
using Catch::Matchers::Contains;
using std::string;
using std::vector;

namespace {

std::filesystem::path fixture(const string& relative) {
  return std::filesystem::path(BENCHLEDGER_IMPORT_FIXTURES) / relative;
}

std::filesystem::path pgbench_fixture(const string& name) {
  return std::filesystem::path(BENCHLEDGER_PGBENCH_FIXTURES) / name;
}

vector<string> lines_of(const string& text) {
  REQUIRE(!text.empty());
  REQUIRE(text.back() == '\n');
  REQUIRE(text.find('\r') == string::npos);
  return benchledger::testing::split_lines(text);
}

// The lines as another platform or editor writes them: every other line ending in CRLF, an empty
// line and a line of blanks after the first line, and no '\n' after the last line.
string reshaped(const vector<string>& lines) {
  string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    out += lines[i] + (i % 2 == 0 ? "\r\n" : "\n");
    if (i == 0) out += "\n \t\r\n";
  }
  out.pop_back();
  if (out.back() == '\r') out.pop_back();
  return out;
}

string joined(const vector<string>& lines) {
  string out;
  for (const string& line : lines) out += line + '\n';
  return out;
}

// What an import gave, without the ids and times each import makes afresh.
vector<string> comparable(const ImportedResults& imported) {
  vector<string> out;
  for (const ResultRecord& r : imported.results) {
    string text = case_key(r.bench, r.params) + " ops " + std::to_string(r.ops);
    for (const auto& [name, metric] : r.metrics) text += " " + name + " " + to_json(metric).dump();
    out.push_back(text);
  }
  for (const string& warning : imported.warnings) out.push_back("warning: " + warning);
  return out;
}

using Reader = std::function<ImportedResults(const string& text)>;

// `lines` read as written and reshaped give the same results; with line `bad` (0-based, not the
// first) replaced by `broken`, the message names line bad + 1 as written and bad + 3 reshaped
// (the two blank lines after the first line counted).
void check_reader(const vector<string>& lines, const Reader& read, std::size_t bad,
                  const string& broken, const string& origin) {
  REQUIRE(bad > 0);
  REQUIRE(bad + 1 < lines.size());
  const ImportedResults as_written = read(joined(lines));
  REQUIRE_FALSE(as_written.results.empty());
  CHECK(comparable(read(reshaped(lines))) == comparable(as_written));

  vector<string> damaged = lines;
  damaged[bad] = broken;
  CHECK_THROWS_WITH(read(joined(damaged)), Contains(origin + ":" + std::to_string(bad + 1) + ":"));
  CHECK_THROWS_WITH(read(reshaped(damaged)),
                    Contains(origin + ":" + std::to_string(bad + 3) + ":"));
}

}  // namespace

TEST_CASE("cargo-criterion's messages: CRLF, blank lines and no final newline read as written") {
  const auto lines = lines_of(read_file(fixture("criterion/messages.ndjson")));
  check_reader(
      lines, [](const string& t) { return import::read_cargo_criterion(t, "m.ndjson"); }, 2,
      "{\"reason\": ", "m.ndjson");
}

TEST_CASE("go test's text output: CRLF, blank lines and no final newline read as written") {
  const auto lines = lines_of(read_file(fixture("go-test/base.txt")));
  // The last line is go test's closing `ok` line: a file that ends there without its newline is
  // whole.
  REQUIRE(lines.back().starts_with("ok "));
  check_reader(
      lines, [](const string& t) { return import::read_go_test(t, "go.txt"); }, 5,
      "BenchmarkSum/size=8-2  5000  fast ns/op", "go.txt");
  CHECK(import::detect_format(reshaped(lines), "go.txt") == "go-test");
}

TEST_CASE("go test -json's events: CRLF, blank lines and no final newline read as written") {
  const auto lines = lines_of(read_file(fixture("go-test/base.json")));
  check_reader(
      lines, [](const string& t) { return import::read_go_test(t, "go.json"); }, 3,
      "{\"Action\": ", "go.json");
  CHECK(import::detect_format(reshaped(lines), "go.json") == "go-test");
}

TEST_CASE("a mapped NDJSON log: CRLF, blank lines and no final newline read as written") {
  const vector<string> lines = {
      R"({"name": "sort", "ms": 1.5, "size": 8})",
      R"({"name": "sort", "ms": 1.7, "size": 8})",
      R"({"name": "sum", "ms": 0.25, "size": 8})",
      R"({"name": "sort", "ms": 1.6, "size": 8})",
  };
  check_reader(
      lines,
      [](const string& t) {
        return import::read_mapped_ndjson(t, "log.ndjson",
                                          "bench=.name,value=.ms,unit=ms,params=.size");
      },
      2, R"({"name": "sum"})", "log.ndjson");
}

TEST_CASE("pgbench's output and -l log: CRLF, blank lines and a log's last line read as written") {
  const auto output = lines_of(read_file(pgbench_fixture("tpcb_output.txt")));
  const auto log = lines_of(read_file(pgbench_fixture("pgbench_log.8595")));
  const auto read = [](const string& out, const string& log_text) {
    return import::read_pgbench({{out, "out.txt"}, {log_text, "log.8595"}});
  };
  const ImportedResults as_written = read(joined(output), joined(log));
  REQUIRE(as_written.results.size() > 1);  // the run and its statements, whose lines start blank
  // The output keeps its last '\n': a last line without one is a line pgbench was still writing.
  CHECK(comparable(read(reshaped(output) + "\r\n", reshaped(log))) == comparable(as_written));

  vector<string> damaged = output;
  damaged[4] = "not a line of pgbench";
  CHECK_THROWS_WITH(read(joined(damaged), joined(log)), Contains("out.txt: line 5:"));
  CHECK_THROWS_WITH(read(reshaped(damaged) + "\r\n", reshaped(log)), Contains("out.txt: line 7:"));
  damaged = log;
  damaged[3] = "0 x";
  CHECK_THROWS_WITH(read(joined(output), joined(damaged)), Contains("log.8595: line 4:"));
  CHECK_THROWS_WITH(read(joined(output), reshaped(damaged)), Contains("log.8595: line 6:"));
}

TEST_CASE("pgbench's output ending in part of a line is cut short there, with CRLF as with LF") {
  const auto output = lines_of(read_file(pgbench_fixture("tpcb_output.txt")));
  const auto read = [](const string& out) {
    return import::read_pgbench({{out, "out.txt"}}, import::Partial::keep_complete);
  };
  string lf = joined(output);
  lf.pop_back();
  const ImportedResults cut = read(lf);
  // The last statement, END, is the part of a line left out.
  CHECK(cut.results.size() == read(joined(output)).results.size() - 1);
  CHECK(comparable(read(reshaped(output))) == comparable(cut));
}
