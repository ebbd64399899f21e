// `benchledger run --pg` and `--suite postgres` against real servers: a run records the
// server's version and settings and never its password, and the suite's cases measure ordered
// percentiles and count refused connections under their SQLSTATE.
#include <catch2/catch.hpp>

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <set>

#include "run_support.hpp"
#include "support/postgres.hpp"

using namespace benchledger::run_test;
using nlohmann::json;

namespace {

// The server tools/test starts; a test without it fails and says how to get one.
std::string test_server() {
  const char* dsn = std::getenv("BENCHLEDGER_TEST_PG");
  if (dsn == nullptr || *dsn == '\0') {
    FAIL(
        "BENCHLEDGER_TEST_PG is not set: run the tests through tools/test, which starts a "
        "throwaway PostgreSQL (Debian: apt-get install postgresql)");
  }
  return dsn;
}

// Makes `dir` the TMPDIR of a run's throwaway server (the postgres user must enter it) and
// returns the server's command line there, to find it among the processes: other tests start
// throwaway servers of their own at the same time.
std::string throwaway_server_in(const ScratchDir& dir) {
  std::filesystem::permissions(dir.path(), std::filesystem::perms::owner_all |
                                               std::filesystem::perms::others_exec |
                                               std::filesystem::perms::group_exec);
  return "bin/postgres -D " + dir.path().string() + "/benchledger-pg-";
}

// The same URI with a password in its user part: trust authentication ignores it, so the run
// succeeds, and the password must appear nowhere.
std::string with_password(const std::string& dsn, const std::string& password) {
  const std::size_t at = dsn.find('@');
  REQUIRE(at != std::string::npos);
  return dsn.substr(0, at) + ":" + password + dsn.substr(at);
}

// A server of its own with a low max_connections, started with tools/pg-local.
class SmallServer {
 public:
  explicit SmallServer(int max_connections) {
    ::setenv("PG_LOCAL_MAX_CONNECTIONS", std::to_string(max_connections).c_str(), 1);
    const auto started = run((source_dir() / "tools/pg-local").string(), {"start", m_dir});
    ::unsetenv("PG_LOCAL_MAX_CONNECTIONS");
    INFO(started.err);
    REQUIRE(started.status == 0);
    const std::string prefix = "export BENCHLEDGER_TEST_PG=";
    const std::size_t at = started.out.find(prefix);
    REQUIRE(at != std::string::npos);
    m_dsn = lines_of(started.out.substr(at + prefix.size())).front();
  }
  ~SmallServer() { run((source_dir() / "tools/pg-local").string(), {"stop", m_dir}); }
  SmallServer(const SmallServer&) = delete;
  SmallServer& operator=(const SmallServer&) = delete;
  const std::string& dsn() const { return m_dsn; }

 private:
  // Directly under /tmp, which the postgres user can enter (a mkdtemp directory is 0700);
  // tools/pg-local creates and removes it.
  std::string m_dir = "/tmp/benchledger-pgsmall-" + std::to_string(::getpid());
  std::string m_dsn;
};

}  // namespace

TEST_CASE("run --pg records the server's version and settings and never its password") {
  const std::string dsn = with_password(test_server(), "hunter2-secret");
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto result = run_cli({"run", "--pg", dsn, "--ledger", ledger.string(), "--runs", "1",
                               "--warmup", "0", "--name", "true", "--", "true"});
  INFO(result.err);
  REQUIRE(result.status == 0);
  const auto records = read_ledger(ledger);
  const json& env = records[0]["env"];
  CHECK(env["runtimes"]["postgres_server"].get<std::string>().rfind("PostgreSQL ", 0) == 0);
  // tools/pg-local starts the test server with fsync off and max_connections 200.
  CHECK(env["postgres"]["fsync"] == "off");
  CHECK(env["postgres"]["max_connections"] == "200");
  CHECK(env["postgres"]["same_host"] == true);
  for (const char* setting : {"shared_buffers", "synchronous_commit", "wal_level", "work_mem"}) {
    INFO(setting);
    CHECK(env["postgres"][setting].is_string());
  }
  CHECK(read_file(ledger).find("hunter2-secret") == std::string::npos);
  CHECK(result.out.find("hunter2-secret") == std::string::npos);
  CHECK(result.err.find("hunter2-secret") == std::string::npos);
  CHECK(schema_problems(ledger).empty());

  // BENCHLEDGER_PG and the config file's "pg" name the server as well.
  ::setenv("BENCHLEDGER_PG", dsn.c_str(), 1);
  const auto from_env = run_cli(
      {"run", "--dry-run", "--format", "json", "--runs", "1", "--warmup", "0", "--", "true"});
  ::unsetenv("BENCHLEDGER_PG");
  INFO(from_env.err);
  REQUIRE(from_env.status == 0);
  CHECK(json::parse(lines_of(from_env.out).front())["env"]["postgres"]["fsync"] == "off");
  std::ofstream(dir.path() / "benchledger.json") << json{{"pg", dsn}}.dump();
  const auto from_config = run_cli(
      {"run", "--dry-run", "--format", "json", "--runs", "1", "--warmup", "0", "--", "true"},
      dir.path());
  INFO(from_config.err);
  REQUIRE(from_config.status == 0);
  CHECK(json::parse(lines_of(from_config.out).front())["env"]["postgres"]["fsync"] == "off");
  CHECK(from_config.out.find("hunter2-secret") == std::string::npos);
}

TEST_CASE("run --pg refuses a server it cannot ask, without showing the password") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  // Port 1 on loopback: nothing listens there.
  const auto result =
      run_cli({"run", "--pg", "postgresql://bench:hunter2-secret@127.0.0.1:1/postgres", "--ledger",
               ledger.string(), "--runs", "1", "--", "true"});
  CHECK(result.status == 2);
  CHECK_THAT(result.err, Catch::Contains("--pg postgresql://bench:***@127.0.0.1:1/postgres: "
                                         "cannot ask the server"));
  CHECK(result.err.find("hunter2-secret") == std::string::npos);
  CHECK(!std::filesystem::exists(ledger));
}

TEST_CASE("the postgres suite measures every case with ordered percentiles and no errors") {
  const std::string dsn = test_server();
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto result = run_cli({"run", "--suite", "postgres", "--pg", dsn, "--ledger",
                               ledger.string(), "--repetitions", "2", "--warmup", "1", "--param",
                               "concurrency=10", "--param", "rows=1000"});
  INFO(result.err);
  REQUIRE(result.status == 0);
  const auto records = read_ledger(ledger);
  CHECK(records[0]["env"]["postgres"]["max_connections"] == "200");
  const auto results = results_of(records);
  std::set<std::string> benches;
  for (const json& r : results) {
    INFO(r.dump());
    benches.insert(r["bench"]);
    CHECK(r["params"]["concurrency"] == 10);
    CHECK(r["errors"] == 0);
    CHECK(!r.contains("error_codes"));
    CHECK(r["ops"] > 0);
    const json& latency = r["metrics"]["latency"]["summary"];
    CHECK(latency["min"] <= latency["p50"]);
    CHECK(latency["p50"] <= latency["p95"]);
    CHECK(latency["p95"] <= latency["p99"]);
    CHECK(latency["p99"] <= latency["max"]);
    CHECK(r["metrics"]["throughput"]["value"] > 0);
  }
  CHECK(benches == std::set<std::string>{"postgres/select1_connect", "postgres/select1_pool",
                                         "postgres/point_read", "postgres/small_write"});
  CHECK(schema_problems(ledger).empty());

  // Each case dropped the schema it made.
  const auto left = run("/usr/bin/psql", {dsn, "-Atc",
                                          "SELECT count(*) FROM pg_namespace WHERE nspname LIKE "
                                          "'benchledger_suite_%'"});
  INFO(left.err);
  CHECK(lines_of(left.out) == std::vector<std::string>{"0"});
}

TEST_CASE("connections a server refuses are counted as errors under SQLSTATE 53300") {
  // 5 connections for 10 clients: every case meets "sorry, too many clients already".
  SmallServer server(5);
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto result = run_cli({"run", "--suite", "postgres", "--pg", server.dsn(), "--ledger",
                               ledger.string(), "--filter", "select1", "--repetitions", "2",
                               "--warmup", "0", "--min-time", "0.2", "--param", "concurrency=10"});
  INFO(result.err);
  REQUIRE(result.status == 0);
  const auto records = read_ledger(ledger);
  CHECK(records[0]["env"]["postgres"]["max_connections"] == "5");
  const auto results = results_of(records);
  REQUIRE(results.size() == 2);
  for (const json& r : results) {
    INFO(r.dump());
    CHECK(r["errors"] > 0);
    CHECK(r["errors"] < r["ops"]);  // the connections the server took still answered
    REQUIRE(r.contains("error_codes"));
    CHECK(r["error_codes"] == json{{"53300", r["errors"]}});
  }
  CHECK(schema_problems(ledger).empty());
}

TEST_CASE("the postgres suite without a server starts a throwaway one and stops it") {
  test_server();  // the PostgreSQL binaries are installed
  ::unsetenv("BENCHLEDGER_PG");
  ScratchDir dir;
  const std::string server = throwaway_server_in(dir);
  const auto ledger = dir.path() / "ledger.ndjson";
  benchledger::test_support::ProcessOptions options;
  options.env = {"TMPDIR=" + dir.path().string()};
  const auto result = benchledger::test_support::run_process(
      {cli(), "run", "--suite", "postgres", "--ledger", ledger.string(), "--filter", "select1_pool",
       "--repetitions", "1", "--warmup", "0", "--param", "concurrency=10"},
      options);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const auto records = read_ledger(ledger);
  CHECK(records[0]["env"]["runtimes"]["postgres_server"].get<std::string>().rfind("PostgreSQL ",
                                                                                  0) == 0);
  CHECK(records[0]["env"]["postgres"]["same_host"] == true);
  CHECK(results_of(records).size() == 1);
  CHECK(processes_matching(server) == 0);
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    CHECK(entry.path().filename().string().rfind("benchledger-pg-", 0) != 0);
  }
}

TEST_CASE("a throwaway server stops when the benchledger that started it is killed") {
  test_server();  // the PostgreSQL binaries are installed
  ::unsetenv("BENCHLEDGER_PG");
  ScratchDir dir;
  const std::string server = throwaway_server_in(dir);
  benchledger::test_support::ProcessOptions options;
  options.env = {"TMPDIR=" + dir.path().string()};
  options.stdout_path = options.stderr_path = "/dev/null";
  const pid_t pid = benchledger::test_support::spawn(
                        {cli(), "run", "--suite", "postgres", "--ledger",
                         (dir / "ledger.ndjson").string(), "--filter", "select1_pool",
                         "--repetitions", "1000", "--warmup", "0", "--param", "concurrency=10"},
                        options)
                        .pid;
  for (int wait = 0; wait < 600 && processes_matching(server) == 0; ++wait) ::usleep(100'000);
  REQUIRE(processes_matching(server) == 1);
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  // The server gets SIGINT, PostgreSQL's fast shutdown, from the kernel when its parent dies.
  for (int wait = 0; wait < 600 && processes_matching(server) != 0; ++wait) ::usleep(100'000);
  CHECK(processes_matching(server) == 0);
}

TEST_CASE("run --pgbench scans two client counts against the server, initialising once") {
  // A database of its own: pgbench's initialisation drops and makes its tables, and other tests
  // run pgbench on the same server at the same time.
  benchledger::test_support::PgScratchDir dir;
  const std::string dsn = dir.pg_uri();
  const auto ledger = dir.path() / "ledger.ndjson";
  // With a password in the DSN (trust authentication ignores it): pgbench gets it in its
  // environment, never on its command line, which any local user can read while it runs.
  benchledger::test_support::ProcessOptions options;
  options.stdout_path = (dir / "stdout").string();
  options.stderr_path = (dir / "stderr").string();
  std::ofstream(options.stdout_path).flush();  // opened for writing, not created, by spawn
  std::ofstream(options.stderr_path).flush();
  const pid_t pid = benchledger::test_support::spawn(
                        {cli(), "run", "--pg", with_password(dsn, "hunter2-pgbench"), "--pgbench",
                         "-T 2 -S -M prepared", "--param", "clients=1,2", "--param", "scale=1",
                         "--ledger", ledger.string()},
                        options)
                        .pid;
  int status = 0, pgbench_seen = 0, password_seen = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    pgbench_seen += processes_matching("bin/pgbench ");
    password_seen += processes_matching("bin/pgbench .*hunter2");
    ::usleep(50'000);
  }
  INFO(read_file(dir / "stderr"));
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  CHECK(pgbench_seen > 0);
  CHECK(password_seen == 0);
  CHECK(read_file(ledger).find("hunter2") == std::string::npos);
  const auto records = read_ledger(ledger);
  CHECK(records[0]["source"] == "pgbench");
  CHECK(records[0]["env"]["postgres"]["fsync"] == "off");
  const auto results = results_of(records);
  REQUIRE(results.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    const json& r = results[i];
    INFO(r.dump());
    CHECK(r["bench"] == "pgbench/select-only");
    CHECK(r["params"]["clients"] == static_cast<int>(i + 1));
    CHECK(r["params"]["jobs"] == 1);
    CHECK(r["params"]["scale"] == 1);
    CHECK(r["params"]["query_mode"] == "prepared");
    CHECK(r["metrics"]["tps"]["value"] > 0);
    CHECK(r["metrics"]["tps"]["samples"].size() >= 1);  // -P 1 added by the run
    const json& latency = r["metrics"]["latency"]["summary"];
    CHECK(latency["n"] == r["ops"]);  // every transaction of the -l logs
    CHECK(latency["p50"] <= latency["p99"]);
  }
  CHECK(schema_problems(ledger).empty());

  const auto refused = run_cli({"run", "--pg", dsn, "--pgbench", "-c 4 -T 1", "--dry-run"});
  CHECK(refused.status == 2);
  CHECK_THAT(refused.err, Catch::Contains("--pgbench: -c is set by the run"));
}

TEST_CASE("run --import pgbench records pgbench's output and -l logs as one run") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto fixtures = source_dir() / "tests/unit/import/pgbench";
  const auto result = run_cli({"run", "--ledger", ledger.string(), "--import", "pgbench",
                               (fixtures / "tpcb_output.txt").string(), "--import", "pgbench",
                               (fixtures / "pgbench_log.8595").string(), "--import", "pgbench",
                               (fixtures / "pgbench_log.8595.1").string()});
  INFO(result.err);
  REQUIRE(result.status == 0);
  const auto records = read_ledger(ledger);
  CHECK(records[0]["source"] == "pgbench");
  const auto results = results_of(records);
  REQUIRE(results.size() == 12);
  CHECK(results[0]["metrics"]["latency"]["summary"]["n"] == 1028);
  CHECK(schema_problems(ledger).empty());

  const auto bad = dir.path() / "bad.txt";
  std::ofstream(bad) << "transaction type: <builtin: select only>\nnumber of clients: x\n";
  const auto refused =
      run_cli({"run", "--ledger", ledger.string(), "--import", "pgbench", bad.string()});
  CHECK(refused.status == 2);
  CHECK_THAT(refused.err, Catch::Contains("bad.txt: line 2: number of clients: expected a count"));
}
