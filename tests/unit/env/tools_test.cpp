// Tools and Postgres are asked for their versions within the probe budget: an answer is
// recorded verbatim, a hang or flood is killed, a failure leaves the field null.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "env/env.hpp"
#include "env_test_support.hpp"

using benchledger::env::capture_with_notes;
using benchledger::env::CaptureOptions;
using benchledger::env::testing::fixture_options;
using benchledger::env::testing::fixtures_dir;
using std::optional;
using std::string;

namespace {

bool any_contains(const std::vector<string>& lines, const string& part) {
  for (const auto& line : lines) {
    if (line.find(part) != string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("versions come verbatim from the first line each tool prints") {
  CaptureOptions options = fixture_options("intel_baremetal");
  options.run_tools = true;
  options.tool_dirs = {fixtures_dir() / "tools_ok"};
  const auto capture = capture_with_notes(options);
  CHECK(capture.env.runtimes.node == optional<string>("v18.19.0"));
  CHECK(capture.env.runtimes.python == optional<string>("Python 3.9.2"));
  CHECK(capture.env.runtimes.postgres_client == optional<string>("psql (PostgreSQL) 16.1"));
  CHECK(capture.env.container.docker_version == optional<string>("24.0.7"));
  CHECK(capture.notes.empty());
}

TEST_CASE("a tool that hangs, floods, fails or cannot run leaves its field null") {
  CaptureOptions options = fixture_options("intel_baremetal");
  options.run_tools = true;
  options.tool_dirs = {fixtures_dir() / "tools_bad"};
  options.probe_timeout = std::chrono::milliseconds(300);
  const auto start = std::chrono::steady_clock::now();
  const auto capture = capture_with_notes(options);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  CHECK(capture.env.runtimes.node == optional<string>());             // sleeps 60 s: killed
  CHECK(capture.env.runtimes.python == optional<string>());           // floods stdout: killed
  CHECK(capture.env.container.docker_version == optional<string>());  // exits 1
  CHECK(capture.env.runtimes.postgres_client == optional<string>());  // not executable
  CHECK(any_contains(capture.notes, "node: no answer within 300 ms (killed)"));
  // Not a speed target: without the kill this would wait out the script's 60 s sleep.
  CHECK(elapsed < std::chrono::seconds(30));
}

TEST_CASE("a Postgres server that refuses the connection leaves postgres_server null") {
  CaptureOptions options = fixture_options("intel_baremetal");
  options.postgres_dsn = "postgresql://postgres@127.0.0.1:1/postgres";  // nothing listens on 1
  const auto capture = capture_with_notes(options);
  CHECK(capture.env.runtimes.postgres_server == optional<string>());
  CHECK(any_contains(capture.notes, "postgres"));
}

TEST_CASE("a Postgres server that never answers is given up at the deadline") {
  // A listening socket that nobody accepts on: the connection opens and then hears nothing.
  const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(listener >= 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  REQUIRE(::listen(listener, 4) == 0);
  socklen_t length = sizeof address;
  REQUIRE(::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) == 0);

  CaptureOptions options = fixture_options("intel_baremetal");
  options.postgres_dsn =
      "postgresql://postgres@127.0.0.1:" + std::to_string(ntohs(address.sin_port)) + "/postgres";
  options.probe_timeout = std::chrono::milliseconds(300);
  const auto capture = capture_with_notes(options);
  ::close(listener);
  CHECK(capture.env.runtimes.postgres_server == optional<string>());
  CHECK(any_contains(capture.notes, "postgres: no answer within 300 ms"));
}

TEST_CASE("SELECT version() fills postgres_server from the test server") {
  const char* dsn = std::getenv("BENCHLEDGER_TEST_PG");
  if (dsn == nullptr || *dsn == '\0') {
    FAIL(
        "BENCHLEDGER_TEST_PG is not set: run the tests through tools/test, which starts a "
        "PostgreSQL server and sets it");
  }
  CaptureOptions options = fixture_options("intel_baremetal");
  options.postgres_dsn = dsn;
  const auto capture = capture_with_notes(options);
  INFO((capture.notes.empty() ? string() : capture.notes.front()));
  REQUIRE(capture.env.runtimes.postgres_server.has_value());
  CHECK(capture.env.runtimes.postgres_server->rfind("PostgreSQL ", 0) == 0);
}
