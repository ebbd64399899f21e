// One value prints the same, with the same unit and three significant digits, in every human
// format (run, ledger show, compare's table, Markdown and JUnit, report), never as `e+0`.
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "run_support.hpp"

using namespace benchledger::run_test;

namespace {

// google-benchmark output with three repetitions of two benchmarks: medians 8,784,000 ns and
// 18,469 ns, 54,412 items/s.
void write_gbench(const std::filesystem::path& path) {
  std::string entries;
  const double slow[] = {8'781'000, 8'784'000, 8'790'000};
  const double fast[] = {18'460, 18'469, 18'481};
  const double items[] = {54'390, 54'412, 54'430};
  for (int i = 0; i < 3; ++i) {
    entries += fmt::format(
        R"({}{{"name": "BM_Slow", "run_name": "BM_Slow", "run_type": "iteration", "iterations": 80, "real_time": {}, "cpu_time": {}, "time_unit": "ns", "items_per_second": {}}})",
        entries.empty() ? "" : ",", slow[i], slow[i], items[i]);
    entries += fmt::format(
        R"(,{{"name": "BM_Fast", "run_name": "BM_Fast", "run_type": "iteration", "iterations": 38000, "real_time": {}, "cpu_time": {}, "time_unit": "ns"}})",
        fast[i], fast[i]);
  }
  std::ofstream(path) << R"({"context": {}, "benchmarks": [)" << entries << "]}\n";
}

// Lower-case hex (commits, fingerprints) may hold "3e4"; only a positive exponent is a sign.
const std::regex k_exponent(R"([0-9]e\+[0-9])");

}  // namespace

TEST_CASE("every human format prints a value the same way, with its unit and no exponent") {
  ScratchDir dir;
  const auto gbench = dir.path() / "gbench.json";
  write_gbench(gbench);
  const std::string ledger = (dir.path() / "ledger.ndjson").string();
  std::vector<std::pair<std::string, Invocation>> outputs;
  outputs.emplace_back("run", run_cli({"run", "--import", "google-benchmark", gbench.string(),
                                       "--label", "baseline", "--ledger", ledger, "-q"}));
  REQUIRE(outputs.back().second.status == 0);
  REQUIRE(run_cli({"run", "--import", "google-benchmark", gbench.string(), "--label", "current",
                   "--ledger", ledger, "-q"})
              .status == 0);
  outputs.emplace_back("ledger show", run_cli({"ledger", "show", "baseline", "--ledger", ledger}));
  for (const char* format : {"table", "md", "junit"}) {
    outputs.emplace_back(std::string("compare --format ") + format,
                         run_cli({"compare", "baseline", "current", "--format", format, "--metric",
                                  "time", "--ledger", ledger}));
  }
  outputs.emplace_back("report", run_cli({"report", "current", "--against", "baseline", "--format",
                                          "md", "--ledger", ledger}));
  for (const auto& [what, output] : outputs) {
    INFO(what << ":\n" << output.out << output.err);
    CHECK(output.status == 0);
    CHECK_THAT(output.out, Catch::Contains("8.78 ms") && Catch::Contains("18.5 µs"));
    CHECK_FALSE(std::regex_search(output.out, k_exponent));
  }
  // Rates get an SI prefix: run's table shows the items.
  CHECK_THAT(outputs.front().second.out, Catch::Contains("54.4k items/s"));
  // JSON keeps the raw number and its unit.
  const auto json = nlohmann::json::parse(
      run_cli({"compare", "baseline", "current", "--format", "json", "--ledger", ledger}).out);
  for (const auto& c : json["cases"]) {
    if (c["bench"] == "BM_Slow") {
      CHECK(c["base"]["center"] == 8784000.0);
      CHECK(c["base"]["unit"] == "ns");
    }
  }
}
