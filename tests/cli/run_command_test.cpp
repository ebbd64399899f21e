// `benchledger run -- CMD` end to end: one run and one result per param combination appended
// to a real ledger, schema-valid; failures, timeouts and usage errors reported; the progress
// line only on a terminal and never with --quiet.
#include <catch2/catch.hpp>

#include "run_support.hpp"

using namespace benchledger::run_test;
using nlohmann::json;

TEST_CASE("run -- CMD appends one run and one result per param combination") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto result = run_cli({"run", "--ledger", ledger.string(), "--runs", "3", "--warmup", "0",
                               "--param", "ms=10,20", "--", "sleep", "0.0{ms}"});
  INFO(result.err);
  REQUIRE(result.status == 0);
  const auto records = read_ledger(ledger);
  REQUIRE(records.size() == 3);
  const json& run = records[0];
  CHECK(run["type"] == "run");
  CHECK(run["source"] == "command");
  CHECK(run["label"].is_null());
  CHECK(run["env"]["fingerprint"].get<std::string>().size() == 64);
  const auto command = run["command"].get<std::vector<std::string>>();
  REQUIRE(command.size() >= 3);
  CHECK(command[1] == "run");
  CHECK(command.back() == "0.0{ms}");
  for (std::size_t i = 1; i < 3; ++i) {
    const json& r = records[i];
    CHECK(r["run"] == run["id"]);
    CHECK(r["bench"] == "sleep");  // the params carry the values: no `{ms}` in the name
    CHECK(r["primary"] == "wall");
    CHECK(r["ops"] == 3);
    CHECK(r["errors"] == 0);
    const int ms = i == 1 ? 10 : 20;
    CHECK(r["params"] == json{{"ms", ms}});
    CHECK(r["metrics"]["wall"]["unit"] == "ms");
    CHECK(r["metrics"]["wall"]["samples"].size() == 3);
    CHECK(r["metrics"]["wall"]["value"].get<double>() >= ms);
    for (const char* metric : {"user", "sys", "cpu", "max_rss"})
      CHECK(r["metrics"][metric]["samples"].size() == 3);
    // cpu is each run's user + sys: their sum is exact where the split between them is not.
    for (std::size_t k = 0; k < 3; ++k) {
      CHECK(r["metrics"]["cpu"]["samples"][k].get<double>() ==
            Approx(r["metrics"]["user"]["samples"][k].get<double>() +
                   r["metrics"]["sys"]["samples"][k].get<double>()));
    }
    // Each run's own max RSS: sleep needs a couple of MiB, not benchledger's tens.
    CHECK(r["metrics"]["max_rss"]["value"].get<double>() < 8 * 1024 * 1024);
  }
  CHECK(schema_problems(ledger).empty());
  // The summary table names both cases, with their params as every output writes them.
  CHECK_THAT(result.out, Catch::Contains("sleep [ms=10]") && Catch::Contains("sleep [ms=20]"));
  CHECK_THAT(result.out, !Catch::Contains("{ms}"));
  CHECK_THAT(result.out, Catch::Contains("2 results appended to " + ledger.string()));
}

TEST_CASE("--baseline labels the run and --format json prints exactly the records appended") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto first =
      run_cli({"run", "--ledger", ledger.string(), "--runs", "2", "--quiet", "--", "true"});
  REQUIRE(first.status == 0);
  const auto second = run_cli({"run", "--ledger", ledger.string(), "--baseline", "--runs", "2",
                               "--format", "json", "--name", "no-op", "--", "true"});
  INFO(second.err);
  REQUIRE(second.status == 0);
  const auto stored = lines_of(read_file(ledger));
  const auto printed = lines_of(second.out);
  REQUIRE(stored.size() == 4);
  REQUIRE(printed.size() == 2);
  CHECK(printed[0] == stored[2]);
  CHECK(printed[1] == stored[3]);
  const auto run = json::parse(printed[0]);
  CHECK(run["label"] == "baseline");
  CHECK(json::parse(printed[1])["bench"] == "no-op");
  CHECK(schema_problems(ledger).empty());
}

TEST_CASE(
    "failing runs are counted as errors; a command whose every run fails is recorded as failed") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto counter = (dir.path() / "n").string();
  const auto flaky = run_cli({"run", "--ledger", ledger.string(), "--runs", "4", "--warmup", "0",
                              "--shell", "--name", "flaky", "--",
                              "n=$(cat " + counter + " 2>/dev/null || echo 0); echo $((n+1)) > " +
                                  counter + "; test $((n % 2)) -eq 0"});
  INFO(flaky.err);
  CHECK(flaky.status == 0);
  CHECK_THAT(flaky.err, Catch::Contains("2 of 4 runs failed"));

  const auto failing = run_cli({"run", "--ledger", ledger.string(), "--runs", "3", "--", "false"});
  CHECK(failing.status == 1);
  CHECK_THAT(failing.out, Catch::Contains("FAILED"));
  const auto results = results_of(read_ledger(ledger));
  REQUIRE(results.size() == 2);
  CHECK(results[0]["ops"] == 4);
  CHECK(results[0]["errors"] == 2);
  CHECK(results[0]["metrics"]["wall"]["samples"].size() == 2);
  CHECK(results[1]["primary"] == "failed");
  CHECK(results[1]["ops"] == 3);
  CHECK(results[1]["errors"] == 3);
  CHECK(results[1]["failure"]["kind"] == "error");
  CHECK_THAT(results[1]["failure"]["message"].get<std::string>(),
             Catch::Contains("exited with status 1"));
  CHECK(schema_problems(ledger).empty());
}

TEST_CASE("--timeout kills a run that takes too long and counts it") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto result = run_cli({"run", "--ledger", ledger.string(), "--runs", "2", "--warmup", "0",
                               "--timeout", "0.2", "--", "sleep", "30"});
  CHECK(result.status == 1);
  // Not a speed target: far from the 60 s of two sleeps left running, on any load.
  CHECK(result.seconds < 30);
  const auto results = results_of(read_ledger(ledger));
  REQUIRE(results.size() == 1);
  CHECK(results[0]["errors"] == 2);
  CHECK_THAT(results[0]["failure"]["message"].get<std::string>(), Catch::Contains("timed out"));
}

TEST_CASE("the progress line appears on a terminal only, and --quiet silences stderr") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const std::vector<std::string> args = {"run", "--ledger", ledger.string(), "--runs",
                                         "3",   "--",       "sleep",         "0.05"};
  const auto on_terminal = run_cli_on_terminal(args);
  REQUIRE(on_terminal.status == 0);
  CHECK_THAT(on_terminal.err, Catch::Contains("[1/1] sleep 0.05") && Catch::Contains("measuring") &&
                                  Catch::Contains("\r\033[K"));
  CHECK_THAT(on_terminal.out, Catch::Contains("sleep 0.05"));

  const auto piped = run_cli(args);
  REQUIRE(piped.status == 0);
  CHECK_THAT(piped.err, !Catch::Contains("[1/1]") && !Catch::Contains("\r"));

  auto quiet_args = args;
  quiet_args.insert(quiet_args.begin() + 1, "--quiet");
  const auto quiet = run_cli_on_terminal(quiet_args);
  REQUIRE(quiet.status == 0);
  CHECK(quiet.err.empty());
  CHECK_THAT(quiet.out, Catch::Contains("sleep 0.05"));
}

TEST_CASE(
    "at 80 columns the progress line shortens a long case name and keeps the case number, the "
    "phase and the time left") {
  ScratchDir dir;
  // As long as an executors case's name with its params (about 130 characters).
  const std::string name =
      "executors/pool workload=mixed input_sha256=4f0e3c1d2a9b8e7f tasks=1000 len_min=500 "
      "len_max=2000 len_mean=1249.5 limit=50 concurrency=1";
  const auto result = run_cli_on_terminal({"run", "--ledger", (dir.path() / "l.ndjson").string(),
                                           "--runs", "4", "--name", name, "--", "sleep", "0.05"},
                                          80);
  REQUIRE(result.status == 0);
  // Each drawing of the line sits between two erasures; after the last one come the warnings.
  std::vector<std::string> lines;
  const std::string erase = "\r\033[K";
  std::size_t at = result.err.find(erase);
  while (at != std::string::npos) {
    const std::size_t next = result.err.find(erase, at + erase.size());
    if (next == std::string::npos) break;
    lines.push_back(result.err.substr(at + erase.size(), next - at - erase.size()));
    at = next;
  }
  REQUIRE_FALSE(lines.empty());
  bool measuring_with_time_left = false;
  for (const std::string& line : lines) {
    INFO(line);
    std::size_t width = 0;  // code points: every character here is one column wide
    for (unsigned char c : line) width += (c & 0xC0) != 0x80 ? 1 : 0;
    CHECK(width < 80);
    CHECK_THAT(line, Catch::StartsWith("[1/1] executors/pool") && Catch::Contains("…"));
    if (line.find(" · measuring ") != std::string::npos &&
        line.find(" s left") != std::string::npos) {
      measuring_with_time_left = true;
      CHECK_THAT(line, Catch::Contains("concurrency=1 · measuring"));
    }
  }
  CHECK(measuring_with_time_left);
}

TEST_CASE("usage errors exit 2 and say what is wrong") {
  ScratchDir dir;
  const auto ledger = (dir.path() / "ledger.ndjson").string();
  const auto bad_label = run_cli({"run", "--ledger", ledger, "--label", "no spaces", "--", "true"});
  CHECK(bad_label.status == 2);
  CHECK_THAT(bad_label.err, Catch::Contains("--label \"no spaces\""));
  const auto unused = run_cli({"run", "--ledger", ledger, "--param", "n=1", "--", "true"});
  CHECK(unused.status == 2);
  CHECK_THAT(unused.err, Catch::Contains("no {n} placeholder"));
  const auto missing = run_cli({"run", "--ledger", ledger, "--", "no-such-command-benchledger"});
  CHECK(missing.status == 2);
  CHECK_THAT(missing.err, Catch::Contains("cannot run \"no-such-command-benchledger\""));
  const auto nothing = run_cli({"run", "--ledger", ledger}, dir.path());
  CHECK(nothing.status == 2);
  CHECK_THAT(nothing.err, Catch::Contains("nothing to run"));
  CHECK_FALSE(std::filesystem::exists(ledger));
}

TEST_CASE("a bad count or duration names its flag and the values it takes") {
  ScratchDir dir;
  const auto ledger = (dir.path() / "ledger.ndjson").string();
  struct Bad {
    std::vector<std::string> flag;
    std::string message;
  };
  const std::vector<Bad> cases = {
      {{"--timeout", "0"}, "--timeout: must be greater than 0 and at most 604800, got \"0\""},
      {{"--timeout", "-1"}, "--timeout: must be greater than 0 and at most 604800, got \"-1\""},
      {{"--min-time", "-1"}, "--min-time: must be greater than 0 and at most 3600, got \"-1\""},
      {{"--timeout", "nan"}, "--timeout: must be greater than 0 and at most 604800"},
      // Beyond the bound, a run would never end (it used to hang) or overflow a clock.
      {{"--min-time", "1e308"},
       "--min-time: must be greater than 0 and at most 3600, got \"1e308\""},
      {{"--timeout", "1e308"},
       "--timeout: must be greater than 0 and at most 604800, got \"1e308\""},
      {{"--runs", "0"}, "--runs: must be a whole number from 1 to 1000000, got \"0\""},
      {{"--runs", "abc"}, "--runs: must be a whole number from 1 to 1000000, got \"abc\""},
      {{"--repetitions", "2.5"},
       "--repetitions: must be a whole number from 1 to 1000000, got \"2.5\""},
      {{"--warmup", "-1"}, "--warmup: must be a whole number from 0 to 1000000, got \"-1\""},
  };
  for (const Bad& bad : cases) {
    std::vector<std::string> args = {"run", "--ledger", ledger};
    args.insert(args.end(), bad.flag.begin(), bad.flag.end());
    args.insert(args.end(), {"--", "true"});
    const auto result = run_cli(args);
    INFO(bad.flag[0] << " " << bad.flag[1] << ": " << result.err);
    CHECK(result.status == 2);
    CHECK_THAT(result.err, Catch::Contains(bad.message));
    CHECK(result.err.size() < 300);  // no 309-digit DBL_MAX
  }
  CHECK_FALSE(std::filesystem::exists(ledger));
}

TEST_CASE("a {name} placeholder that no --param fills is a usage error naming it") {
  ScratchDir dir;
  const auto ledger = (dir.path() / "ledger.ndjson").string();
  const auto unfilled = run_cli({"run", "--ledger", ledger, "--", "sleep", "0.0{ms}"});
  CHECK(unfilled.status == 2);
  CHECK_THAT(unfilled.err, Catch::Contains("the command has the placeholder {ms} but no param ms "
                                           "gives it values: add --param ms=v1,v2,..."));
  // One param given, another missing.
  const auto partly =
      run_cli({"run", "--ledger", ledger, "--param", "ms=1", "--", "sleep", "0.0{ms}{extra}"});
  CHECK(partly.status == 2);
  CHECK_THAT(partly.err, Catch::Contains("placeholder {extra}"));
  const auto in_prepare = run_cli(
      {"run", "--ledger", ledger, "--prepare", "rm -f {dir}/x", "--runs", "1", "--", "true"});
  CHECK(in_prepare.status == 2);
  CHECK_THAT(in_prepare.err, Catch::Contains("--prepare has the placeholder {dir}"));
  CHECK_FALSE(std::filesystem::exists(ledger));
  // A shell's ${name} is not a placeholder.
  const auto shell_variable = run_cli({"run", "--ledger", ledger, "--runs", "1", "--warmup", "0",
                                       "--shell", "--", "test -n \"${HOME}\""});
  INFO(shell_variable.err);
  CHECK(shell_variable.status == 0);
}

TEST_CASE(
    "a command whose every run times out or is killed is recorded as a timeout or a crash, as a "
    "native case is") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto timed_out = run_cli({"run", "--ledger", ledger.string(), "--runs", "2", "--warmup",
                                  "0", "--timeout", "0.2", "--", "sleep", "30"});
  CHECK(timed_out.status == 1);
  const auto killed = run_cli({"run", "--ledger", ledger.string(), "--runs", "2", "--warmup", "0",
                               "--shell", "--name", "segfaults", "--", "kill -SEGV $$"});
  CHECK(killed.status == 1);
  // Runs that fail in different ways: an error.
  const auto counter = (dir.path() / "n").string();
  const auto mixed =
      run_cli({"run", "--ledger", ledger.string(), "--runs", "2", "--warmup", "0", "--shell",
               "--name", "mixed", "--",
               "n=$(cat " + counter + " 2>/dev/null || echo 0); echo $((n+1)) > " + counter +
                   "; if [ $n = 0 ]; then exit 3; else kill -KILL $$; fi"});
  CHECK(mixed.status == 1);
  const auto results = results_of(read_ledger(ledger));
  REQUIRE(results.size() == 3);
  CHECK(results[0]["failure"]["kind"] == "timeout");
  CHECK_THAT(results[0]["failure"]["message"].get<std::string>(), Catch::Contains("timed out"));
  CHECK(results[1]["failure"]["kind"] == "crashed");
  CHECK_THAT(results[1]["failure"]["message"].get<std::string>(),
             Catch::Contains("killed by signal 11 (SIGSEGV)"));
  CHECK(results[2]["failure"]["kind"] == "error");
  CHECK_THAT(results[2]["failure"]["message"].get<std::string>(),
             Catch::Contains("exited with status 3"));
  CHECK_THAT(timed_out.out, Catch::Contains("FAILED (timeout)"));
  CHECK_THAT(killed.out, Catch::Contains("FAILED (crashed)"));
  CHECK(schema_problems(ledger).empty());
}

TEST_CASE("an interrupted run leaves no command running behind it") {
  ScratchDir dir;
  // A duration no other process on this machine uses, to find the run by its command line.
  const std::string marker = "31.4159";
  const pid_t cli =
      start(benchledger::run_test::cli(), {"run", "--ledger", (dir.path() / "l.ndjson").string(),
                                           "--runs", "1", "--warmup", "0", "--", "sleep", marker});
  poll_until([&] { return processes_matching("^sleep " + marker) != 0; });
  REQUIRE(processes_matching("^sleep " + marker) == 1);
  ::kill(cli, SIGINT);
  int status = 0;
  ::waitpid(cli, &status, 0);
  poll_until([&] { return processes_matching("^sleep " + marker) == 0; });
  CHECK(processes_matching("^sleep " + marker) == 0);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "l.ndjson"));
}
