// `benchledger compare` end to end on the built binary and a real NDJSON ledger: selectors
// (labels, label~N, ids, git:, latest~N, files), --base-runs, --alpha, --threshold, the
// thresholds of benchledger.json, --fail-on, --require-same-env, every --format, and the exit
// codes 0 (pass), 1 (gate failed) and 2 (usage or data error).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <benchledger/ledger.hpp>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/process.hpp"
#include "support/scratch_dir.hpp"
#include "unit/compare/comparison_fixture.hpp"

namespace bt = benchledger::testing;
namespace fs = std::filesystem;
using benchledger::Record;

namespace {

struct Outcome {
  int code = -1;
  std::string out, err;
};

class Workspace {
 public:
  const fs::path& dir() const { return m_scratch.path(); }
  fs::path ledger() const { return dir() / "ledger.ndjson"; }

  void append(const fs::path& path, std::vector<Record> batch) const {
    benchledger::ledger::open_store(path.string())->append(std::move(batch));
  }

  // Runs `benchledger compare ARGS` in this directory with BENCHLEDGER_LEDGER set to ledger().
  Outcome compare(const std::string& args) const { return cli("compare " + args); }

  // Runs `benchledger ARGS` the same way; `env` is put before the command (`FAIL=3`).
  Outcome cli(const std::string& args, const std::string& env = "") const {
    const char* bin = std::getenv("BENCHLEDGER_BIN");
    if (bin == nullptr) FAIL("BENCHLEDGER_BIN is not set (ctest sets it)");
    // A shell, for the environment assignments and the arguments as a user types them.
    const std::string command = "cd '" + dir().string() + "' && " + env +
                                " NO_COLOR=1 BENCHLEDGER_LEDGER='" + ledger().string() + "' '" +
                                bin + "' " + args;
    const auto run = benchledger::test_support::run_shell(command);
    return {run.exit_code, run.out, run.err};
  }

 private:
  benchledger::test_support::ScratchDir m_scratch;
};

std::vector<Record> batch_of(const benchledger::compare::Side& side) {
  std::vector<Record> batch;
  batch.emplace_back(side.runs.front());
  for (const auto& r : side.results) batch.emplace_back(r);
  return batch;
}

// The fixture's base and current runs in a ledger, then its accept-regression note.
void fill(const Workspace& w, const bt::ComparisonFixture& f) {
  w.append(w.ledger(), batch_of(f.base));
  w.append(w.ledger(), batch_of(f.current));
  std::vector<Record> notes;
  for (const auto& note : f.notes) notes.emplace_back(note);
  w.append(w.ledger(), notes);
}

// A fixture whose current run changes nothing: the same samples.
bt::ComparisonFixture unchanged_fixture() {
  auto f = bt::comparison_fixture();
  std::erase_if(f.base.results, [](const auto& r) { return r.bench != "sort/mixed"; });
  f.current.results.clear();
  auto same = f.base.results.front();
  same.header.id = "01JDQ8Z6X0000000000000C555";
  same.run = bt::k_current_run;
  f.current.results.push_back(same);
  return f;
}

// The fixture's cases named here and no others.
bt::ComparisonFixture only(bt::ComparisonFixture f, const std::vector<std::string>& benches) {
  const auto keep = [&](std::vector<benchledger::ResultRecord>& results) {
    std::erase_if(results, [&](const auto& r) {
      return std::find(benches.begin(), benches.end(), r.bench) == benches.end();
    });
  };
  keep(f.base.results);
  keep(f.current.results);
  return f;
}

// An earlier run labelled like the fixture's base, with ids of its own: appended before the
// fixture, it is `baseline~1`.
benchledger::compare::Side older_base(const bt::ComparisonFixture& f) {
  auto older = f.base;
  older.runs.front().header.id = "01JDQ8Z6X00000000000000Q1D";
  older.runs.front().header.time = "2026-11-22T03:00:00.000000Z";
  for (std::size_t i = 0; i < older.results.size(); ++i) {
    older.results[i].header.id = "01JDQ8Z6X0000000000000Q" + std::to_string(100 + i);
    older.results[i].run = older.runs.front().header.id;
  }
  return older;
}

// The verdict of one case in the JSON output.
std::string verdict_of(const Outcome& o, const std::string& bench) {
  const auto json = nlohmann::json::parse(o.out);
  for (const auto& c : json["cases"]) {
    if (c["bench"] == bench) return c["verdict"].get<std::string>();
  }
  return "<no case " + bench + ">";
}

}  // namespace

TEST_CASE("compare exits 0 when nothing fails the gate") {
  Workspace w;
  fill(w, unchanged_fixture());
  const Outcome o = w.compare("baseline current");
  INFO(o.err);
  CHECK(o.code == 0);
  CHECK_THAT(o.out, Catch::Contains("unchanged") && Catch::Contains("gate: pass"));
  CHECK(o.out.find('\x1b') == std::string::npos);  // NO_COLOR and not a terminal
}

TEST_CASE("compare exits 1 on a regression and names it in every format") {
  Workspace w;
  fill(w, bt::comparison_fixture());
  const Outcome table = w.compare("baseline current");
  INFO(table.err);
  CHECK(table.code == 1);
  CHECK_THAT(table.out, Catch::Contains("sort/uniform [n=2000]") && Catch::Contains("gate: FAIL"));
  CHECK_THAT(table.out, Catch::Contains("regression (accepted)"));  // the note in the ledger

  const Outcome json = w.compare("baseline current --format json");
  CHECK(json.code == 1);
  const auto parsed = nlohmann::json::parse(json.out);  // nothing else on stdout
  CHECK(parsed["gate"] == "fail");
  CHECK(parsed["summary"]["regression"] == 3);
  CHECK(parsed["summary"]["accepted"] == 1);
  CHECK(parsed["current"]["id"] == bt::k_current_run);

  const Outcome md = w.compare("baseline current --format md");
  CHECK(md.code == 1);
  CHECK_THAT(md.out, Catch::StartsWith("### benchledger compare: **gate failed**"));
  const Outcome junit = w.compare("baseline current --format junit");
  CHECK(junit.code == 1);
  CHECK_THAT(junit.out, Catch::Contains("<failure type=\"regression\""));
  const Outcome csv = w.compare("baseline current --format csv");
  CHECK(csv.code == 1);
  CHECK_THAT(csv.out, Catch::StartsWith("bench,params,metric,"));

  // Same ledger, same flags: byte-identical output.
  CHECK(w.compare("baseline current --format json").out == json.out);
}

TEST_CASE("run ids, git commits, latest~N and labels select the same runs") {
  Workspace w;
  fill(w, bt::comparison_fixture());
  const std::string expected = w.compare("baseline current --format json").out;
  CHECK(w.compare(std::string(bt::k_base_run) + " " + bt::k_current_run + " --format json").out ==
        expected);
  CHECK(w.compare("git:0544d13c latest --format json").out == expected);
  CHECK(w.compare("latest~1 latest --format json").out == expected);
}

TEST_CASE(
    "a run from uncommitted changes shows as +dirty, and git:COMMIT selects clean runs only") {
  Workspace w;
  auto f = bt::comparison_fixture();
  f.current.runs.front().git.dirty = true;  // f00dfeedf00d…, from a dirty work tree
  fill(w, f);
  const Outcome table = w.compare("baseline current");
  CHECK_THAT(table.out, Catch::Contains("git f00dfeedf00d+dirty"));
  CHECK_THAT(w.compare("baseline current --format md").out, Catch::Contains("f00dfeedf00d+dirty"));
  const Outcome log = w.cli("ledger log");
  CHECK_THAT(log.out, Catch::Contains("f00dfeedf00d+dirty") && Catch::Contains("0544d13c0ffe "));
  CHECK_THAT(w.cli("report current --against baseline --format md").out,
             Catch::Contains("f00dfeedf00d+dirty"));
  // The commit selects nothing clean: exit 2, saying that only dirty runs match.
  for (const std::string& command :
       {std::string("compare baseline git:f00dfeed"), std::string("ledger show git:f00dfeed")}) {
    const Outcome dirty = w.cli(command);
    INFO(command);
    CHECK(dirty.code == 2);
    CHECK_THAT(dirty.err, Catch::Contains("only runs made from uncommitted changes") &&
                              Catch::Contains(bt::k_current_run));
  }
  // A clean run of that commit appended later is what the selector picks.
  auto clean = f.current;
  clean.runs.front().git.dirty = false;
  clean.runs.front().header.id = "01JDQ8Z6X00000000000000CMN";
  clean.runs.front().header.time = "2026-11-22T06:00:00.000000Z";
  for (std::size_t i = 0; i < clean.results.size(); ++i) {
    clean.results[i].header.id = "01JDQ8Z6X0000000000000M" + std::to_string(100 + i);
    clean.results[i].run = clean.runs.front().header.id;
  }
  w.append(w.ledger(), batch_of(clean));
  const Outcome chosen = w.compare("baseline git:f00dfeed --format json");
  CHECK(nlohmann::json::parse(chosen.out)["current"]["id"] == "01JDQ8Z6X00000000000000CMN");
}

TEST_CASE("a path to an NDJSON file selects that file's newest run") {
  Workspace w;
  const auto f = bt::comparison_fixture();
  w.append(w.ledger(), batch_of(f.base));
  const fs::path file = w.dir() / "head.ndjson";
  w.append(file, batch_of(f.current));
  const Outcome o = w.compare("baseline ./head.ndjson --format json");
  INFO(o.err);
  CHECK(o.code == 1);
  CHECK(nlohmann::json::parse(o.out)["current"]["id"] == bt::k_current_run);
  const Outcome absent = w.compare("baseline ./absent.ndjson");
  CHECK(absent.code == 2);
  CHECK_THAT(absent.err, Catch::Contains("absent.ndjson") && Catch::Contains("not a file"));
}

TEST_CASE("--base-runs pools the samples of the last K base runs") {
  Workspace w;
  const auto f = bt::comparison_fixture();
  w.append(w.ledger(), batch_of(older_base(f)));
  fill(w, f);
  const Outcome o = w.compare("baseline current --base-runs 2 --format json");
  INFO(o.err);
  const auto json = nlohmann::json::parse(o.out);
  CHECK(json["base"]["runs"].size() == 2);
  CHECK(json["cases"][0]["base"]["n"] == 20);
  const Outcome more = w.compare("baseline current --base-runs 5 --format json");
  CHECK_THAT(more.err, Catch::Contains("only 2 runs match \"baseline\"; pooling those"));
}

TEST_CASE("--fail-on inconclusive adds to regression rather than replacing it") {
  Workspace w;
  // sort/uniform regresses (+12%), sqlite/insert is inconclusive, sort/mixed unchanged.
  fill(w, only(bt::comparison_fixture(), {"sort/uniform", "sort/mixed", "sqlite/insert"}));
  const Outcome o = w.compare("baseline current --fail-on inconclusive --format json");
  INFO(o.err);
  CHECK(o.code == 1);
  const auto json = nlohmann::json::parse(o.out);
  CHECK(json["gate"] == "fail");
  CHECK(json["options"]["fail_on"] ==
        nlohmann::json::array({"failed", "regression", "missing", "inconclusive"}));
  for (const auto& c : json["cases"]) {
    INFO(c["bench"]);
    CHECK(c["gate"] == (c["verdict"] == "unchanged" ? "pass" : "fail"));
  }
  // Without the inconclusive case only the regression is left, and it still fails.
  Workspace regression_only;
  fill(regression_only, only(bt::comparison_fixture(), {"sort/uniform", "sort/mixed"}));
  CHECK(regression_only.compare("baseline current --fail-on inconclusive").code == 1);
  CHECK(regression_only.compare("baseline current --fail-on missing,new").code == 1);
}

TEST_CASE("--alpha decides whether a change is significant") {
  Workspace w;
  // Six samples a side, 50% slower: the smallest p 6 against 6 can give is 2 / C(12, 6) =
  // 0.0022, significant at 0.05 (two metrics: adjusted 0.0043) but not at 0.001.
  auto f = only(bt::comparison_fixture(), {"sort/mixed"});
  const std::vector<double> six(bt::steady().begin(), bt::steady().begin() + 6);
  const benchledger::Params params{{"n", std::int64_t{2000}}};
  f.base.results.push_back(
      bt::result_with(bt::k_base_run, "01JDQ8Z6X0000000000000B101", "sort/uniform", params, six));
  f.current.results.push_back(bt::result_with(bt::k_current_run, "01JDQ8Z6X0000000000000C101",
                                              "sort/uniform", params, bt::scaled(six, 1.5)));
  fill(w, f);
  const Outcome standard = w.compare("baseline current --format json");
  INFO(standard.err);
  CHECK(standard.code == 1);
  CHECK(verdict_of(standard, "sort/uniform") == "regression");
  const Outcome strict = w.compare("baseline current --alpha 0.001 --format json");
  CHECK(strict.code == 0);
  CHECK(verdict_of(strict, "sort/uniform") == "inconclusive");
  CHECK_THAT(w.compare("baseline current --alpha 0.001").out,
             Catch::Contains("6 samples a side cannot reach significance among 2 comparisons") &&
                 Catch::Contains("need >= 8 a side"));
}

TEST_CASE("--threshold decides how large a change matters") {
  Workspace w;
  fill(w, only(bt::comparison_fixture(), {"sort/uniform", "sort/mixed"}));  // +12%
  const Outcome standard = w.compare("baseline current --format json");
  CHECK(standard.code == 1);
  CHECK(verdict_of(standard, "sort/uniform") == "regression");
  const Outcome wide = w.compare("baseline current --threshold 20 --format json");
  INFO(wide.err);
  CHECK(wide.code == 0);
  CHECK(verdict_of(wide, "sort/uniform") == "unchanged");  // the interval lies inside +-20%
  CHECK(nlohmann::json::parse(wide.out)["options"]["threshold"] == 20.0);
}

TEST_CASE("benchledger.json thresholds apply per benchmark, globs in file order") {
  Workspace w;
  fill(w, only(bt::comparison_fixture(), {"sort/uniform", "sort/mixed"}));  // +12% and +0.3%
  // "sort/*" sorts before "sort/u*": were the keys tried alphabetically, sort/uniform would get
  // 1% and regress.
  std::ofstream(w.dir() / "benchledger.json") << R"({"thresholds": {"sort/u*": 20, "sort/*": 1}})";
  const Outcome o = w.compare("baseline current --format json");
  INFO(o.err);
  CHECK(o.code == 0);
  const auto json = nlohmann::json::parse(o.out);
  for (const auto& c : json["cases"]) {
    INFO(c["bench"]);
    CHECK(c["threshold"] == (c["bench"] == "sort/uniform" ? 20.0 : 1.0));
  }
  CHECK(verdict_of(o, "sort/uniform") == "unchanged");
  // A broken config file is a data error naming the file.
  std::ofstream(w.dir() / "benchledger.json") << R"({"thresholds": {"sort/*": "ten"}})";
  const Outcome broken = w.compare("baseline current");
  CHECK(broken.code == 2);
  CHECK_THAT(broken.err, Catch::Contains("benchledger.json") && Catch::Contains("thresholds"));
}

TEST_CASE("label~N selects the N-th newest run with that label") {
  Workspace w;
  const auto f = bt::comparison_fixture();
  w.append(w.ledger(), batch_of(older_base(f)));
  fill(w, f);
  const Outcome newest = w.compare("baseline~0 current --format json");
  INFO(newest.err);
  CHECK(nlohmann::json::parse(newest.out)["base"]["id"] == bt::k_base_run);
  const Outcome back = w.compare("baseline~1 current --format json");
  INFO(back.err);
  CHECK(nlohmann::json::parse(back.out)["base"]["id"] == "01JDQ8Z6X00000000000000Q1D");
  const Outcome beyond = w.compare("baseline~2 current");
  CHECK(beyond.code == 2);
  CHECK_THAT(beyond.err, Catch::Contains("run selector \"baseline~2\": no run"));
}

TEST_CASE("a missing case fails the gate unless --allow-missing or a remove note accepts it") {
  Workspace w;
  auto f = unchanged_fixture();
  f.base.results.push_back(
      bt::result_with(bt::k_base_run, "01JDQ8Z6X0000000000000B777", "gone/case", {}, bt::steady()));
  fill(w, f);
  const Outcome missing = w.compare("baseline current");
  CHECK(missing.code == 1);
  CHECK_THAT(missing.out, Catch::Contains("gone/case") && Catch::Contains("missing"));
  CHECK(w.compare("baseline current --fail-on regression,missing").code == 1);
  CHECK(w.compare("baseline current --allow-missing").code == 0);
  CHECK(w.compare("baseline current --allow-missing --fail-on missing").code == 2);
  const Outcome bad = w.compare("baseline current --fail-on unchanged");
  CHECK(bad.code == 2);
  CHECK_THAT(bad.err, Catch::Contains("--fail-on unchanged"));

  // A remove note names the case on the base run, the last run that had it.
  REQUIRE(w.cli("ledger note baseline --kind remove --bench gone/case --author ada --text "
                "'merged into sort/mixed'")
              .code == 0);
  const Outcome removed = w.compare("baseline current --format json");
  CHECK(removed.code == 0);
  const auto json = nlohmann::json::parse(removed.out);
  for (const auto& c : json["cases"]) {
    if (c["bench"] == "gone/case") CHECK(c["accepted"]["text"] == "merged into sort/mixed");
  }
  CHECK(w.compare("baseline current --fail-on inconclusive").code == 0);
}

TEST_CASE("a command that fails every run on the current side fails the gate, saying why") {
  Workspace w;
  const auto run = [](const std::string& label) {
    return "run -q --label " + label +
           " --name app --runs 3 --warmup 0 --shell -- 'exit ${FAIL:-0}'";
  };
  REQUIRE(w.cli(run("baseline")).code == 0);
  REQUIRE(w.cli(run("current"), "FAIL=3").code == 1);  // run says a case failed
  for (const char* format : {"table", "md", "junit"}) {
    const Outcome o = w.compare(std::string("baseline current --format ") + format);
    CHECK(o.code == 1);
    CHECK_THAT(o.out, Catch::Contains("failed") && Catch::Contains("exited with status 3"));
  }
  const Outcome json = w.compare("baseline current --format json");
  CHECK(json.code == 1);
  CHECK(verdict_of(json, "app") == "failed");
  CHECK(nlohmann::json::parse(json.out)["gate"] == "fail");
  // No flag lets a failure through.
  CHECK(w.compare("baseline current --allow-missing").code == 1);
}

TEST_CASE("a failed side's remark quotes the failure its result records, also from the ledger") {
  Workspace w;
  const auto run = [](const std::string& label) {
    return "run -q --label " + label +
           " --name app --runs 3 --warmup 0 --shell -- 'exit ${FAIL:-0}'";
  };
  REQUIRE(w.cli(run("baseline")).code == 0);
  REQUIRE(w.cli(run("current"), "FAIL=3").code == 1);
  const Outcome o = w.compare("baseline current --format json");
  CHECK(o.code == 1);
  // The remark itself, not only the run's warning, carries the message.
  const auto json = nlohmann::json::parse(o.out);
  REQUIRE(json["cases"].size() == 1);
  CHECK(json["cases"][0]["remark"] ==
        "the current side failed: error: every run failed (first: run 1 exited with status 3)");
}

TEST_CASE("a failure on the base side only is reported and not held against the change") {
  Workspace w;
  const auto run = [](const std::string& label) {
    return "run -q --label " + label +
           " --name app --runs 3 --warmup 0 --shell -- 'exit ${FAIL:-0}'";
  };
  REQUIRE(w.cli(run("baseline"), "FAIL=4").code == 1);
  REQUIRE(w.cli(run("current")).code == 0);
  const Outcome o = w.compare("baseline current");
  CHECK(o.code == 0);
  CHECK_THAT(o.out, Catch::Contains("the base side failed") &&
                        Catch::Contains("exited with status 4") && Catch::Contains("new"));
}

TEST_CASE("a case that counts errors where the base counted none fails the gate") {
  Workspace w;
  // The third of five runs exits 1 when FLAKY is set: the case measures, with one error.
  const auto run = [](const std::string& label) {
    return "run -q --label " + label +
           " --name app --runs 5 --warmup 0 --shell -- "
           "'n=$(cat count 2>/dev/null || echo 0); echo $((n + 1)) >count; "
           "test -z \"$FLAKY\" || test $n -ne 2'";
  };
  REQUIRE(w.cli(run("baseline")).code == 0);
  fs::remove(w.dir() / "count");
  REQUIRE(w.cli(run("current"), "FLAKY=1").code == 0);
  const Outcome o = w.compare("baseline current --format json");
  CHECK(o.code == 1);
  CHECK(verdict_of(o, "app") == "failed");
  CHECK_THAT(o.out, Catch::Contains("counts 1 error"));
}

TEST_CASE("runs without a case in common exit 2 with nothing to compare, naming both") {
  Workspace w;
  REQUIRE(w.cli("run -q --name old-name --runs 3 --label baseline -- true").code == 0);
  REQUIRE(w.cli("run -q --name new-name --runs 3 --label current -- true").code == 0);
  const Outcome o = w.compare("baseline current");
  CHECK(o.code == 2);
  CHECK_THAT(o.err, Catch::Contains("nothing to compare") &&
                        Catch::Contains("(baseline) with 1 case") &&
                        Catch::Contains("(current) with 1 case"));
}

TEST_CASE("differing environments warn on every format, and fail with --require-same-env") {
  Workspace w;
  auto f = unchanged_fixture();
  f.current.runs.front().env.os.kernel = "6.9.0-test";
  f.current.runs.front().env.fingerprint = std::string(64, 'b');
  fill(w, f);
  CHECK_THAT(w.compare("baseline current").out, Catch::Contains("os.kernel"));
  CHECK_THAT(w.compare("baseline current --format md").out, Catch::Contains("os.kernel"));
  const Outcome json = w.compare("baseline current --format json");
  CHECK_THAT(json.err, Catch::Contains("os.kernel"));
  CHECK(nlohmann::json::parse(json.out)["environment_differences"].size() == 1);
  CHECK_THAT(w.compare("baseline current --format csv").err, Catch::Contains("os.kernel"));
  const Outcome strict = w.compare("baseline current --require-same-env");
  CHECK(strict.code == 2);
  CHECK_THAT(strict.err, Catch::Contains("environments differ") && Catch::Contains("os.kernel"));
}

TEST_CASE("usage and data errors exit 2 with a message") {
  Workspace w;
  fill(w, bt::comparison_fixture());
  const Outcome unknown = w.compare("baseline nosuchlabel");
  CHECK(unknown.code == 2);
  CHECK_THAT(unknown.err, Catch::Contains("run selector \"nosuchlabel\": no run"));
  CHECK(w.compare("baseline current --format xml").code == 2);
  CHECK(w.compare("baseline").code == 2);
  CHECK(w.compare("baseline current --alpha 2").code == 2);
  CHECK(w.compare("baseline~x current").code == 2);
  std::ofstream(w.dir() / "broken.ndjson") << "{\"schema\":\"benchledger/1\"}\n";
  const Outcome broken = w.compare("baseline ./broken.ndjson");
  CHECK(broken.code == 2);
  CHECK_FALSE(broken.err.empty());
}
