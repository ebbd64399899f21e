// `benchledger report` selects runs from a real ledger as compare does and writes the report
// the library renders for them, to stdout or atomically to a file, with exit 2 on bad input.
#include <catch2/catch.hpp>

#include "cli/report_support.hpp"
#include "compare/comparison.hpp"
#include "report/report.hpp"

using namespace benchledger;
using namespace benchledger::report;
using namespace benchledger::report::testing;

namespace {

ReportInput expected_input(std::optional<RunData> base, std::vector<RunData> runs) {
  ReportInput input;
  input.runs = std::move(runs);
  input.base = std::move(base);
  if (input.base) {
    const compare::Side base_side{{input.base->run}, input.base->results};
    for (const RunData& data : input.runs) {
      const compare::Side current{{data.run}, data.results};
      input.comparisons.push_back(
          {data.run.header.id,
           compare::compare_sides(base_side, current, {}, compare::CompareOptions{})});
    }
  }
  return input;
}

}  // namespace

TEST_CASE("report with no run reports the newest run of the ledger") {
  ScratchDir dir;
  const std::string ledger = (dir.path() / "ledger.ndjson").string();
  write_ledger(ledger, standard_history());
  const Outcome outcome = run_cli({"report", "--ledger", ledger}, dir.path());
  INFO(outcome.err);
  REQUIRE(outcome.exit_code == 0);
  CHECK(outcome.err.empty());
  CHECK(outcome.out == render_markdown(expected_input(std::nullopt, {fixtures::current_run()})));
}

TEST_CASE("report RUN --against BASE embeds compare's verdicts for those runs") {
  ScratchDir dir;
  const std::string ledger = (dir.path() / "ledger.ndjson").string();
  write_ledger(ledger, standard_history());
  const Outcome outcome =
      run_cli({"report", "current", "--against", "baseline", "--ledger", ledger}, dir.path());
  INFO(outcome.err);
  REQUIRE(outcome.exit_code == 0);  // a report is not a gate, even when the gate fails
  const std::string expected =
      render_markdown(expected_input(fixtures::baseline_run(), {fixtures::current_run()}));
  CHECK(outcome.out == expected);
  CHECK(outcome.out.find("**Gate: fails.**") != std::string::npos);
}

TEST_CASE("report takes several runs, labels with ~N and NDJSON files as selectors") {
  ScratchDir dir;
  const std::string ledger = (dir.path() / "ledger.ndjson").string();
  write_ledger(ledger, standard_history());
  const std::string file = (dir.path() / "feature.ndjson").string();
  write_ledger(file, {fixtures::awkward_run()});
  const Outcome outcome = run_cli({"report", "baseline", file, "--ledger", ledger}, dir.path());
  INFO(outcome.err);
  REQUIRE(outcome.exit_code == 0);
  CHECK(outcome.out == render_markdown(expected_input(
                           std::nullopt, {fixtures::baseline_run(), fixtures::awkward_run()})));
  // latest~1 is the run before the newest.
  const std::vector<RunData> history = standard_history();
  const Outcome older = run_cli({"report", "latest~1", "--ledger", ledger}, dir.path());
  REQUIRE(older.exit_code == 0);
  CHECK(older.out == render_markdown(expected_input(std::nullopt, {history[history.size() - 2]})));
}

TEST_CASE("report -o writes the file, and a .html name chooses HTML") {
  ScratchDir dir;
  const std::string ledger = (dir.path() / "ledger.ndjson").string();
  write_ledger(ledger, standard_history());
  const Outcome md = run_cli({"report", "--ledger", ledger, "-o", "report.md"}, dir.path());
  REQUIRE(md.exit_code == 0);
  CHECK(md.out.empty());
  CHECK(read_text(dir.path() / "report.md").rfind("# Benchmark report: benchledger\n", 0) == 0);
  const Outcome html = run_cli({"report", "--ledger", ledger, "-o", "report.html"}, dir.path());
  REQUIRE(html.exit_code == 0);
  const std::string page = read_text(dir.path() / "report.html");
  CHECK(page.rfind("<!DOCTYPE html>\n", 0) == 0);
  // The trend charts come from the ledger's history: the current run and the twelve before.
  CHECK(page.find("<section class=\"charts\">\n<h2 id=\"trends\">Trends</h2>") !=
        std::string::npos);
  // No temporary file is left behind.
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    static_cast<void>(entry);
    ++files;
  }
  CHECK(files == 3);
}

TEST_CASE("report refuses unknown runs, formats and histories with exit 2") {
  ScratchDir dir;
  const std::string ledger = (dir.path() / "ledger.ndjson").string();
  write_ledger(ledger, standard_history());
  const Outcome unknown = run_cli({"report", "no-such-label", "--ledger", ledger}, dir.path());
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("no-such-label") != std::string::npos);
  CHECK(unknown.out.empty());
  const Outcome base = run_cli({"report", "--against", "nope", "--ledger", ledger}, dir.path());
  CHECK(base.exit_code == 2);
  CHECK(base.err.find("nope") != std::string::npos);
  CHECK(run_cli({"report", "--format", "pdf", "--ledger", ledger}, dir.path()).exit_code == 2);
  CHECK(run_cli({"report", "--history", "0", "--ledger", ledger}, dir.path()).exit_code == 2);
  const Outcome unwritable =
      run_cli({"report", "--ledger", ledger, "-o", "missing/dir/r.md"}, dir.path());
  CHECK(unwritable.exit_code == 2);
  CHECK(unwritable.err.find("cannot write missing/dir/r.md") != std::string::npos);
}

TEST_CASE("bench-report acts as report") {
  ScratchDir dir;
  const std::string ledger = (dir.path() / "ledger.ndjson").string();
  write_ledger(ledger, standard_history());
  const std::filesystem::path link = std::filesystem::path(cli()).parent_path() / "bench-report";
  REQUIRE(std::filesystem::exists(link));
  const Outcome outcome =
      run_process({link.string(), "--ledger", ledger}, dir.path(), {"BENCHLEDGER_LEDGER="});
  REQUIRE(outcome.exit_code == 0);
  CHECK(outcome.out == render_markdown(expected_input(std::nullopt, {fixtures::current_run()})));
}
