// The base revision's gate configuration judges a change: what the head's benchledger.json
// loosens passes only as `accepted by this change` (listed first, with both settings, in every
// format), what it tightens fails, and every setting it changes is named.
#include <algorithm>
#include <fstream>

#include <catch2/catch.hpp>

#include <benchledger/config.hpp>

#include "compare/gate_configuration.hpp"
#include "report/compare_render.hpp"
#include "support/scratch_dir.hpp"
#include "unit/compare/comparison_fixture.hpp"

namespace cmp = benchledger::compare;
namespace bt = benchledger::testing;
using benchledger::Config;

namespace {

Config config_from(const benchledger::test_support::ScratchDir& dir, const std::string& name,
                   const std::string& json) {
  const auto path = dir / name;
  std::ofstream(path) << json;
  return benchledger::load_config(path);
}

std::vector<std::string> texts(const std::vector<cmp::SettingChange>& changes) {
  std::vector<std::string> out;
  for (const cmp::SettingChange& c : changes)
    out.push_back(benchledger::report::setting_change_text(c));
  return out;
}

// A base and a current run: `work` 12% slower (1-2% noise), `fast` unchanged, `old` in the base
// only.
cmp::Side side(bool base) {
  cmp::Side out;
  const char* run = base ? bt::k_base_run : bt::k_current_run;
  out.runs.push_back(bt::sample_run(run, base ? "base" : "head"));
  out.runs.front().warnings.clear();
  const auto add = [&](const std::string& bench, double factor, int n) {
    const std::string id =
        std::string(base ? "01JDQ8Z6X0000000000000B" : "01JDQ8Z6X0000000000000C") +
        std::to_string(100 + n);
    out.results.push_back(bt::result_with(run, id, bench, {},
                                          base ? bt::steady() : bt::scaled(bt::steady(), factor)));
  };
  add("work", 1.12, 1);
  add("fast", 1.0, 2);
  if (base) add("old", 1.0, 3);
  return out;
}

const cmp::CaseComparison& of(const cmp::ComparisonReport& report, const std::string& bench) {
  const auto it = std::find_if(report.cases.begin(), report.cases.end(),
                               [&](const cmp::CaseComparison& c) { return c.bench == bench; });
  if (it == report.cases.end()) FAIL("no case " << bench);
  return *it;
}

cmp::ComparisonReport judged(const cmp::CompareOptions& options) {
  return cmp::compare_sides(side(true), side(false), {}, options);
}

cmp::CompareOptions with_threshold(const std::string& bench, double percent) {
  cmp::CompareOptions options;
  options.config.thresholds = {{bench, percent}};
  return options;
}

}  // namespace

TEST_CASE(
    "every setting the head's file changes is listed, a run entry once per side that has it") {
  const benchledger::test_support::ScratchDir dir;
  const Config base = config_from(dir, "base.json", R"({
    "thresholds": {"sort/*": 10},
    "gate": {"run": ["--name work -- sh work.sh", "--name io -- sh io.sh"],
             "metric": "cpu", "threshold": 5, "undecided": "fail"}})");
  const Config head = config_from(dir, "head.json", R"({
    "thresholds": {"sort/*": 10, "work": 1000},
    "gate": {"run": ["--name  work --  sh work.sh", "-- true"],
             "metric": "wall", "threshold": 5, "allow-missing": true}})");
  CHECK(texts(cmp::gate_configuration_changes(base, head)) ==
        std::vector<std::string>{
            "thresholds.work: none -> 1000%", "gate.run: --name io -- sh io.sh -> none",
            "gate.run: none -> -- true", "gate.metric: cpu -> wall",
            "gate.allow-missing: none -> true", "gate.undecided: fail -> none"});
  CHECK(cmp::gate_configuration_changes(base, base).empty());
  const auto changes = cmp::gate_configuration_changes(base, head);
  CHECK(std::count_if(changes.begin(), changes.end(), cmp::judging_setting) == 4);
}

TEST_CASE("a regression the head's raised threshold passes is accepted by this change, first") {
  const cmp::ComparisonReport by_base = judged({});
  REQUIRE(by_base.state == cmp::GateState::failed);
  const cmp::ComparisonReport by_head = judged(with_threshold("work", 1000));
  REQUIRE(of(by_head, "work").verdict == cmp::Verdict::unchanged);
  const cmp::ComparisonReport report =
      cmp::judge_by_base(by_base, by_head, {{"thresholds.work", "none", "1000%"}});

  REQUIRE(report.cases.size() == 3);
  const cmp::CaseComparison& first = report.cases.front();
  CHECK(first.bench == "work");
  CHECK(first.verdict == cmp::Verdict::accepted_by_change);
  CHECK(first.judged == cmp::Verdict::regression);
  CHECK_FALSE(first.fails_on_verdict);
  REQUIRE(first.loosened.size() == 1);
  CHECK(benchledger::report::setting_change_text(first.loosened.front()) ==
        "threshold: 5% -> 1000%");
  // The base's own judgement still fails `old` (missing): the head's file loosened nothing there.
  CHECK(report.state == cmp::GateState::failed);
  CHECK(report.count(cmp::Verdict::accepted_by_change) == 1);

  // Every format lists it first, with both settings, and opens with the configuration.
  using namespace benchledger::report;
  const std::string md = render_comparison_markdown(report);
  CHECK(md.find("**Gate configuration**") < md.find("| verdict | case |"));
  CHECK(md.find("| `thresholds.work` | none | `1000%` |") != std::string::npos);
  CHECK(md.find("| `fast` | `time` |") != std::string::npos);
  CHECK(md.find("| ☑️ accepted by this change | `work` | `time` |") <
        md.find("| `fast` | `time` |"));
  CHECK(md.find("`work` `time`: regression by the base's configuration; threshold 5% -\\> 1000%") !=
        std::string::npos);
  const std::string txt = render_comparison_table(report, false);
  CHECK(txt.rfind("configuration: the head's benchledger.json differs", 0) == 0);
  CHECK(txt.find("thresholds.work: none -> 1000%") != std::string::npos);
  CHECK(txt.find("work ") < txt.find("fast "));
  const auto json = nlohmann::ordered_json::parse(render_comparison_json(report));
  CHECK(json["configuration"][0]["key"] == "thresholds.work");
  CHECK(json["cases"][0]["verdict"] == "accepted by this change");
  CHECK(json["cases"][0]["judged"] == "regression");
  CHECK(json["cases"][0]["loosened"][0]["head"] == "1000%");
  CHECK(json["cases"][0]["gate"] == "pass");
  CHECK(json["summary"]["accepted by this change"] == 1);
  const std::string junit = render_comparison_junit(report);
  CHECK(junit.find("<property name=\"configuration\" value=\"thresholds.work: none -&gt; "
                   "1000%\"/>") != std::string::npos);
  CHECK(junit.find("<testcase classname=\"work\" name=\"work time\"") == junit.find("<testcase"));
  CHECK(junit.find("accepted by this change (regression by the base") != std::string::npos);
}

TEST_CASE("a case the head's stricter threshold fails fails, and says why") {
  const cmp::ComparisonReport by_base = judged(with_threshold("work", 50));
  REQUIRE(of(by_base, "work").verdict == cmp::Verdict::unchanged);
  const cmp::ComparisonReport by_head = judged({});
  const cmp::ComparisonReport report =
      cmp::judge_by_base(by_base, by_head, {{"thresholds.work", "50%", "none"}});
  const cmp::CaseComparison& work = of(report, "work");
  CHECK(work.verdict == cmp::Verdict::regression);
  CHECK(work.fails_on_verdict);
  CHECK(work.remark == "fails by the head's stricter gate configuration (threshold 50% -> 5%)");
}

TEST_CASE("a missing case passes by the head's allow-missing only as accepted by this change") {
  cmp::CompareOptions loose = with_threshold("work", 1000);
  loose.allow_missing = true;
  const cmp::ComparisonReport report =
      cmp::judge_by_base(judged(with_threshold("work", 1000)), judged(loose),
                         {{"gate.allow-missing", "none", "true"}});
  CHECK(report.state == cmp::GateState::passed);
  CHECK(report.gate_pass);
  const cmp::CaseComparison& first = report.cases.front();
  CHECK(first.bench == "old");
  CHECK(first.verdict == cmp::Verdict::accepted_by_change);
  CHECK(first.judged == cmp::Verdict::missing);
  CHECK(benchledger::report::accepted_by_change_text(first) ==
        "missing by the base's configuration; gate.allow-missing none -> true");
  // A reader of the title alone sees that the change let something through.
  CHECK(benchledger::report::render_comparison_markdown(report).rfind(
            "### benchledger compare: gate passed (1 case accepted by this change)\n", 0) == 0);
  CHECK(benchledger::report::gate_verdict_text(report) == "pass (1 case accepted by this change)");
}

TEST_CASE("an undecided case the head's undecided: pass lets through is accepted by this change") {
  // `work` is 12% slower: at a 12.5% threshold its interval is neither within nor beyond it.
  cmp::CompareOptions base_options;
  base_options.threshold = 0.125;
  base_options.allow_missing = true;
  base_options.undecided_fails = true;
  cmp::CompareOptions head_options = base_options;
  head_options.undecided_fails = false;
  const cmp::ComparisonReport by_base = judged(base_options);
  REQUIRE(by_base.state == cmp::GateState::undecided);
  REQUIRE_FALSE(by_base.gate_pass);
  const cmp::ComparisonReport report =
      cmp::judge_by_base(by_base, judged(head_options), {{"gate.undecided", "fail", "none"}});
  CHECK(report.gate_pass);
  CHECK(report.cases.front().bench == "work");
  CHECK(report.cases.front().verdict == cmp::Verdict::accepted_by_change);
  CHECK(report.cases.front().judged == cmp::Verdict::inconclusive);
}

TEST_CASE("the same configuration on both sides changes nothing") {
  const cmp::ComparisonReport by_base = judged({});
  const cmp::ComparisonReport report = cmp::judge_by_base(by_base, by_base, {});
  REQUIRE(report.cases.size() == by_base.cases.size());
  for (std::size_t i = 0; i < report.cases.size(); ++i) {
    CHECK(report.cases[i].verdict == by_base.cases[i].verdict);
    CHECK(report.cases[i].bench == by_base.cases[i].bench);
  }
  CHECK(report.state == by_base.state);
  CHECK(benchledger::report::render_comparison_markdown(report) ==
        benchledger::report::render_comparison_markdown(by_base));
}
