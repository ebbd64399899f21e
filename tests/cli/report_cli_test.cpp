// `benchledger report` selects runs from a real ledger as compare does and writes the report
// the library renders for them, to stdout or atomically to a file, with exit 2 on bad input, its
// trend charts plotting the series that `benchledger history` prints.
#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

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

// The run ids that each trend chart of `bench` in an HTML report plots, chart by chart: the runs
// its points' tooltips name, each once (the reported run's marker repeats its point).
std::vector<std::vector<std::string>> plotted_runs(const std::string& html,
                                                   const std::string& bench) {
  const std::size_t trends = html.find("<h2 id=\"trends\">");
  REQUIRE(trends != std::string::npos);
  const std::string section = html.substr(trends, html.find("<h2 ", trends + 1) - trends);
  std::vector<std::vector<std::string>> out;
  const std::string open = "<figure><figcaption>", close = "</figure>";
  for (std::size_t at = section.find(open); at != std::string::npos;
       at = section.find(open, at + 1)) {
    const std::string figure = section.substr(at, section.find(close, at) - at);
    if (figure.compare(open.size(), bench.size() + 1, bench + " ") != 0) continue;
    std::vector<std::string>& runs = out.emplace_back();
    for (std::size_t t = figure.find("<title>"); t != std::string::npos;
         t = figure.find("<title>", t + 1)) {
      const std::size_t from = t + std::string("<title>").size();
      const std::string tip = figure.substr(from, figure.find("</title>", from) - from);
      if (tip.rfind("change point", 0) == 0) continue;
      // `2026-11-22 04:27:59 UTC 01JD… (label): 1.23 ms`: the run id is the word of 26 letters and
      // digits.
      std::istringstream words(tip);
      std::string word;
      while (words >> word) {
        if (word.ends_with(':')) word.pop_back();
        const bool id = word.size() == 26 && std::all_of(word.begin(), word.end(), [](char c) {
                          return std::isupper(static_cast<unsigned char>(c)) != 0 ||
                                 std::isdigit(static_cast<unsigned char>(c)) != 0;
                        });
        if (id && std::find(runs.begin(), runs.end(), word) == runs.end()) runs.push_back(word);
      }
    }
  }
  return out;
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

TEST_CASE("the Markdown report lists each case's change points, found as detect finds them") {
  ScratchDir dir;
  const std::string ledger = (dir.path() / "ledger.ndjson").string();
  // 20 nightly runs, every case 30% slower from run 12 (0-based) on.
  const std::vector<RunData> runs = fixtures::step_change_history(20, 12, 1.3);
  write_ledger(ledger, runs);
  const Outcome outcome = run_cli({"report", "--ledger", ledger}, dir.path());
  INFO(outcome.err);
  REQUIRE(outcome.exit_code == 0);
  const std::string& md = outcome.out;
  INFO(md);
  const std::size_t section = md.find("\n## Change points\n");
  REQUIRE(section != std::string::npos);
  const std::string step_run = runs[12].run.header.id;
  const std::string step_commit = runs[12].run.git.commit->substr(0, 12);
  // One table per case, each with one row: the step, at the run and commit where it happened.
  std::size_t tables = 0;
  std::istringstream lines(md.substr(section));
  std::string line;
  std::vector<std::string> cells;
  while (std::getline(lines, line)) {
    if (line.rfind("| First run after |", 0) == 0) ++tables;
    if (line.rfind("| `01JD", 0) != 0) continue;
    CHECK(line.find("| `" + step_run + "` |") == 0);
    CHECK(line.find("| `" + step_commit + "` |") != std::string::npos);
    CHECK(std::regex_search(line, std::regex(R"(\| \+(29|30|31)\.\d% \|)")));
    CHECK(line.find("❌ regression |") != std::string::npos);
    cells.push_back(line);
  }
  const std::size_t cases = runs.back().results.size();
  CHECK(tables == cases);
  CHECK(cells.size() == cases);

  // The same change points as `benchledger detect` finds over the same runs.
  const Outcome detect = run_cli({"detect", "--ledger", ledger, "--format", "json"}, dir.path());
  REQUIRE(detect.exit_code == 0);
  const nlohmann::json found = nlohmann::json::parse(detect.out);
  REQUIRE(found["cases"].size() >= cases);
  for (const nlohmann::json& c : found["cases"]) {
    if (c["metric"] != "wall") continue;  // pipeline's primary metric
    REQUIRE(c["change_points"].size() == 1);
    CHECK(c["change_points"][0]["run"] == step_run);
  }
}

TEST_CASE("a case whose unit changed gets a trend chart per unit, the series history prints") {
  // executors/mixed records its time in µs from the fourth run on.
  const std::vector<RunData> runs = fixtures::unit_change_history();
  ScratchDir dir;
  // SQLite's report reads its table of points, as its history does; NDJSON reads the records.
  for (const std::string& ledger :
       {(dir.path() / "ledger.ndjson").string(), "sqlite:" + (dir.path() / "ledger.db").string()}) {
    INFO(ledger);
    write_ledger(ledger, runs);
    const Outcome html = run_cli({"report", "--ledger", ledger, "--format", "html"}, dir.path());
    INFO(html.err);
    REQUIRE(html.exit_code == 0);
    const Outcome history =
        run_cli({"history", "executors/mixed", "--ledger", ledger, "--format", "json"}, dir.path());
    INFO(history.err << history.out);
    REQUIRE(history.exit_code == 0);
    const nlohmann::json history_json = nlohmann::json::parse(history.out);
    std::vector<std::vector<std::string>> printed;
    for (const nlohmann::json& series : history_json["series"]) {
      std::vector<std::string>& ids = printed.emplace_back();
      for (const nlohmann::json& p : series["points"]) ids.push_back(p["run"].get<std::string>());
    }
    REQUIRE(printed.size() == 2);  // one series in ns, one in µs
    CHECK(plotted_runs(html.out, "executors/mixed") == printed);
    CHECK(html.out.find("executors/mixed concurrency=50, executor=bounded_pool (time in us)") !=
          std::string::npos);
    CHECK(html.out.find("A case whose unit or primary metric changed has a chart for each") !=
          std::string::npos);
  }
}
