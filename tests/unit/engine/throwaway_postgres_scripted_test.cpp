// The throwaway PostgreSQL server on a scripted executor: initdb, the server and the probes of
// its readiness are the script's, and the wait between probes moves the fake clock, so that a
// failing initdb, a server that never accepts connections (given up at the deadline) and the
// normal path are checked exactly, without a server or a wait. What is left behind is checked
// in a TMPDIR of the test's own; the binaries are empty executable files in a PG_BIN of its own.
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/throwaway_postgres.hpp"
#include "support/scratch_dir.hpp"
#include "support/scripted_executor.hpp"

using namespace benchledger;
using test_support::Answer;
using test_support::ScriptedExecutor;

namespace {

// Sets an environment variable for the object's lifetime, then puts the previous value back.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : m_name(name) {
    if (const char* old = std::getenv(name)) m_old = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (m_old) {
      ::setenv(m_name, m_old->c_str(), 1);
    } else {
      ::unsetenv(m_name);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* m_name;
  std::optional<std::string> m_old;
};

// A PG_BIN of empty executable `initdb` and `postgres` files (the lookup wants both), a TMPDIR
// that holds nothing but what the server makes, and the scripted executor.
struct Setting {
  test_support::ScratchDir scratch;
  std::filesystem::path bin = scratch / "bin";
  std::filesystem::path tmp = scratch / "tmp";
  std::optional<ScopedEnv> pg_bin, tmpdir;
  ScriptedExecutor fake;

  Setting() {
    std::filesystem::create_directories(bin);
    std::filesystem::create_directories(tmp);
    for (const char* name : {"initdb", "postgres"}) {
      std::ofstream(bin / name).put('\n');
      std::filesystem::permissions(bin / name, std::filesystem::perms::owner_all);
    }
    pg_bin.emplace("PG_BIN", bin.string());
    tmpdir.emplace("TMPDIR", tmp.string());
  }

  std::vector<std::string> initdb() const { return {(bin / "initdb").string(), "-D"}; }
  std::vector<std::string> postgres() const { return {(bin / "postgres").string(), "-D"}; }
  // Every scripted call came, no other, and nothing is left in TMPDIR.
  void check_all_ran_and_nothing_left() const {
    CHECK(fake.unused().empty());
    CHECK(fake.unexpected().empty());
    CHECK(std::filesystem::is_empty(tmp));
  }
};

// As root the server runs as `postgres`; without that user it cannot start at all, and the
// tests below have nothing to run (they say so).
bool has_a_server_owner() {
  if (::geteuid() != 0 || ::getpwnam("postgres") != nullptr) return true;
  WARN("not run: root without a postgres user");
  return false;
}

// A probe that answers `false` until its `ready_at`-th call (never when 0), counting its calls.
struct Probe {
  int ready_at = 0;
  int calls = 0;
  bool operator()(const std::string&) {
    return ++calls == ready_at || (ready_at && calls > ready_at);
  }
};

}  // namespace

TEST_CASE("a failing initdb names the step, carries its output's tail and leaves nothing") {
  if (!has_a_server_owner()) return;
  Setting setting;
  ScriptedExecutor& fake = setting.fake;
  std::string output;
  for (int line = 1; line <= 8; ++line) output += "initdb line " + std::to_string(line) + "\n";
  fake.expect(setting.initdb(), Answer().exits(1).prints(output)).and_more();
  int probes = 0;
  const engine::ServerSeam seam{fake, [&](const std::string&) { return ++probes > 0; }};
  try {
    engine::ThrowawayPostgres server(seam);
    FAIL("the server was started after a failing initdb");
  } catch (const Error& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("initdb of a throwaway PostgreSQL failed"));
    CHECK_THAT(what, Catch::Contains("initdb line 8"));
    CHECK_THAT(what, Catch::Contains("initdb line 4"));
    CHECK_THAT(what, !Catch::Contains("initdb line 3"));  // the tail: the last 5 lines
  }
  CHECK(probes == 0);
  CHECK(fake.calls().size() == 1);  // no server started
  setting.check_all_ran_and_nothing_left();
}

TEST_CASE("a server that never accepts connections is given up at the deadline, stopped, removed") {
  if (!has_a_server_owner()) return;
  Setting setting;
  ScriptedExecutor& fake = setting.fake;
  fake.expect(setting.initdb()).and_more();
  fake.expect_start(setting.postgres(), Answer().prints_to_stderr("server log: still starting\n"))
      .and_more();
  Probe probe;  // never ready
  const engine::ServerSeam seam{fake, std::ref(probe)};
  const std::int64_t before = fake.now_ns();
  CHECK_THROWS_WITH(engine::ThrowawayPostgres(seam),
                    Catch::Contains("did not accept connections within 60 s") &&
                        Catch::Contains("server log: still starting"));
  // 50 ms between probes: the first probe past 60 s on the fake clock is the last.
  CHECK(fake.now_ns() - before == 60'050'000'000);
  CHECK(probe.calls == 1202);
  REQUIRE(fake.calls().size() == 2);
  CHECK(fake.calls()[1].started);
  CHECK(fake.calls()[1].stopped_by == SIGINT);  // fast shutdown, not a kill
  setting.check_all_ran_and_nothing_left();
}

TEST_CASE("a server ready after some probes serves its DSN, then is stopped and removed") {
  if (!has_a_server_owner()) return;
  Setting setting;
  ScriptedExecutor& fake = setting.fake;
  fake.expect(setting.initdb(), Answer().takes(2)).and_more();
  fake.expect_start(setting.postgres()).and_more();
  Probe probe{.ready_at = 4};
  const engine::ServerSeam seam{fake, std::ref(probe)};
  std::filesystem::path data;
  {
    const engine::ThrowawayPostgres server(seam);
    CHECK(probe.calls == 4);
    CHECK(fake.now_ns() - fake.calls()[1].started_ns == 3 * 50'000'000);  // three pauses
    REQUIRE(fake.calls().size() == 2);
    const std::vector<std::string>& initdb = fake.calls()[0].argv;
    const std::vector<std::string>& postgres = fake.calls()[1].argv;
    CHECK(fake.calls()[1].started_ns - fake.calls()[0].started_ns == 2'000'000'000);
    data = initdb.at(2);
    CHECK(postgres.at(2) == data);
    CHECK(std::filesystem::is_directory(data.parent_path()));
    CHECK(data.parent_path().parent_path() == setting.tmp);
    // postgres -D DATA -h 127.0.0.1 -p PORT: the DSN names the port the server was given.
    REQUIRE(postgres.size() >= 7);
    CHECK(postgres.at(4) == "127.0.0.1");
    CHECK(server.dsn() == "postgresql://postgres@127.0.0.1:" + postgres.at(6) + "/postgres");
    CHECK_FALSE(fake.calls()[1].stopped_by);  // running while the object lives
  }
  CHECK(fake.calls()[1].stopped_by == SIGINT);
  CHECK_FALSE(std::filesystem::exists(data));
  setting.check_all_ran_and_nothing_left();
}
