// `run --import` of an output cut short exits 2 naming the file and what is missing, appending
// nothing; with --allow-partial it records the complete benchmarks and a run warning that compare
// and report show.
#include <fstream>

#include <catch2/catch.hpp>

#include "import_compare_support.hpp"

using namespace benchledger::run_test;
using nlohmann::json;

namespace {

std::filesystem::path fixture(const std::string& relative) {
  return source_dir() / "tests/cli/import/fixtures" / relative;
}

// The first `lines` lines of `path`, written to `to`.
void write_first_lines(const std::filesystem::path& path, std::size_t lines,
                       const std::filesystem::path& to) {
  const std::string text = read_file(path);
  std::size_t end = 0;
  for (std::size_t i = 0; i < lines; ++i) end = text.find('\n', end) + 1;
  std::ofstream(to) << text.substr(0, end);
}

}  // namespace

TEST_CASE("a cut-short go test output is refused with exit 2 naming what is missing") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto out = dir.path() / "out.txt";
  write_first_lines(fixture("go-test/base.txt"), 8, out);
  for (const char* format : {"go-test", "auto"}) {
    const auto result = run_cli(
        {"run", "--import", format, out.string(), "--ledger", ledger.string(), "--allow-partial"});
    INFO(result.err);
    CHECK(result.status == 2);
    CHECK_THAT(result.err,
               Catch::Contains(out.string() +
                               ": ends after BenchmarkSum/size=8-2's 4th sample, without go test's "
                               "closing \"ok\" or \"FAIL\" line: the output looks cut short"));
  }
  // Two whole benchmarks and a third cut: refused unless --allow-partial.
  write_first_lines(fixture("go-test/base.txt"), 250, out);
  const auto refused =
      run_cli({"run", "--import", "go-test", out.string(), "--ledger", ledger.string()});
  CHECK(refused.status == 2);
  CHECK_THAT(refused.err, Catch::Contains("--allow-partial imports its 2 complete benchmarks and "
                                          "leaves out BenchmarkPlain-2 (46 samples)"));
  CHECK_FALSE(std::filesystem::exists(ledger));  // nothing appended
}

TEST_CASE(
    "--allow-partial records a cut-short output's complete benchmarks with a run warning "
    "that compare and report show") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto out = dir.path() / "out.txt";
  write_first_lines(fixture("go-test/base.txt"), 250, out);
  const auto whole = run_cli({"run", "--import", "go-test", fixture("go-test/base.txt").string(),
                              "--ledger", ledger.string(), "-q"});
  REQUIRE(whole.status == 0);
  const auto partial = run_cli(
      {"run", "--import", "go-test", out.string(), "--ledger", ledger.string(), "--allow-partial"});
  INFO(partial.err);
  REQUIRE(partial.status == 0);
  const std::string warning = out.string() +
                              ": ends after BenchmarkPlain-2's 46th sample, without go test's "
                              "closing \"ok\" or \"FAIL\" line: the output looks cut short; "
                              "--allow-partial imported its 2 complete benchmarks and left out "
                              "BenchmarkPlain-2 (46 samples)";
  CHECK_THAT(partial.err, Catch::Contains(warning));
  const auto records = read_ledger(ledger);
  std::vector<json> runs;
  for (const json& r : records)
    if (r["type"] == "run") runs.push_back(r);
  REQUIRE(runs.size() == 2);
  CHECK(runs[1]["warnings"].back() == warning);
  std::size_t kept = 0;
  for (const json& r : results_of(records)) {
    if (r["run"] != runs[1]["id"]) continue;
    ++kept;
    CHECK(r["bench"] == "BenchmarkSum");
    CHECK(r["metrics"]["time"]["samples"].size() == 100);  // each kept with all its samples
  }
  CHECK(kept == 2);

  const auto compared = run_cli({"compare", runs[0]["id"].get<std::string>(),
                                 runs[1]["id"].get<std::string>(), "--ledger", ledger.string()});
  INFO(compared.out + compared.err);
  CHECK(compared.status != 2);
  CHECK_THAT(compared.out + compared.err, Catch::Contains("the output looks cut short"));
  const auto reported =
      run_cli({"report", runs[1]["id"].get<std::string>(), "--ledger", ledger.string()});
  CHECK(reported.status == 0);
  CHECK_THAT(reported.out, Catch::Contains("the output looks cut short"));
}

TEST_CASE("--allow-partial keeps pgbench's summary and leaves out the statements it lacks") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto out = dir.path() / "pgbench.txt";
  write_first_lines(source_dir() / "tests/unit/import/pgbench/tpcb_output.txt", 25, out);
  const auto refused =
      run_cli({"run", "--import", "pgbench", out.string(), "--ledger", ledger.string()});
  CHECK(refused.status == 2);
  CHECK_THAT(refused.err,
             Catch::Contains(out.string() + ": ends after statement 5 (BEGIN;), without the rest "
                                            "of the 11 statements of pgbench's tpcb-like script"));
  CHECK_FALSE(std::filesystem::exists(ledger));
  const auto kept = run_cli({"run", "--import", "pgbench", out.string(), "--ledger",
                             ledger.string(), "--allow-partial", "-q"});
  INFO(kept.err);
  REQUIRE(kept.status == 0);
  const auto records = read_ledger(ledger);
  CHECK(results_of(records).size() == 1 + 5);
  CHECK_THAT(run_record(records)["warnings"].back().get<std::string>(),
             Catch::Contains("left out statements 6 to 11"));
  // Without an import the flag has nothing to act on.
  const auto alone = run_cli({"run", "--allow-partial", "--ledger", ledger.string(), "--", "true"});
  CHECK(alone.status == 2);
  CHECK_THAT(alone.err, Catch::Contains("--allow-partial is for --import FORMAT FILE"));
}
