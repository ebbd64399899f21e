// Command mode: each run timed from spawn to wait4 (never shorter than a sleep, twice as long for
// a sleep twice as long), its own rusage, a non-zero exit counted as an error, a run past
// --timeout killed and counted, and {name} placeholders filled for every combination of params.
#include <catch2/catch.hpp>

#include <numeric>

#include "engine/command.hpp"
#include "engine/records.hpp"
#include "engine_test_support.hpp"

using namespace benchledger;
namespace test = benchledger::test;

namespace {

// The runs of `sleep SECONDS`, and how long the test's own clock saw them take in all.
struct TimedSleeps {
  std::vector<double> wall_ms;
  double elapsed_ms = 0;
};

TimedSleeps time_sleeps(const std::string& seconds, int runs) {
  engine::CommandCase c;
  c.bench = "sleep " + seconds;
  c.argv = {"sleep", seconds};
  engine::CommandSettings settings;
  settings.runs = runs;
  settings.warmup = 0;
  const auto start = engine::now_ns();
  const auto outcome = engine::run_command_case(c, settings, {});
  const auto end = engine::now_ns();
  REQUIRE(outcome.measurement);
  REQUIRE(outcome.measurement->wall_ms.size() == static_cast<std::size_t>(runs));
  CHECK(outcome.measurement->errors == 0);
  return {outcome.measurement->wall_ms, static_cast<double>(end - start) / 1e6};
}

double smallest(const std::vector<double>& values) {
  return *std::min_element(values.begin(), values.end());
}

}  // namespace

TEST_CASE("a sleep's runs are timed from spawn to wait4: twice the sleep measures twice as long") {
  // Nothing here bets on a quiet machine. Load only lengthens a run, so "no run is shorter than
  // its sleep" and "the runs together are no longer than the test's own clock around them" hold
  // on any load. The sleeps are compared with each other, least disturbed run against least
  // disturbed run, not with a figure of milliseconds: a delay of d ms to start or wake a run
  // makes the ratio (200 + d) / (100 + d), inside the band below for any d up to 60 ms, and the
  // least of 8 runs is far from that on a loaded machine.
  const TimedSleeps once = time_sleeps("0.1", 8);
  const TimedSleeps twice = time_sleeps("0.2", 8);
  for (double wall : once.wall_ms) CHECK(wall >= 100);
  for (double wall : twice.wall_ms) CHECK(wall >= 200);
  const auto total = [](const std::vector<double>& walls) {
    return std::accumulate(walls.begin(), walls.end(), 0.0);
  };
  CHECK(total(once.wall_ms) <= once.elapsed_ms);
  CHECK(total(twice.wall_ms) <= twice.elapsed_ms);
  const double ratio = smallest(twice.wall_ms) / smallest(once.wall_ms);
  INFO("least of 8 runs: sleep 0.1 " << smallest(once.wall_ms) << " ms, sleep 0.2 "
                                     << smallest(twice.wall_ms) << " ms");
  CHECK(ratio > 1.6);
  CHECK(ratio < 2.4);
}

TEST_CASE("user time and max RSS are each run's own, from wait4") {
  const std::string python = test::python3();
  // 80 MiB touched, then a tiny run: the second must not report the first one's peak.
  const auto big = engine::run_command_once({python, "-c", "b = bytearray(80 * 1024 * 1024)"},
                                            std::nullopt, false);
  const auto small = engine::run_command_once({"true"}, std::nullopt, false);
  REQUIRE(big.ok());
  REQUIRE(small.ok());
  CHECK(big.max_rss_bytes >= (80 << 20));
  // `true` itself needs about 1 MiB; this process's own resident set (tens of MiB with the
  // test framework) must not show through.
  CHECK(small.max_rss_bytes < (4 << 20));
  const auto busy = engine::run_command_once({python, "-c", "sum(i * i for i in range(3_000_000))"},
                                             std::nullopt, false);
  REQUIRE(busy.ok());
  // Work, not time: the loop needs that much CPU on any machine, loaded or not. One thread
  // cannot use more CPU time than the time that passed, so user <= wall is a law that load only
  // widens (5% for the clocks' different granularity).
  CHECK(busy.user_ms > 50);
  CHECK(busy.user_ms <= busy.wall_ms * 1.05);
}

TEST_CASE("without benchledger-spawn, runs still work and the max RSS caveat is a warning") {
  ::setenv("BENCHLEDGER_SPAWN_HELPER", "/nonexistent/benchledger-spawn", 1);
  engine::CommandRunner runner;
  CHECK_FALSE(runner.own_max_rss());
  const auto run = runner.run({"true"}, std::nullopt, false);
  CHECK(run.ok());
  engine::CommandCase c;
  c.bench = "true";
  c.argv = {"true"};
  engine::CommandSettings settings;
  settings.runs = 2;
  const auto outcome = engine::run_command_case(c, settings, {});
  ::unsetenv("BENCHLEDGER_SPAWN_HELPER");
  REQUIRE(outcome.measurement);
  REQUIRE(outcome.measurement->warnings.size() == 1);
  CHECK_THAT(outcome.measurement->warnings[0], Catch::Contains("benchledger-spawn was not found"));
  CHECK(engine::CommandRunner().own_max_rss());
}

TEST_CASE("a non-zero exit is an error and is left out of the timings") {
  engine::CommandCase c;
  c.bench = "flaky";
  // Fails on every odd run: a counter in a file the prepare step does not touch.
  test::ScratchDir dir;
  const std::string counter = (dir.path() / "n").string();
  c.argv = {"/bin/sh", "-c",
            "n=$(cat " + counter + " 2>/dev/null || echo 0); echo $((n+1)) > " + counter +
                "; test $((n % 2)) -eq 0"};
  engine::CommandSettings settings;
  settings.runs = 6;
  settings.warmup = 0;
  const auto outcome = engine::run_command_case(c, settings, {});
  REQUIRE(outcome.measurement);
  CHECK(outcome.measurement->runs == 6);
  CHECK(outcome.measurement->errors == 3);
  CHECK(outcome.measurement->wall_ms.size() == 3);
  REQUIRE(outcome.measurement->warnings.size() == 1);
  CHECK_THAT(outcome.measurement->warnings[0],
             Catch::Contains("3 of 6 runs failed") && Catch::Contains("exited with status 1"));
  const ResultRecord r = engine::command_result(new_ulid(), c, outcome);
  CHECK(r.ops == 6);
  CHECK(r.errors == 3);
  CHECK(r.primary == "wall");
}

TEST_CASE("a run past the timeout is killed with its process group and counted") {
  const auto start = engine::now_ns();
  // The shell's child sleeps too: killing only the shell would leave it running.
  const auto run = engine::run_command_once({"/bin/sh", "-c", "sleep 20; true"}, 0.3, false);
  const double elapsed_s = static_cast<double>(engine::now_ns() - start) / 1e9;
  CHECK(run.timed_out);
  CHECK_FALSE(run.ok());
  CHECK(elapsed_s < 10);  // far from the 20 s of a sleep left running, on any load
  CHECK(run.wall_ms >= 300);
  CHECK(run.describe() == "timed out and was killed");

  engine::CommandCase c;
  c.bench = "always late";
  c.argv = {"sleep", "10"};
  engine::CommandSettings settings;
  settings.runs = 2;
  settings.warmup = 0;
  settings.timeout = 0.2;
  const auto outcome = engine::run_command_case(c, settings, {});
  REQUIRE(outcome.failure);
  CHECK(outcome.failure->kind == "timeout");  // as a native case past its time limit
  CHECK(outcome.errors == 2);
  const ResultRecord r = engine::command_result(new_ulid(), c, outcome);
  CHECK(r.primary == "failed");
  CHECK(r.ops == 2);
  CHECK(r.errors == 2);
}

TEST_CASE("a command that cannot be started is an error naming it") {
  CHECK_THROWS_WITH(engine::run_command_once({"no-such-command-benchledger"}, std::nullopt, false),
                    Catch::Contains("cannot run \"no-such-command-benchledger\""));
}

TEST_CASE("placeholders are filled for every combination of params, the first slowest") {
  engine::CommandSpec spec;
  spec.command = {"tool", "--n={n}", "--mode", "{mode}"};
  spec.prepare = "rm -f /tmp/x-{n}";
  const auto cases =
      engine::expand_command(spec, {{"n", {"10", "20"}}, {"mode", {"fast", "safe"}}}, std::nullopt);
  REQUIRE(cases.size() == 4);
  CHECK(cases[0].argv == std::vector<std::string>{"tool", "--n=10", "--mode", "fast"});
  CHECK(cases[1].argv == std::vector<std::string>{"tool", "--n=10", "--mode", "safe"});
  CHECK(cases[3].argv == std::vector<std::string>{"tool", "--n=20", "--mode", "safe"});
  CHECK(cases[2].prepare == "rm -f /tmp/x-20");
  // The name leaves out the words of placeholders (and the option whose value one is): the
  // params carry the values.
  CHECK(cases[0].bench == "tool");
  CHECK(cases[0].params.at("n") == ParamValue(std::int64_t{10}));
  CHECK(cases[0].params.at("mode") == ParamValue(std::string("fast")));

  spec.command = {"./app", "--size", "{n}", "--check", "--out={mode}.txt"};
  CHECK(engine::expand_command(spec, {{"n", {"1"}}, {"mode", {"x"}}}, std::nullopt)[0].bench ==
        "./app --check");
  spec.command = {"{mode}"};
  spec.prepare = "rm -f /tmp/x-{n}";
  CHECK(engine::expand_command(spec, {{"n", {"1"}}, {"mode", {"x"}}}, std::nullopt)[0].bench ==
        "mode");

  spec.command = {"tool", "--n={n}", "--mode", "{mode}"};
  spec.shell = true;
  const auto shelled = engine::expand_command(spec, {{"n", {"1"}}, {"mode", {"x"}}}, std::nullopt);
  CHECK(shelled[0].argv == std::vector<std::string>{"/bin/sh", "-c", "tool --n=1 --mode x"});

  CHECK_THROWS_WITH(
      engine::expand_command(spec, {{"size", {"1"}}, {"n", {"1"}}, {"mode", {"x"}}}, std::nullopt),
      Catch::Contains("the command has no {size} placeholder"));
  CHECK_THROWS_WITH(engine::expand_command(spec, {{"n", {"1"}}}, std::nullopt),
                    "the command has the placeholder {mode} but no param mode gives it values: add "
                    "--param mode=v1,v2,...");
}

TEST_CASE("prepare runs before every run and cleanup once after the last") {
  test::ScratchDir dir;
  const std::string log = (dir.path() / "log").string();
  engine::CommandCase c;
  c.bench = "logged";
  c.argv = {"/bin/sh", "-c", "echo run >> " + log};
  c.prepare = "echo prepare >> " + log;
  c.cleanup = "echo cleanup >> " + log;
  engine::CommandSettings settings;
  settings.runs = 2;
  settings.warmup = 1;
  const auto outcome = engine::run_command_case(c, settings, {});
  REQUIRE(outcome.measurement);
  const auto content = test::shell("cat " + log).out;
  CHECK(content == "prepare\nrun\nprepare\nrun\nprepare\nrun\ncleanup\n");
}
