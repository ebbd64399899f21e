// A case counted under callgrind keeps a profile of its functions (over every process of a
// command) that the record names by hash and `ledger verify` checks, and `benchledger explain`
// puts the one function a head added work to first, with at least 90% of the case's change, as
// compare's Markdown, JSON and table do for a regressed case.
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include <benchledger/record.hpp>

#include "run_support.hpp"

using namespace benchledger::run_test;
using nlohmann::json;

namespace {

// `run --measure instructions:valgrind` of the fixture through the shell (so that the count
// covers two processes: sh, and the fixture it starts), as case `fixture`, labelled `label`.
void run_side(const std::filesystem::path& ledger, const std::string& side,
              const std::string& fixture = EXPLAIN_FIXTURE, const std::string& label = "") {
  // `; :` keeps the shell from replacing itself with the fixture: it forks a child.
  const std::string command = "EXPLAIN_SIDE=" + side + " " + fixture + " >/dev/null; :";
  const auto r = run_cli({"run", "--ledger", ledger.string(), "--label",
                          label.empty() ? side : label, "--measure", "instructions:valgrind",
                          "--name", "fixture", "--quiet", "--shell", "--", command});
  INFO(r.err);
  REQUIRE(r.status == 0);
}

std::filesystem::path artifacts_of(const std::filesystem::path& ledger) {
  return ledger.string() + ".artifacts";
}

}  // namespace

TEST_CASE("a command counted under callgrind keeps its functions' profile, and verify checks it") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  run_side(ledger, "base");
  const json result = results_of(read_ledger(ledger)).at(0);
  REQUIRE(result.contains("profile"));
  const std::string hash = result["profile"];
  const auto artifact = artifacts_of(ledger) / hash;
  const std::string bytes = read_file(artifact);
  REQUIRE(benchledger::sha256_hex(bytes) == hash);
  CHECK(schema_problems(ledger).empty());

  const json profile = json::parse(bytes);
  CHECK(profile["format"] == "benchledger-profile/1");
  CHECK(profile["processes"] == 2);  // the shell and the fixture
  // The functions' self costs add up to the case's count.
  CHECK(profile["total"]["instructions"].get<double>() ==
        result["metrics"]["instructions"]["value"].get<double>());
  CHECK(profile["total"]["estimated_cycles"].get<double>() ==
        result["metrics"]["estimated_cycles"]["value"].get<double>());
  const json& first = profile["functions"].at(0);
  CHECK(first["name"] == "(anonymous namespace)::base_work(unsigned long)");
  CHECK(first["file"].get<std::string>().ends_with("explain_fixture.cpp"));
  CHECK(first["line"].get<int>() > 0);
  CHECK(profile["functions"].size() <= 100);
  CHECK(profile["other"]["functions"].get<int>() > 0);  // the rest of libc and the loader

  const auto verify = [&] { return run_cli({"ledger", "verify", "--ledger", ledger.string()}); };
  REQUIRE(verify().status == 0);
  std::ofstream(artifact, std::ios::app) << ' ';
  const auto changed = verify();
  CHECK(changed.status == 1);
  CHECK_THAT(changed.err, Catch::Contains("profile: artifact") && Catch::Contains("was changed"));
  std::filesystem::remove(artifact);
  const auto missing = verify();
  CHECK(missing.status == 1);
  CHECK_THAT(missing.err, Catch::Contains(hash + " is missing"));
}

TEST_CASE("a dry run keeps its profiles in --artifacts, with the call graph from main down") {
  ScratchDir dir;
  const std::string command =
      "EXPLAIN_SIDE=base " + std::string(EXPLAIN_FIXTURE) + " >/dev/null; :";
  const auto refused =
      run_cli({"run", "--artifacts", (dir.path() / "kept").string(), "--measure",
               "instructions:valgrind", "--name", "fixture", "--shell", "--", command});
  CHECK(refused.status == 2);
  CHECK_THAT(refused.err, Catch::Contains("--artifacts keeps the profiles of a --dry-run"));

  const auto r = run_cli({"run", "--dry-run", "--format", "json", "--artifacts",
                          (dir.path() / "kept").string(), "--measure", "instructions:valgrind",
                          "--name", "fixture", "--quiet", "--shell", "--", command});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json result = json::parse(r.out.substr(r.out.find('\n') + 1));
  const std::string hash = result.at("profile");
  const json profile = json::parse(read_file(dir.path() / "kept" / hash));
  // main calls base_work, whose inclusive cost is its own: the call graph has both, and the call.
  const json& graph = profile.at("call_graph");
  const auto index = [&](const std::string& name) {
    for (std::size_t i = 0; i < graph["functions"].size(); ++i)
      if (graph["functions"][i][0] == name) return static_cast<int>(i);
    FAIL("no " << name << " in the call graph: " << graph["functions"].dump());
    return -1;
  };
  const int main = index("main");
  const int work = index("(anonymous namespace)::base_work(unsigned long)");
  bool called = false;
  for (const json& call : graph["calls"]) {
    if (call[0] == main && call[1] == work) {
      called = true;
      CHECK(call[2].get<double>() ==
            Approx(profile["functions"][0]["self"]["instructions"].get<double>()).epsilon(0.01));
    }
  }
  CHECK(called);
  CHECK(graph["functions"][main][1].get<double>() >= graph["functions"][work][1].get<double>());
}

TEST_CASE(
    "explain puts the function the head added work to first, with at least 90% of the change") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  run_side(ledger, "base");
  run_side(ledger, "head");

  const auto r =
      run_cli({"explain", "base", "head", "--ledger", ledger.string(), "--format", "json"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json explained = json::parse(r.out);
  REQUIRE(explained["cases"].size() == 1);
  const json& c = explained["cases"][0];
  CHECK(c["bench"] == "fixture");
  const json& top = c["functions"].at(0);
  CHECK(top["name"] == "(anonymous namespace)::added_work(unsigned long)");
  CHECK(top["base"].is_null());  // the base never calls it
  CHECK(top["head"].get<double>() > 0);
  CHECK(top["share"].get<double>() >= 0.9);
  CHECK(top["file"].get<std::string>().ends_with("explain_fixture.cpp"));
  // The base's work did not change: it is the same count on both sides.
  for (const json& f : c["functions"]) {
    if (f["name"] == "(anonymous namespace)::base_work(unsigned long)") CHECK(f["change"] == 0);
  }

  const auto table = run_cli({"explain", "base", "head", "fixture", "--ledger", ledger.string()});
  REQUIRE(table.status == 0);
  const auto lines = lines_of(table.out);
  REQUIRE(lines.size() >= 4);
  CHECK_THAT(lines[1], Catch::StartsWith("fixture: instructions "));
  CHECK_THAT(lines[2], Catch::StartsWith("  function"));
  CHECK_THAT(lines[3], Catch::StartsWith("  (anonymous namespace)::added_work(unsigned long)"));

  // compare's Markdown: under the comparison, a collapsed table for the regressed case.
  const auto md =
      run_cli({"compare", "base", "head", "--ledger", ledger.string(), "--format", "md"});
  CHECK(md.status == 1);  // the instructions regressed
  CHECK_THAT(md.out, Catch::Contains("### Where the regressed cases' instructions went"));
  CHECK_THAT(md.out,
             Catch::Contains("<details><summary>fixture: instructions ") &&
                 Catch::Contains("most in (anonymous namespace)::added_work(unsigned long)"));
  CHECK_THAT(md.out,
             Catch::Contains("| `(anonymous namespace)::added_work(unsigned long)` | —* |"));

  // compare's JSON: every function, as explain's JSON has them; its table: a short table.
  const auto compared =
      run_cli({"compare", "base", "head", "--ledger", ledger.string(), "--format", "json"});
  CHECK(compared.status == 1);
  const json section = json::parse(compared.out).at("profiles");
  CHECK(section["cases"] == explained["cases"]);
  const auto compared_table = run_cli({"compare", "base", "head", "--ledger", ledger.string()});
  CHECK(compared_table.status == 1);
  CHECK_THAT(compared_table.out,
             Catch::Contains("\nwhere the regressed cases' instructions went: ") &&
                 Catch::Contains("\nfixture: instructions ") &&
                 Catch::Contains("\n  (anonymous namespace)::added_work(unsigned long)  "));

  const auto unknown =
      run_cli({"explain", "base", "head", "nothing*", "--ledger", ledger.string()});
  CHECK(unknown.status == 2);
  CHECK_THAT(unknown.err, Catch::Contains("case nothing*: matches no case"));
}

TEST_CASE("a head that inlines a function differently shows it removed and its caller grown") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  run_side(ledger, "base");
  run_side(ledger, "base", EXPLAIN_FIXTURE_INLINED, "inlined");

  const auto r =
      run_cli({"explain", "base", "inlined", "--ledger", ledger.string(), "--format", "json"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json explained = json::parse(r.out);
  REQUIRE(explained["cases"].size() == 1);
  const json& functions = explained["cases"][0]["functions"];
  const auto find = [&](const std::string& name) {
    for (const json& f : functions) {
      if (f["name"] == name) return f;
    }
    FAIL("no function " << name << " in " << functions.dump());
    return json();
  };
  // The same work, moved from base_work into main: base_work is reported removed, not paired with
  // main, and main grows by about what base_work cost (the call and its frame are gone).
  const json base_work = find("(anonymous namespace)::base_work(unsigned long)");
  CHECK(base_work["head"].is_null());
  const double moved = base_work["base"].get<double>();
  CHECK(base_work["change"].get<double>() == -moved);
  const json caller = find("main");
  CHECK(caller["change"].get<double>() > 0.9 * moved);
  CHECK(caller["change"].get<double>() < 1.1 * moved);
  // The two largest changes are these two.
  const std::set<std::string> top = {functions.at(0)["name"], functions.at(1)["name"]};
  CHECK(top == std::set<std::string>{"main", "(anonymous namespace)::base_work(unsigned long)"});
}
