// The Markdown report says what the records hold, the same bytes every time, as valid GFM.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include <benchledger/error.hpp>
#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "golden.hpp"
#include "report/content.hpp"
#include "report/format.hpp"
#include "report/report.hpp"
#include "support/process.hpp"
#include "support/scratch_dir.hpp"

using namespace benchledger;
using namespace benchledger::report;
using benchledger::report::golden::check_golden;

namespace {

ReportInput single_run_input() {
  ReportInput input;
  input.runs.push_back(fixtures::current_run());
  return input;
}

ReportInput two_runs_input() {
  ReportInput input;
  input.runs.push_back(fixtures::baseline_run());
  input.runs.push_back(fixtures::current_run());
  return input;
}

ReportInput against_input() {
  ReportInput input;
  input.base = fixtures::baseline_run();
  input.runs.push_back(fixtures::current_run());
  compare::Side base{{input.base->run}, input.base->results};
  compare::Side current{{input.runs[0].run}, input.runs[0].results};
  input.comparisons.push_back(
      {input.runs[0].run.header.id,
       compare::compare_sides(base, current, {}, compare::CompareOptions{})});
  return input;
}

ReportInput awkward_input() {
  ReportInput input;
  input.runs.push_back(fixtures::awkward_run());
  input.warnings.push_back("ledger.ndjson: ignored 17 bytes after the last complete line");
  return input;
}

// Renders Markdown with GitHub's cmark-gfm (Debian package cmark-gfm, which tools/setup
// installs). Without it the test fails: a skipped check would let invalid GFM through unseen.
std::string gfm_to_html(const std::string& markdown) {
  if (!std::filesystem::exists("/usr/bin/cmark-gfm")) {
    FAIL("/usr/bin/cmark-gfm is not installed: run tools/setup (Debian package cmark-gfm)");
  }
  const benchledger::test_support::ScratchDir dir;
  const auto in = dir / "report.md";
  std::ofstream(in, std::ios::binary) << markdown;
  const auto html =
      benchledger::test_support::run_process({"/usr/bin/cmark-gfm", "-e", "table", in.string()});
  REQUIRE(html.exit_code == 0);
  return html.out;
}

std::string plain_text(const Text& text) {
  std::string out;
  for (const Span& span : text) out += span.text;
  return out;
}

// The text content of HTML from cmark: tags dropped, its five entities decoded.
std::string html_text(std::string html) {
  html = std::regex_replace(html, std::regex("<[^>]*>"), "");
  const std::pair<const char*, const char*> entities[] = {
      {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}};
  for (const auto& [entity, character] : entities) {
    html = std::regex_replace(html, std::regex(entity), character);
  }
  return html;
}

// Every table and heading of the document comes out of a GFM parser as that table, cell for
// cell, and that heading: no escaping slip splits a cell or starts markup.
void check_valid_gfm(const ReportInput& input, const std::string& markdown) {
  const std::string html = gfm_to_html(markdown);
  REQUIRE_FALSE(html.empty());
  const Document doc = build_document(input);
  std::vector<std::vector<std::vector<std::string>>> expected_tables;
  std::vector<std::string> expected_headings{doc.title};
  for (const Block& block : doc.blocks) {
    if (const auto* table = std::get_if<Table>(&block)) {
      std::vector<std::vector<std::string>> rows{table->header};
      for (const auto& row : table->rows) {
        std::vector<std::string> cells;
        for (const Cell& cell : row)
          cells.push_back(markdown_icon(cell.icon) + plain_text(cell.text));
        rows.push_back(cells);
      }
      expected_tables.push_back(rows);
    } else if (const auto* heading = std::get_if<Heading>(&block)) {
      expected_headings.push_back(heading->text);
    }
  }
  std::vector<std::vector<std::vector<std::string>>> actual_tables;
  const std::regex table_re("<table>([\\s\\S]*?)</table>");
  const std::regex row_re("<tr>([\\s\\S]*?)</tr>");
  const std::regex cell_re("<t[hd][^>]*>([\\s\\S]*?)</t[hd]>");
  for (auto t = std::sregex_iterator(html.begin(), html.end(), table_re);
       t != std::sregex_iterator(); ++t) {
    const std::string table = (*t)[1];
    std::vector<std::vector<std::string>> rows;
    for (auto r = std::sregex_iterator(table.begin(), table.end(), row_re);
         r != std::sregex_iterator(); ++r) {
      const std::string row = (*r)[1];
      std::vector<std::string> cells;
      for (auto c = std::sregex_iterator(row.begin(), row.end(), cell_re);
           c != std::sregex_iterator(); ++c) {
        cells.push_back(html_text((*c)[1]));
      }
      rows.push_back(cells);
    }
    actual_tables.push_back(rows);
  }
  REQUIRE(actual_tables.size() == expected_tables.size());
  for (std::size_t i = 0; i < expected_tables.size(); ++i) {
    INFO("table " << i);
    CHECK(actual_tables[i] == expected_tables[i]);
  }
  std::vector<std::string> actual_headings;
  const std::regex heading_re("<h[1-6]>([\\s\\S]*?)</h[1-6]>");
  for (auto h = std::sregex_iterator(html.begin(), html.end(), heading_re);
       h != std::sregex_iterator(); ++h) {
    actual_headings.push_back(html_text((*h)[1]));
  }
  CHECK(actual_headings == expected_headings);
  // Emphasis only where the report asks for it: warnings' and names' punctuation stays text.
  CHECK(html.find("<em>") == std::string::npos);
}

}  // namespace

TEST_CASE("the Markdown report of one run matches its golden file and is valid GFM") {
  const ReportInput input = single_run_input();
  const std::string markdown = render_markdown(input);
  check_golden("single_run.md", markdown);
  check_valid_gfm(input, markdown);
}

TEST_CASE("the Markdown report of two runs flags the environment fields that differ") {
  const ReportInput input = two_runs_input();
  const std::string markdown = render_markdown(input);
  check_golden("two_runs.md", markdown);
  check_valid_gfm(input, markdown);
  CHECK(markdown.find("| **CPU** ⚠ differs |") != std::string::npos);
  CHECK(markdown.find("| Load average | 1.91, 1.20, 0.88 | 0.52, 0.61, 0.70 |") !=
        std::string::npos);
  CHECK(markdown.find("environment fingerprints differ between baseline and current") !=
        std::string::npos);
}

TEST_CASE("the report names which benchledger measured each run and flags a difference") {
  ReportInput input = two_runs_input();
  input.runs[0].run.env.runtimes.benchledger = "0.1.0 (git 0b0e41e5d2a1)";
  input.runs[1].run.env.runtimes.benchledger = "0.1.0 (git 0b0e41e5d2a1-dirty)";
  const std::string markdown = render_markdown(input);
  check_valid_gfm(input, markdown);
  CHECK(markdown.find("| **benchledger** ⚠ differs | 0.1.0 (git 0b0e41e5d2a1) | 0.1.0 (git "
                      "0b0e41e5d2a1-dirty) |") != std::string::npos);
  input.runs[1].run.env.runtimes.benchledger = input.runs[0].run.env.runtimes.benchledger;
  CHECK(render_markdown(input).find("| benchledger | 0.1.0 (git 0b0e41e5d2a1) | 0.1.0 (git "
                                    "0b0e41e5d2a1) |") != std::string::npos);
}

TEST_CASE("with a base, the report has the comparison table, its summary and verdict marks") {
  const ReportInput input = against_input();
  const std::string markdown = render_markdown(input);
  check_golden("against_baseline.md", markdown);
  check_valid_gfm(input, markdown);
  const compare::ComparisonReport& report = input.comparisons[0].report;
  // The summary paragraph states the gate and the counts that compare computed.
  CHECK(markdown.find(report.gate_pass ? "**Gate: passes.**" : "**Gate: fails.**") !=
        std::string::npos);
  CHECK(markdown.find("## Comparison: current against baseline") != std::string::npos);
  // The case the baseline had and the current run lacks is shown as missing.
  CHECK(report.count(compare::Verdict::missing) == 1);
  // Each verdict compare gave appears once per case with its mark.
  const auto occurrences = [&](const std::string& needle) {
    std::size_t n = 0;
    for (std::size_t at = markdown.find(needle); at != std::string::npos;
         at = markdown.find(needle, at + 1))
      ++n;
    return n;
  };
  CHECK(occurrences("| ❌ **regression** |") == report.count(compare::Verdict::regression));
  CHECK(occurrences("| ✅ improvement |") == report.count(compare::Verdict::improvement));
  CHECK(occurrences("| ➖ unchanged |") == report.count(compare::Verdict::unchanged));
  CHECK(occurrences("| ❔ inconclusive |") == report.count(compare::Verdict::inconclusive));
  CHECK(occurrences("| 🚫 **missing** |") == 1);  // in bold: a missing case fails the gate
  // The fixture's sequential executor got slower by about 18%, the pool faster by about 11%.
  CHECK(report.count(compare::Verdict::regression) >= 1);
  // The verdict first, then the case, its medians and the change with its interval.
  CHECK(markdown.find("| ❌ **regression** | `executors/uniform` \\[concurrency=50, "
                      "executor=sequential\\] | `time` | 860 µs | 1.01 ms | "
                      "+17.6% (+14.5% to +20.9%) |") != std::string::npos);
  CHECK(markdown.find("| ✅ improvement | `executors/uniform` \\[concurrency=50, "
                      "executor=bounded\\_pool\\] | `time` | 741 µs | 661 µs | "
                      "-10.7% (-13.1% to -8.3%) |") != std::string::npos);
  CHECK(markdown.find("**Gate: fails.**") != std::string::npos);
}

TEST_CASE("a link is written as GFM's inline link and as an HTML anchor") {
  const std::vector<Block> blocks{Paragraph{
      {plain("Methods: "), link_to("Hodges–Lehmann", "https://example.org/docs/a b.md")}, "note"}};
  const std::string markdown = render_markdown_blocks(blocks);
  CHECK(markdown == "\nMethods: [Hodges–Lehmann](<https://example.org/docs/a b.md>)\n");
  const benchledger::test_support::ScratchDir dir;
  std::ofstream(dir / "link.md", std::ios::binary) << markdown;
  const auto html =
      benchledger::test_support::run_process({"/usr/bin/cmark-gfm", (dir / "link.md").string()});
  CHECK_THAT(html.out,
             Catch::Contains("<a href=\"https://example.org/docs/a%20b.md\">Hodges–Lehmann</a>"));
}

TEST_CASE("punctuation in names, params and warnings cannot break the Markdown") {
  const ReportInput input = awkward_input();
  const std::string markdown = render_markdown(input);
  check_golden("awkward.md", markdown);
  check_valid_gfm(input, markdown);
}

TEST_CASE("the same input gives the same bytes") {
  CHECK(render_markdown(two_runs_input()) == render_markdown(two_runs_input()));
  CHECK(render_html(two_runs_input()) == render_html(two_runs_input()));
}

TEST_CASE("the date of a report is the time of its newest run, not the clock") {
  const std::string markdown = render_markdown(two_runs_input());
  CHECK(markdown.find("Date: 2026-11-22 04:27 UTC.") != std::string::npos);
}

TEST_CASE("a report without runs is refused") {
  CHECK_THROWS_AS(render_markdown(ReportInput{}), Error);
  CHECK_THROWS_AS(render_html(ReportInput{}), Error);
}

TEST_CASE("results tables show the columns of the metrics present, with scaled units") {
  const std::string markdown = render_markdown(single_run_input());
  // executors: throughput, latency percentiles and peak memory; no errors, rate 0%.
  CHECK(
      markdown.find("| case | samples | ops | throughput | mean | p50 | p95 | p99 | errors | error "
                    "rate | peak memory |") != std::string::npos);
  CHECK(markdown.find("| `executors/uniform` \\[executor=bounded\\_pool\\] | 10 | 1,000 "
                      "| 1.51k ops/s |") != std::string::npos);
  // select1 at concurrency 100: 467 errors of 10,000 operations.
  CHECK(markdown.find("| 467 | 4.67% |") != std::string::npos);
}

TEST_CASE("a param that varies alone gets a scaling table with that param as rows") {
  const std::vector<ScalingSlice> slices = scaling_slices(fixtures::current_run().results);
  std::vector<std::string> names;
  for (const ScalingSlice& s : slices)
    names.push_back(s.bench + " by " + s.param + " (" + params_text(s.fixed) + ")");
  CHECK(names ==
        std::vector<std::string>{"postgres/select1 by concurrency (pool=warm)",
                                 "postgres/tpcb by clients (scale=1)",
                                 "pipeline/fetch_store by pages (latency_ms=20, mode=sequential)",
                                 "pipeline/fetch_store by pages (latency_ms=20, mode=pipelined)"});
  CHECK(slices[1].values == std::vector<double>{1, 5, 10, 20, 50, 100});
  // A string param (executor) is not a scale.
  for (const ScalingSlice& s : slices) CHECK(s.param != "executor");
}

TEST_CASE(
    "a param swept over two values, as the bundled pipeline suite does, gets scaling tables") {
  const RunData data = fixtures::bundled_suites_run();
  const std::vector<ScalingSlice> slices = scaling_slices(data.results);
  std::vector<std::string> names;
  for (const ScalingSlice& s : slices)
    names.push_back(s.param + " (" + params_text(s.fixed, "latency_scale") + ")");
  // pages at each latency and mode, latency_ms at each pages and mode; nothing from the
  // executors, whose input statistics differ between workloads but never alone.
  CHECK(names == std::vector<std::string>{"latency_ms (mode=sequential, page_size=100, pages=10)",
                                          "latency_ms (mode=sequential, page_size=100, pages=50)",
                                          "latency_ms (mode=pipelined, page_size=100, pages=10)",
                                          "latency_ms (mode=pipelined, page_size=100, pages=50)",
                                          "pages (latency_ms=20, mode=sequential, page_size=100)",
                                          "pages (latency_ms=300, mode=sequential, page_size=100)",
                                          "pages (latency_ms=20, mode=pipelined, page_size=100)",
                                          "pages (latency_ms=300, mode=pipelined, page_size=100)"});
  for (const ScalingSlice& s : slices) {
    CHECK(s.bench == "pipeline/fetch_transform_store");
    CHECK(s.values ==
          (s.param == "pages" ? std::vector<double>{10, 50} : std::vector<double>{20, 300}));
  }

  ReportInput input;
  input.runs.push_back(data);
  const std::string markdown = render_markdown(input);
  check_valid_gfm(input, markdown);
  // Under the pipeline's results, titled without the params every row of the suite has.
  const std::size_t results = markdown.find("### pipeline");
  const std::size_t scaling = markdown.find(
      "#### Scaling: pipeline/fetch\\_transform\\_store by pages (latency\\_ms=20, "
      "mode=sequential)\n\n| pages | samples |");
  REQUIRE(results != std::string::npos);
  REQUIRE(scaling != std::string::npos);
  CHECK(scaling > results);
  CHECK(markdown.find(
            "#### Scaling: pipeline/fetch\\_transform\\_store by latency\\_ms (mode=pipelined, "
            "pages=50)\n") != std::string::npos);
  CHECK(markdown.find("Scaling: executors") == std::string::npos);
  CHECK(markdown.find(" by len_") == std::string::npos);
  // The rows in the param's order: the fixture takes pages × 20 ms × 0.02 × 1.2 per operation.
  CHECK(markdown.find("| 10 | 5 | 5 | 208 ops/s | 4.80 ms | 0 | 0% |\n| 50 | 5 | 5 | 41.7 ops/s | "
                      "24.0 ms |") != std::string::npos);
}

TEST_CASE("a param whose values move in step with another param's gets no scaling table") {
  // One bench for both workloads: len_mean and input_sha256 follow the workload, so len_mean
  // never varies alone and must not be read as a scale.
  RunData data = fixtures::bundled_suites_run();
  std::erase_if(data.results,
                [](const ResultRecord& r) { return suite_of(r.bench) != "executors"; });
  for (ResultRecord& r : data.results) {
    r.params["workload"] = r.bench.substr(r.bench.find('/') + 1);
    r.bench = "executors/sort";
  }
  CHECK(scaling_slices(data.results).empty());
}

TEST_CASE("a param named like a column leaves no two columns with the same header") {
  RunData data = fixtures::bundled_suites_run();
  std::erase_if(data.results,
                [](const ResultRecord& r) { return suite_of(r.bench) != "pipeline"; });
  for (ResultRecord& r : data.results) {
    // `n` for the pages (a common name for a size), `samples` for the latency.
    r.params["n"] = r.params.at("pages");
    r.params["samples"] = r.params.at("latency_ms");
    r.params.erase("pages");
    r.params.erase("latency_ms");
  }
  ReportInput input;
  input.runs.push_back(data);
  const std::string markdown = render_markdown(input);
  check_valid_gfm(input, markdown);
  CHECK(markdown.find("| case | samples | ops |") != std::string::npos);
  CHECK(markdown.find("#### Scaling: pipeline/fetch\\_transform\\_store by n (mode=sequential, "
                      "samples=20)\n\n| n | samples | ops |") != std::string::npos);
  CHECK(
      markdown.find("#### Scaling: pipeline/fetch\\_transform\\_store by samples (mode=sequential, "
                    "n=10)\n\n| samples (param) | samples | ops |") != std::string::npos);
  // No table anywhere repeats a header.
  const Document doc = build_document(input);
  std::size_t tables = 0;
  for (const Block& block : doc.blocks) {
    const auto* table = std::get_if<Table>(&block);
    if (table == nullptr) continue;
    ++tables;
    std::set<std::string> headers(table->header.begin(), table->header.end());
    INFO(markdown);
    CHECK(headers.size() == table->header.size());
  }
  CHECK(tables > 3);
}

TEST_CASE("when no change counts, the summary still names the largest changes and their verdicts") {
  // Two cases moved, each measured only three times in the current run: too few samples for a
  // significant difference after the adjustment for 18 comparisons.
  ReportInput input;
  input.base = fixtures::bundled_suites_run();
  RunData current = fixtures::bundled_suites_run();
  for (ResultRecord& r : current.results) {
    const Metric& time = r.metrics.at("time");
    const bool slower =
        r.bench == "executors/uniform" && to_string(r.params.at("executor")) == "sequential";
    const bool faster = r.bench == "pipeline/fetch_transform_store" &&
                        to_string(r.params.at("mode")) == "pipelined" &&
                        to_string(r.params.at("pages")) == "50" &&
                        to_string(r.params.at("latency_ms")) == "300";
    if (slower || faster)
      r.metrics["time"] =
          fixtures::spread_metric("ms", Better::lower, time.value * (slower ? 1.3 : 0.8), 0.05, 3);
  }
  input.runs.push_back(current);
  input.comparisons.push_back(
      {current.run.header.id,
       compare::compare_sides({{input.base->run}, input.base->results},
                              {{current.run}, current.results}, {}, compare::CompareOptions{})});
  const compare::ComparisonReport& report = input.comparisons[0].report;
  REQUIRE(report.count(compare::Verdict::regression) == 0);
  REQUIRE(report.count(compare::Verdict::improvement) == 0);
  // The largest estimate each way, found here independently of the report's own choice.
  const compare::CaseComparison* up = nullptr;
  const compare::CaseComparison* down = nullptr;
  for (const compare::CaseComparison& c : report.cases) {
    REQUIRE(c.change);
    if (!up || *c.change > *up->change) up = &c;
    if (!down || *c.change < *down->change) down = &c;
  }
  CHECK(up->bench == "executors/uniform");
  CHECK(down->bench == "pipeline/fetch_transform_store");
  CHECK(up->verdict == compare::Verdict::inconclusive);
  const auto described = [](const compare::CaseComparison& c) {
    return c.bench + " [" + params_text(c.params) + "] " + c.metric + " " +
           format_change(*c.change) + " (interval " + format_change(*c.ci_low) + " to " +
           format_change(*c.ci_high) + ", " + std::string(compare::to_string(c.verdict)) + ")";
  };
  const std::string expected = "No change counts; the largest estimates: " + described(*up) +
                               " and " + described(*down) + ".";
  std::string summary;
  for (const Block& block : build_document(input).blocks) {
    const auto* p = std::get_if<Paragraph>(&block);
    if (p != nullptr && p->mark == "summary") summary = plain_text(p->text);
  }
  INFO(summary);
  // Inconclusive cases are not a pass: the gate could not see whether they regressed.
  CHECK(summary.rfind("Gate: undecided (passes).", 0) == 0);
  CHECK(summary.find(expected) != std::string::npos);
  const std::string markdown = render_markdown(input);
  check_valid_gfm(input, markdown);
}
