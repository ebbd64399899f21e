// The case loop of command mode on a scripted executor: each run's wall, user and sys times are
// the script's, so that what the loop records (warm-up left out, failed runs counted, a timeout
// at the spec's limit, --prepare before each run and --cleanup once after the last) is checked
// exactly, without starting a process or waiting for one.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "engine/command.hpp"
#include "support/scripted_executor.hpp"

using namespace benchledger;
using test_support::Answer;
using test_support::ScriptedExecutor;
using Words = std::vector<std::string>;

namespace {

const Words k_app = {"./app", "--size", "3"};

engine::CommandCase app_case() {
  engine::CommandCase c;
  c.bench = "app";
  c.argv = k_app;
  return c;
}

Words shell(const std::string& script) {
  return {"/bin/sh", "-c", script};
}

// The argv of every call, in order.
std::vector<Words> argvs(const ScriptedExecutor& fake) {
  std::vector<Words> out;
  for (const test_support::Call& call : fake.calls()) out.push_back(call.argv);
  return out;
}

}  // namespace

TEST_CASE("the measured runs' scripted times are the samples, the warm-up's left out") {
  ScriptedExecutor fake;
  fake.expect(k_app, Answer().takes(8, 4, 2));  // warm-up
  fake.expect(k_app, Answer().takes(0.25, 0.125, 0.0625).peaks_at(2048));
  fake.expect(k_app, Answer().takes(0.5, 0.375, 0.125));
  fake.expect(k_app, Answer().takes(0.75, 0.5, 0.25));
  engine::CommandSettings settings;
  settings.runs = 3;
  settings.warmup = 1;
  const engine::CommandOutcome outcome = engine::run_command_case(app_case(), settings, {}, fake);
  REQUIRE(outcome.measurement);
  const engine::CommandMeasurement& m = *outcome.measurement;
  CHECK(m.wall_ms == std::vector<double>{250, 500, 750});
  CHECK(m.user_ms == std::vector<double>{125, 375, 500});
  CHECK(m.sys_ms == std::vector<double>{62.5, 125, 250});
  CHECK(m.max_rss_bytes == std::vector<double>{2048.0 * 1024, 0, 0});
  CHECK(m.runs == 3);
  CHECK(m.errors == 0);
  CHECK(m.warnings.empty());
  CHECK(outcome.seconds == 9.5);  // the warm-up's 8 s too, on the fake clock
  CHECK(fake.unused().empty());
}

TEST_CASE("a failed run is counted and left out of the samples, its stderr quoted") {
  ScriptedExecutor fake;
  fake.expect(k_app, Answer().takes(0.25));
  fake.expect(k_app, Answer().exits(3).prints_to_stderr("disk full\n").takes(0.5));
  fake.expect(k_app, Answer().killed_by(11).takes(0.5));
  fake.expect(k_app, Answer().takes(0.75));
  engine::CommandSettings settings;
  settings.runs = 4;
  settings.warmup = 0;
  const engine::CommandOutcome outcome = engine::run_command_case(app_case(), settings, {}, fake);
  REQUIRE(outcome.measurement);
  CHECK(outcome.measurement->wall_ms == std::vector<double>{250, 750});
  CHECK(outcome.runs == 4);
  CHECK(outcome.errors == 2);
  REQUIRE(outcome.measurement->warnings.size() == 1);
  CHECK_THAT(outcome.measurement->warnings[0],
             Catch::Contains("2 of 4 runs failed") &&
                 Catch::Contains("first: run 2 exited with status 3"));

  // Every run failing gives the case a failure that quotes the first one's stderr.
  ScriptedExecutor failing;
  failing.expect(k_app, Answer().exits(1).prints_to_stderr("no input\n")).times(4);
  const engine::CommandOutcome failed = engine::run_command_case(app_case(), settings, {}, failing);
  REQUIRE(failed.failure);
  CHECK(failed.failure->kind == "error");
  CHECK(failed.failure->output == "no input");
  CHECK(failed.errors == 4);
}

TEST_CASE("a run past --timeout ends at it on the clock and counts as a timeout") {
  ScriptedExecutor fake;
  fake.expect(k_app, Answer().takes(0.25));
  fake.expect(k_app, Answer().takes(30));  // killed at 2 s
  fake.expect(k_app, Answer().takes(1.5));
  engine::CommandSettings settings;
  settings.runs = 3;
  settings.warmup = 0;
  settings.timeout = 2;
  const engine::CommandOutcome outcome = engine::run_command_case(app_case(), settings, {}, fake);
  for (const test_support::Call& call : fake.calls()) CHECK(call.timeout_s == 2.0);
  REQUIRE(outcome.measurement);
  CHECK(outcome.measurement->wall_ms == std::vector<double>{250, 1500});
  CHECK(outcome.errors == 1);
  REQUIRE(outcome.measurement->warnings.size() == 1);
  CHECK_THAT(outcome.measurement->warnings[0],
             Catch::Contains("first: run 2 timed out and was killed"));
  CHECK(outcome.seconds == 3.75);  // 0.25 + 2 + 1.5: the late run ended at the timeout

  // Every run late: the case failed as a timeout, as a native case past its time limit.
  ScriptedExecutor late;
  late.expect(k_app, Answer().takes(30)).times(3);
  const engine::CommandOutcome timed_out = engine::run_command_case(app_case(), settings, {}, late);
  REQUIRE(timed_out.failure);
  CHECK(timed_out.failure->kind == "timeout");
  CHECK(timed_out.errors == 3);
  CHECK(timed_out.seconds == 6);
}

TEST_CASE("--prepare runs before every run, the warm-up's too, and --cleanup once after the last") {
  engine::CommandCase c = app_case();
  c.prepare = "rm -rf out";
  c.cleanup = "rm -rf out cache";
  ScriptedExecutor fake;
  fake.expect(shell("rm -rf out")).always();
  fake.expect(k_app, Answer().takes(0.5)).times(3);
  fake.expect(shell("rm -rf out cache"));
  engine::CommandSettings settings;
  settings.runs = 2;
  settings.warmup = 1;
  const engine::CommandOutcome outcome = engine::run_command_case(c, settings, {}, fake);
  REQUIRE(outcome.measurement);
  CHECK(outcome.measurement->wall_ms == std::vector<double>{500, 500});
  const Words prepare = shell("rm -rf out"), cleanup = shell("rm -rf out cache");
  CHECK(argvs(fake) == std::vector<Words>{prepare, k_app, prepare, k_app, prepare, k_app, cleanup});

  // A failing --prepare fails the case before its run; --cleanup still runs, and fails only
  // with a warning.
  ScriptedExecutor failing;
  failing.expect(shell("rm -rf out"));
  failing.expect(k_app, Answer().takes(0.5));
  failing.expect(shell("rm -rf out"), Answer().exits(1).prints_to_stderr("busy\n"));
  failing.expect(shell("rm -rf out cache"), Answer().exits(1));
  const engine::CommandOutcome failed = engine::run_command_case(c, settings, {}, failing);
  REQUIRE(failed.failure);
  CHECK(failed.failure->message == "--prepare exited with status 1");
  CHECK(failed.failure->output == "busy");
  CHECK(argvs(failing) == std::vector<Words>{prepare, k_app, prepare, cleanup});
  CHECK(failing.unused().empty());
}
