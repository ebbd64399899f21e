// A BENCHLEDGER_MAIN program takes the flags of `benchledger run` and appends one run with
// its results: a crashed and a timed-out case are recorded as failed while the rest complete,
// an operation throwing on every 10th call gives errors = ops / 10, and every record is valid.
#include <catch2/catch.hpp>

#include "run_support.hpp"

using namespace benchledger::run_test;
using nlohmann::json;

namespace {

std::map<std::string, json> by_case(const std::vector<json>& results) {
  std::map<std::string, json> cases;
  for (const auto& r : results) {
    std::string key = r["bench"].get<std::string>();
    for (const auto& [name, value] : r["params"].items()) key += " " + name + "=" + value.dump();
    cases[key] = r;
  }
  return cases;
}

}  // namespace

TEST_CASE(
    "a native program records crashed and timed-out cases as failed and measures the others") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto result = run(RUN_NATIVE_FIXTURE, {"--ledger", ledger.string(), "--repetitions", "3",
                                               "--warmup", "1", "--label", "current"});
  INFO(result.err);
  CHECK(result.status == 1);  // a case failed
  const auto records = read_ledger(ledger);
  const json& run_record = records.at(0);
  CHECK(run_record["source"] == "native");
  CHECK(run_record["label"] == "current");
  // The environment describes the program's own code: its compiler and build type.
  CHECK_THAT(run_record["env"]["runtimes"]["compiler"].get<std::string>(),
             Catch::StartsWith("gcc") || Catch::StartsWith("clang"));
  CHECK(run_record["env"]["runtimes"]["build_type"] == BENCHLEDGER_EXPECTED_BUILD_TYPE);
  const auto cases = by_case(results_of(records));
  REQUIRE(cases.size() == 7);

  const json& crash = cases.at("fixture/crash");
  CHECK(crash["primary"] == "failed");
  CHECK(crash["failure"]["kind"] == "crashed");
  CHECK(crash["failure"]["message"] == "killed by signal 11 (SIGSEGV)");
  const json& hang = cases.at("fixture/hang");
  CHECK(hang["failure"]["kind"] == "timeout");
  CHECK(result.seconds < 30);

  const json& throws = cases.at("fixture/every_tenth_throws");
  CHECK(throws["ops"] == 1500);
  CHECK(throws["errors"] == 150);
  CHECK(throws["metrics"]["latency"]["summary"]["n"] == 1500);

  for (const char* key : {"fixture/spin us=5", "fixture/spin us=20"}) {
    const json& spin = cases.at(key);
    CHECK(spin["primary"] == "time");
    CHECK(spin["metrics"]["time"]["samples"].size() == 3);
    CHECK(spin["errors"] == 0);
  }
  CHECK(cases.at("fixture/spin us=20")["metrics"]["time"]["value"].get<double>() >= 20'000);
  const json& four = cases.at("fixture/workers concurrency=4");
  const json& one = cases.at("fixture/workers concurrency=1");
  // The fixture's workers fail unless all of a case's workers are inside an operation at once:
  // proof that concurrency=4 runs four, where a ratio of rates would bet on the machine's load.
  INFO("throughput: 1 worker " << one["metrics"]["throughput"]["value"] << " ops/s, 4 workers "
                               << four["metrics"]["throughput"]["value"] << " ops/s");
  CHECK(four["primary"] != "failed");
  CHECK(four["errors"] == 0);
  CHECK(one["errors"] == 0);
  CHECK(four["params"]["concurrency"] == 4);

  CHECK(schema_problems(ledger).empty());
  CHECK_THAT(result.out, Catch::Contains("fixture/crash") && Catch::Contains("FAILED (crashed)"));
  CHECK_THAT(result.err, Catch::Contains("case fixture/hang failed (timeout)"));
}

TEST_CASE(
    "a native program takes run's flags: --filter, --param, --dry-run, --format json, --help") {
  const auto listed =
      run(RUN_NATIVE_FIXTURE, {"--list", "--filter", "spin|workers", "--param", "us=7"});
  REQUIRE(listed.status == 0);
  CHECK(lines_of(listed.out) == std::vector<std::string>{"fixture/spin us=7",
                                                         "fixture/workers concurrency=1",
                                                         "fixture/workers concurrency=4"});
  const auto dry =
      run(RUN_NATIVE_FIXTURE, {"--filter", "spin", "--param", "us=7", "--repetitions", "2",
                               "--min-time", "0.001", "--dry-run", "--format", "json"});
  INFO(dry.err);
  REQUIRE(dry.status == 0);
  const auto lines = lines_of(dry.out);
  REQUIRE(lines.size() == 2);
  CHECK(json::parse(lines[0])["type"] == "run");
  CHECK(json::parse(lines[1])["params"] == json{{"us", 7}});
  const auto help = run(RUN_NATIVE_FIXTURE, {"--help"});
  CHECK(help.status == 0);
  for (const char* flag : {"--ledger", "--label", "--baseline", "--filter", "--repetitions",
                           "--warmup", "--min-time", "--format", "--quiet"}) {
    CHECK_THAT(help.out, Catch::Contains(flag));
  }
  const auto bad = run(RUN_NATIVE_FIXTURE, {"--param", "size=1", "--dry-run"});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Catch::Contains("no benchmark of this run declares a param \"size\""));
}

TEST_CASE("benchledger run runs the native programs a config file lists, as one run") {
  ScratchDir dir;
  std::ofstream(dir.path() / "benchledger.json")
      << json{{"project", "fixture-project"}, {"run", {{"binaries", {RUN_NATIVE_FIXTURE}}}}}.dump();
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto result = run_cli({"run", "--ledger", ledger.string(), "--filter", "spin",
                               "--repetitions", "2", "--min-time", "0.001"},
                              dir.path());
  INFO(result.err);
  REQUIRE(result.status == 0);
  const auto records = read_ledger(ledger);
  REQUIRE(records.size() == 3);
  CHECK(records[0]["project"] == "fixture-project");
  CHECK(records[1]["run"] == records[0]["id"]);
  CHECK(records[2]["bench"] == "fixture/spin");
  CHECK(schema_problems(ledger).empty());
}

TEST_CASE("an interrupted native program leaves no case running behind it") {
  ScratchDir dir;
  const std::string fixture = RUN_NATIVE_FIXTURE;
  const auto before = processes_matching(fixture);
  const pid_t program = start(fixture, {"--ledger", (dir.path() / "l.ndjson").string(), "--filter",
                                        "hang", "--timeout", "60"});
  // The program and the forked child running the hanging case.
  poll_until([&] { return processes_matching(fixture) >= before + 2; });
  REQUIRE(processes_matching(fixture) == before + 2);
  ::kill(program, SIGINT);
  int status = 0;
  ::waitpid(program, &status, 0);
  poll_until([&] { return processes_matching(fixture) <= before; });
  CHECK(processes_matching(fixture) == before);
}
