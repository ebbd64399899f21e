// Every output format of a comparison (table, Markdown, JSON, JUnit, CSV) matches its golden
// file line by line (the regressed cases' profile section too, in the table, Markdown and JSON),
// carries the environment warning, and colours only when asked; the Markdown
// is valid GitHub-flavoured Markdown with the warnings folded away, and JSON and Markdown written
// case by case are the bytes of one nlohmann tree and of the table's blocks.
//
// To accept a deliberate change of format: BENCHLEDGER_UPDATE_GOLDEN=1 compare_tests, then
// review the diff of tests/unit/compare/golden/.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "compare/comparison.hpp"
#include "compare/explain.hpp"
#include "profile/profile_diff.hpp"
#include "report/compare_render.hpp"
#include "report/content.hpp"
#include "report/explain_render.hpp"
#include "support/golden.hpp"
#include "support/process.hpp"
#include "support/scratch_dir.hpp"
#include "unit/compare/comparison_fixture.hpp"

namespace cmp = benchledger::compare;
namespace br = benchledger::report;
namespace bt = benchledger::testing;

namespace {

cmp::ComparisonReport golden_report() {
  auto f = bt::comparison_fixture();
  auto& env = f.current.runs.front().env;
  env.os.kernel = "6.9.0-test";
  env.fingerprint = std::string(64, 'b');
  return cmp::compare_sides(f.base, f.current, f.notes, {});
}

void check_golden(const std::string& name, const std::string& actual) {
  benchledger::test_support::check_golden(
      benchledger::test_support::tests_dir("unit/compare/golden"), name, actual);
}

benchledger::profile::FunctionCost function(const std::string& name, int line, double self) {
  return {name, "src/sort.cpp", line, {self, self * 1.5}};
}

// The golden report's regressed cases explained: sort/uniform's head added a function and made
// one slower; net/ping has no profiles.
cmp::RegressionProfiles golden_profiles() {
  namespace bp = benchledger::profile;
  bp::Profile base, head;
  base.functions = {function("sort_loop(int*, int*)", 12, 9000),
                    function("partition(int*, int*)", 30, 1000),
                    function("swap_range(int*, int*)", 44, 400)};
  base.other_functions = 20;
  base.other = {150, 300};
  head.functions = {
      function("sort_loop(int*, int*)", 12, 9000), function("insertion_sort(int*, int*)", 51, 1100),
      function("partition(int*, int*)", 30, 1060), function("swap_range(int*, int*)", 44, 380)};
  head.other_functions = 20;
  head.other = {151, 302};
  for (bp::Profile* p : {&base, &head}) {
    for (const bp::FunctionCost& f : p->functions) {
      p->total.instructions += f.self.instructions;
      p->total.estimated_cycles += f.self.estimated_cycles;
    }
    p->total.instructions += p->other.instructions;
    p->total.estimated_cycles += p->other.estimated_cycles;
  }
  cmp::RegressionProfiles profiles;
  profiles.explanation.base_run = "01JDQ8Z6X00000000000000BAS";
  profiles.explanation.head_run = "01JDQ8Z6X00000000000000CXR";
  profiles.explanation.cases.push_back(
      {"net/ping", {}, std::nullopt, "neither result has a profile"});
  profiles.explanation.cases.push_back({"sort/uniform",
                                        {{"n", std::int64_t{2000}}},
                                        bp::diff_profiles(base, head, bp::Event::instructions),
                                        {}});
  return profiles;
}

}  // namespace

TEST_CASE("the terminal table matches its golden file and has no colour unless asked") {
  const auto report = golden_report();
  const std::string plain = br::render_comparison_table(report, false);
  check_golden("comparison.txt", plain);
  CHECK(plain.find('\x1b') == std::string::npos);
  const std::string coloured = br::render_comparison_table(report, true);
  CHECK_THAT(coloured, Catch::Contains("\x1b[1;31mregression"));
  CHECK_THAT(coloured, Catch::Contains("\x1b[1;31mgate: FAIL"));
}

TEST_CASE("the Markdown comment matches its golden file") {
  check_golden("comparison.md", br::render_comparison_markdown(golden_report()));
}

TEST_CASE("the Markdown comment is GitHub-flavoured Markdown whose table GitHub draws") {
  // GitHub's own parser (Debian's cmark-gfm, from tools/setup): without it the test fails, as a
  // skipped check would let invalid Markdown through unseen.
  REQUIRE(std::filesystem::exists("/usr/bin/cmark-gfm"));
  const benchledger::test_support::ScratchDir dir;
  const auto in = dir / "comparison.md";
  std::ofstream(in, std::ios::binary) << br::render_comparison_markdown(golden_report());
  // --unsafe keeps raw HTML, as GitHub keeps <details> and <summary> in a comment.
  const auto html = benchledger::test_support::run_process(
      {"/usr/bin/cmark-gfm", "--unsafe", "-e", "table", in.string()});
  REQUIRE(html.exit_code == 0);
  // One table: a header row and a row per case, the verdict first.
  CHECK_THAT(html.out, Catch::Contains("<th>verdict</th>\n<th>case</th>"));
  std::size_t rows = 0;
  for (std::size_t at = html.out.find("<tr>"); at != std::string::npos;
       at = html.out.find("<tr>", at + 1))
    ++rows;
  CHECK(rows == 1 + golden_report().cases.size());
  CHECK_THAT(html.out, Catch::Contains("<td>❌ <strong>regression</strong></td>"));
  // The warnings are one collapsed block, its list still Markdown inside it.
  CHECK_THAT(html.out, Catch::Contains("<details><summary>") &&
                           Catch::Contains("<li>environments differ: base run") &&
                           Catch::Contains("</details>"));
  CHECK(html.out.find("</details>") < html.out.find("<table>"));
  CHECK_THAT(html.out, !Catch::Contains("Warning:"));
}

TEST_CASE("the JSON form matches its golden file and the fields docs/ci-gate.md lists") {
  const auto report = golden_report();
  const std::string text = br::render_comparison_json(report);
  check_golden("comparison.json", text);
  const auto json = nlohmann::json::parse(text);
  for (const char* key : {"base", "current", "warnings", "cases", "summary", "gate"}) {
    CHECK(json.contains(key));
  }
  for (const auto& c : json["cases"]) {
    for (const char* key : {"bench", "params", "metric", "unit", "better", "base", "current",
                            "change", "ci", "p", "p_adjusted", "verdict"}) {
      INFO(c["bench"] << " " << key);
      CHECK(c.contains(key));
    }
  }
  CHECK(json["gate"] == "fail");
  CHECK(json["summary"]["missing"] == 1);
}

TEST_CASE("the regressed cases' profile section matches its golden file in each format") {
  const auto report = golden_report();
  const auto profiles = golden_profiles();
  // The table: a short table a case with profiles, before the warnings and the gate.
  std::ostringstream text;
  br::write_regression_profiles_text(text, profiles);
  check_golden("profiles.txt", text.str());
  const std::string table = br::render_comparison_table(report, false, &profiles);
  CHECK(table.find(text.str() + "\nwarning: ") != std::string::npos);
  CHECK(table.size() == br::render_comparison_table(report, false).size() + text.str().size());
  CHECK_THAT(text.str(), Catch::Contains("\nsort/uniform [n=2000]: instructions 10,550 → 11,691") &&
                             Catch::Contains("\n  insertion_sort(int*, int*)  "));
  CHECK_THAT(text.str(), !Catch::Contains("net/ping"));  // no profile: JSON says why

  // Markdown: under the comparison.
  std::ostringstream md;
  br::write_regression_profiles_markdown(md, profiles);
  check_golden("profiles.md", md.str());
  CHECK(br::render_comparison_markdown(report, &profiles) ==
        br::render_comparison_markdown(report) + md.str());

  // JSON: a member after the cases, every function of every regressed case, as explain has them.
  const std::string json_text = br::render_comparison_json(report, &profiles);
  const auto section = nlohmann::ordered_json::parse(json_text).at("profiles");
  check_golden("profiles.json", section.dump(2) + "\n");
  CHECK(section == br::regression_profiles_json(profiles));
  REQUIRE(section["cases"].size() == 2);
  CHECK(section["cases"][0]["missing"] == "neither result has a profile");
  CHECK(section["cases"][1]["functions"].size() == 4);
  CHECK(section["cases"][1]["functions"][0]["name"] == "insertion_sort(int*, int*)");
  // The rest of the object is the comparison without the section, byte for byte.
  auto without = nlohmann::ordered_json::parse(json_text);
  without.erase("profiles");
  CHECK(without.dump(2) + "\n" == br::render_comparison_json(report));

  // A profile that could not be read is one line in each form.
  cmp::RegressionProfiles unreadable;
  unreadable.unreadable = "artifact 3f2a is missing";
  CHECK_THAT(br::render_comparison_table(report, false, &unreadable),
             Catch::Contains("\nthe profiles of the regressed cases cannot be read: artifact 3f2a "
                             "is missing\n"));
  CHECK_THAT(br::render_comparison_markdown(report, &unreadable),
             Catch::EndsWith("The profiles of the regressed cases cannot be read: artifact 3f2a "
                             "is missing\n"));
  CHECK(nlohmann::json::parse(br::render_comparison_json(report, &unreadable))["profiles"] ==
        nlohmann::json{{"unreadable", "artifact 3f2a is missing"}});
}

TEST_CASE("the JUnit XML matches its golden file with one failure per gate failure") {
  const std::string xml = br::render_comparison_junit(golden_report());
  check_golden("comparison.xml", xml);
  std::size_t failures = 0;
  for (std::size_t at = xml.find("<failure "); at != std::string::npos;
       at = xml.find("<failure ", at + 1)) {
    ++failures;
  }
  CHECK(failures ==
        3);  // sort/uniform, net/ping and old/case (missing); pipeline/fetch is accepted
}

TEST_CASE("the CSV matches its golden file and quotes params") {
  const std::string csv = br::render_comparison_csv(golden_report());
  check_golden("comparison.csv", csv);
  CHECK_THAT(csv, Catch::Contains("\"{\"\"n\"\":2000}\""));
}

TEST_CASE("the JSON form written case by case is byte for byte nlohmann's dump of the whole") {
  // The writer streams; the bytes must stay those of dumping one tree with an indent of 2, for
  // every optional member: looks, no cases, accepted, deterministic and paired cases, the gate
  // configuration, a case judged by the base's configuration and a failed case's stderr.
  const auto report = golden_report();
  auto looked = cmp::settle_looks(std::vector<cmp::ComparisonReport>{report, report}, 0.05);
  looked.cases.front().deterministic = true;
  looked.cases.back().pairs = 7;
  looked.configuration = {{"thresholds.work", "none", "1000%"}};
  looked.cases.front().judged = cmp::Verdict::regression;
  looked.cases.front().loosened = {{"threshold", "5%", "1000%"}};
  looked.cases.back().failure_output = "error: \"out of memory\"\n\tat line 2\n";
  auto empty = report;
  empty.cases.clear();
  empty.warnings.clear();
  for (const cmp::ComparisonReport* r :
       std::vector<const cmp::ComparisonReport*>{&report, &looked, &empty}) {
    const std::string text = br::render_comparison_json(*r);
    CHECK(text == nlohmann::ordered_json::parse(text).dump(2) + "\n");
  }
  CHECK_THAT(br::render_comparison_json(empty), Catch::Contains("\"cases\": [],"));
  CHECK_THAT(br::render_comparison_json(looked), Catch::EndsWith("\"looks\": 2\n}\n"));
}

TEST_CASE("the Markdown table written row by row is byte for byte the blocks of the whole table") {
  // compare's Markdown streams the table; the report renders its blocks. Both must stay one
  // text, with the remarks, the shared params and an empty table alike.
  auto report = golden_report();
  auto shared = report;
  for (cmp::CaseComparison& c : shared.cases)
    c.params = {{"n", benchledger::ParamValue(std::int64_t{1})}};
  auto empty = report;
  empty.cases.clear();
  for (const cmp::ComparisonReport* r :
       std::vector<const cmp::ComparisonReport*>{&report, &shared, &empty}) {
    std::vector<const cmp::CaseComparison*> cases;
    for (const cmp::CaseComparison& c : r->cases) cases.push_back(&c);
    std::ostringstream written;
    br::write_comparison_table_blocks(written, *r);
    CHECK(written.str() == br::render_markdown_blocks(br::comparison_table_blocks(*r, cases)));
  }
}
