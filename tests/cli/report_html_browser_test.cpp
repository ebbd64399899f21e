// The HTML report renders in a real browser (headless Chromium) with its charts painted, on a
// desktop and a phone width, and loads nothing from outside the file; a regressed case with
// profiles gets its chart of functions, each bar's tooltip naming the function and its change.
#include <cstdlib>
#include <filesystem>
#include <regex>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli/report_support.hpp"
#include "ledger/artifacts.hpp"
#include "profile/profile.hpp"
#include "report/content.hpp"

using namespace benchledger;
using namespace benchledger::report;
using namespace benchledger::report::testing;

namespace {

constexpr const char* k_chromium = "/usr/bin/chromium";

std::string python() {
  const char* python = std::getenv("BENCHLEDGER_PYTHON3");
  return python != nullptr && *python != '\0' ? python : "/usr/bin/python3";
}

std::string source_dir() {
  const char* source = std::getenv("BENCHLEDGER_SOURCE_DIR");
  REQUIRE(source != nullptr);
  return source;
}

std::size_t count_matches(const std::string& text, const std::regex& pattern) {
  return static_cast<std::size_t>(std::distance(
      std::sregex_iterator(text.begin(), text.end(), pattern), std::sregex_iterator()));
}

// What report_browser_check.py saw of `dir`/report.html in headless Chromium, checked to have
// loaded.
nlohmann::json browser_check(const ScratchDir& dir) {
  const std::filesystem::path work = dir.path() / "browser";
  std::filesystem::create_directories(work);
  const Outcome check =
      run_process({python(), source_dir() + "/tests/cli/report_browser_check.py", k_chromium,
                   (dir.path() / "report.html").string(), work.string()},
                  dir.path());
  INFO(check.err);
  REQUIRE(check.exit_code == 0);
  nlohmann::json result = nlohmann::json::parse(check.out);
  // Chromium loaded the page, and its parser did not complain.
  INFO(result.dump(1));
  CHECK(result["dom"]["exit_code"] == 0);
  CHECK(result["dom"]["parser_error"] == false);
  return result;
}

}  // namespace

TEST_CASE("the HTML report refers to nothing outside itself") {
  ScratchDir dir;
  const std::string ledger = (dir.path() / "ledger.ndjson").string();
  write_ledger(ledger, standard_history());
  const Outcome outcome = run_cli(
      {"report", "current", "--against", "baseline", "--ledger", ledger, "-o", "report.html"},
      dir.path());
  REQUIRE(outcome.exit_code == 0);
  const std::string page = read_text(dir.path() / "report.html");
  // No element that loads anything: scripts, stylesheets, images, frames, objects, fonts.
  for (const char* tag : {"<script", "<link", "<img", "<iframe", "<object", "<embed", "<video",
                          "<audio", "<source", "<image", "<use", "<base", "<meta http-equiv"}) {
    INFO(tag);
    CHECK(page.find(tag) == std::string::npos);
  }
  // No attribute or CSS that names a resource, and no URL at all.
  CHECK(count_matches(page, std::regex(R"((src|href|xlink:href|srcset|action|poster|data)\s*=)",
                                       std::regex::icase)) == 0);
  CHECK(count_matches(page, std::regex(R"(url\s*\(|@import|@font-face)", std::regex::icase)) == 0);
  CHECK(count_matches(page, std::regex(R"([a-z][a-z0-9+.-]*://)", std::regex::icase)) == 0);
}

TEST_CASE("the HTML report renders in headless Chromium with its charts and makes no request") {
  // Without the browser the test fails: a skipped check would let a broken page through unseen.
  if (!std::filesystem::exists(k_chromium)) {
    FAIL(k_chromium << " is not installed: run tools/setup (Debian package chromium)");
  }
  ScratchDir dir;
  const std::string ledger = (dir.path() / "ledger.ndjson").string();
  // A short page (the pipeline suite only) so that the charts lie within the screenshots:
  // comparison against the baseline with distributions, a scaling chart and trends.
  std::vector<RunData> runs = standard_history();
  for (RunData& data : runs) {
    std::erase_if(data.results,
                  [](const ResultRecord& r) { return suite_of(r.bench) != "pipeline"; });
  }
  write_ledger(ledger, runs);
  const Outcome outcome = run_cli(
      {"report", "current", "--against", "baseline", "--ledger", ledger, "-o", "report.html"},
      dir.path());
  INFO(outcome.err);
  REQUIRE(outcome.exit_code == 0);
  const std::string page = read_text(dir.path() / "report.html");
  const std::size_t charts = count_matches(page, std::regex(R"(<svg[^>]*class="chart )"));
  // 6 distributions, 1 scaling chart (wall by pages, one line per mode), 6 trends.
  CHECK(charts == 13);

  const nlohmann::json result = browser_check(dir);
  INFO(result.dump(1));

  // The DOM after load holds every chart, drawn with shapes, and the parser did not complain.
  const nlohmann::json& dom = result["dom"];
  CHECK(dom["chart_svgs"] == charts);
  CHECK(dom["figures"] == charts);
  CHECK(dom["paths"].get<int>() > 50);
  CHECK(dom["circles"].get<int>() > 20);
  CHECK(dom["has_title"] == true);

  // Both screenshots are far from blank and hold the palette's blue (current, trends) and
  // orange (base) in pixels that only the charts paint.
  for (const char* name : {"desktop", "phone"}) {
    INFO(name);
    const nlohmann::json& shot = result[name];
    REQUIRE(shot.contains("width"));
    CHECK(shot["non_white_fraction"].get<double>() > 0.05);
    CHECK(shot["distinct_colours"].get<int>() > 200);
    CHECK(shot["palette_pixels"]["#0072B2"].get<int>() > 100);
    CHECK(shot["palette_pixels"]["#E69F00"].get<int>() > 20);
  }
  CHECK(result["desktop"]["width"] == 640);  // 1280 CSS pixels at a device scale of 0.5
  CHECK(result["phone"]["width"] == 195);    // 390 CSS pixels

  // Nothing reached the proxy while the report was open; the control page's fetches did, so
  // the proxy would have seen the report's.
  CHECK(result["requests"]["page"].empty());
  CHECK(result["requests"]["blank"].empty());  // else Chromium's own traffic hides the page's
  CHECK(result["requests"]["control"].size() >= 2);
}

TEST_CASE("the HTML report marks a real step change on every trend chart, in headless Chromium") {
  if (!std::filesystem::exists(k_chromium)) {
    FAIL(k_chromium << " is not installed: run tools/setup (Debian package chromium)");
  }
  ScratchDir dir;
  const std::string ledger = (dir.path() / "ledger.ndjson").string();
  // 20 nightly runs of the pipeline cases, each 30% slower from run 12 (0-based) on.
  const std::vector<RunData> runs = fixtures::step_change_history(20, 12, 1.3);
  write_ledger(ledger, runs);
  const Outcome outcome = run_cli({"report", "--ledger", ledger, "-o", "report.html"}, dir.path());
  INFO(outcome.err);
  REQUIRE(outcome.exit_code == 0);
  const std::string page = read_text(dir.path() / "report.html");
  const std::size_t cases = runs.back().results.size();
  // Trend charts are line charts by run; the pipeline's scaling chart is one by pages.
  const std::size_t trends = count_matches(
      page,
      std::regex(
          R"(class="chart line-chart"><title[^>]*>[^<]* by run \(oldest to newest\)</title>)"));
  REQUIRE(trends == cases);

  const nlohmann::json result = browser_check(dir);
  INFO(result.dump(1));
  const nlohmann::json& dom = result["dom"];
  // One mark per trend chart, its tooltip naming the run, the commit and the change.
  const nlohmann::json& marks = dom["change_points"];
  REQUIRE(marks.size() == cases);
  const std::string commit = runs[12].run.git.commit->substr(0, 12);
  for (const nlohmann::json& mark : marks) {
    const std::string tip = mark.get<std::string>();
    CHECK(tip.find(runs[12].run.header.id) != std::string::npos);
    CHECK(tip.find("(commit " + commit + ")") != std::string::npos);
    CHECK(std::regex_search(tip, std::regex(R"(\(\+(29|30|31)\.\d%\))")));
    CHECK(tip.find("regression") != std::string::npos);
  }
  // The marks are painted, in their own colour, on both widths.
  for (const char* name : {"desktop", "phone"}) {
    INFO(name);
    CHECK(result[name]["palette_pixels"]["#CC79A7"].get<int>() > 10);
  }
}

namespace {

// A profile of `functions` (name, self instructions), its total their sum.
// A profile of these functions, the first calling each of the others (its call's inclusive cost
// the callee's own).
std::string profile_artifact(const std::vector<std::pair<std::string, double>>& functions) {
  profile::Profile p;
  p.processes = 1;
  for (const auto& [name, self] : functions) {
    if (!p.functions.empty()) p.call_graph.calls.push_back({0, p.functions.size(), self});
    p.functions.push_back({name, "src/executor.cpp", 10, {self, self * 2}});
    p.call_graph.functions.push_back({name, self});
    p.total.instructions += self;
    p.total.estimated_cycles += self * 2;
  }
  p.call_graph.functions.front().inclusive = p.total.instructions;
  return profile::to_artifact(p);
}

}  // namespace

TEST_CASE("the HTML report draws a regressed case's functions, in headless Chromium") {
  if (!std::filesystem::exists(k_chromium)) {
    FAIL(k_chromium << " is not installed: run tools/setup (Debian package chromium)");
  }
  ScratchDir dir;
  const std::filesystem::path ledger = dir.path() / "ledger.ndjson";
  // The regressed case of the standard history (executors/uniform, sequential, 50), with
  // profiles on both sides: the head added a function and made another faster.
  const auto artifacts = ledger::artifact_directory(ledger.string());
  REQUIRE(artifacts);
  const std::string base = ledger::put_artifact(
      *artifacts,
      profile_artifact(
          {{"run_queue()", 500000}, {"dispatch(Task&)", 400000}, {"lock_queue()", 80000}}));
  const std::string head =
      ledger::put_artifact(*artifacts, profile_artifact({{"run_queue()", 500000},
                                                         {"steal_work(Queue&)", 400000},
                                                         {"dispatch(Task&)", 150000},
                                                         {"lock_queue()", 80000}}));
  std::vector<RunData> runs = standard_history();
  for (RunData& data : runs) {
    std::erase_if(data.results, [](const ResultRecord& r) {
      return r.bench != "executors/uniform" || to_string(r.params.at("concurrency")) != "50";
    });
    for (ResultRecord& r : data.results) {
      if (to_string(r.params.at("executor")) != "sequential") continue;
      if (data.run.label == "baseline") r.header.extra["profile"] = base;
      if (data.run.label == "current") r.header.extra["profile"] = head;
    }
  }
  write_ledger(ledger.string(), runs);
  const Outcome outcome = run_cli({"report", "current", "--against", "baseline", "--ledger",
                                   ledger.string(), "-o", "report.html"},
                                  dir.path());
  INFO(outcome.err);
  REQUIRE(outcome.exit_code == 0);
  const std::string page = read_text(dir.path() / "report.html");
  REQUIRE(count_matches(page, std::regex(R"(<svg[^>]*class="chart profile-chart")")) == 1);
  REQUIRE(count_matches(page, std::regex(R"(<svg[^>]*class="chart flame-chart")")) == 1);
  CHECK_THAT(page, Catch::Contains("a differential flame graph"));
  // The Markdown form has the comparison, and no chart.
  const Outcome md = run_cli(
      {"report", "current", "--against", "baseline", "--ledger", ledger.string()}, dir.path());
  REQUIRE(md.exit_code == 0);
  CHECK_THAT(md.out, !Catch::Contains("instructions went"));

  const nlohmann::json result = browser_check(dir);
  INFO(result.dump(1));
  const nlohmann::json& dom = result["dom"];
  // A bar a function that changed (the added one first), the unchanged ones after, each
  // titled with the function, both sides and the change.
  const nlohmann::json& frames = dom["profile_frames"];
  REQUIRE(frames.size() == 4);
  CHECK(frames[0] ==
        "steal_work(Queue&amp;): base none (not in the base), head 400,000, change +400,000 "
        "(266.7% of the case's change); src/executor.cpp:10");
  CHECK(frames[1] ==
        "dispatch(Task&amp;): base 400,000, head 150,000, change -250,000 (-166.7% of the case's "
        "change); src/executor.cpp:10");
  CHECK_THAT(frames[2].get<std::string>(), Catch::StartsWith("run_queue(): base 500,000, head "
                                                             "500,000, change 0 (0.0%"));
  // The flame graph: run_queue() the root, its callees above it by name, each titled with its
  // cost on that path on both sides; steal_work() only on the head.
  const nlohmann::json& flames = dom["flame_frames"];
  REQUIRE(flames.size() == 4);
  CHECK_THAT(flames[0].get<std::string>(),
             Catch::StartsWith("run_queue(): base 980,000, head 1,130,000, change +150,000"));
  CHECK_THAT(flames[1].get<std::string>(),
             Catch::StartsWith("dispatch(Task&amp;): base 400,000, head 150,000, change -250,000"));
  CHECK_THAT(flames[2].get<std::string>(),
             Catch::StartsWith("lock_queue(): base 80,000, head 80,000, change 0"));
  CHECK_THAT(flames[3].get<std::string>(),
             Catch::StartsWith("steal_work(Queue&amp;): base 0, head 400,000, change +400,000"));
  // Painted: the red of a slower function and the blue of a faster one, on both widths.
  for (const char* name : {"desktop", "phone"}) {
    INFO(name);
    CHECK(result[name]["palette_pixels"]["#B2182B"].get<int>() > 100);
    CHECK(result[name]["palette_pixels"]["#2166AC"].get<int>() > 20);
  }
}
