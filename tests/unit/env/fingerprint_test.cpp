// The fingerprint hashes exactly the comparability fields in one canonical text, and
// differing_fields names the compared ones (the fingerprint's and the runtimes) that differ.
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "env/env.hpp"
#include "env_test_support.hpp"
#include "support/process.hpp"

using benchledger::Env;
using benchledger::PostgresSettings;
using benchledger::env::differing_fields;
using benchledger::env::environment_differences;
using benchledger::env::FieldDifference;
using benchledger::env::fingerprint;
using benchledger::env::fingerprint_text;
using benchledger::env::testing::capture_fixture;
using std::string;

namespace {

// SHA-256 by coreutils' sha256sum, an implementation independent of the library's OpenSSL.
string sha256sum(const string& bytes) {
  char path[] = "/tmp/benchledger-fingerprint-XXXXXX";
  const int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  ::close(fd);
  std::ofstream(path, std::ios::binary) << bytes;
  const string out = benchledger::test_support::run_process({"sha256sum", path}).out;
  ::unlink(path);
  return out.substr(0, out.find(' '));
}

}  // namespace

TEST_CASE("the fingerprint text of a fixture machine is the documented canonical form") {
  const Env env = capture_fixture("intel_baremetal");
  const string expected =
      "benchledger-env-fingerprint/1\n"
      "cpu.model=\"Intel(R) Core(TM) i5-7300U CPU @ 2.60GHz\"\n"
      "cpu.vendor=\"GenuineIntel\"\n"
      "cpu.arch=\"x86_64\"\n"
      "cpu.logical=4\n"
      "cpu.physical=2\n"
      "cpu.sockets=1\n"
      "cpu.online=4\n"
      "cpu.affinity=4\n"
      "cpu.quota=null\n"
      "memory.total_bytes=16670253056\n"
      "memory.limit_bytes=null\n"
      "os.name=\"Ubuntu\"\n"
      "os.version=\"22.04\"\n"
      "os.kernel=\"5.15.0-91-generic\"\n"
      "virtualization=null\n"
      "container.kind=null\n"
      "runtimes.compiler=\"gcc 12.2.0\"\n"
      "runtimes.build_type=\"Release\"\n";
  CHECK(fingerprint_text(env) == expected);
  CHECK(fingerprint(env) == sha256sum(expected));
  CHECK(env.fingerprint == fingerprint(env));
}

TEST_CASE("a quota is written as the shortest number that reads back the same") {
  const Env env = capture_fixture("cgroup_quota");
  CHECK(fingerprint_text(env).find("\ncpu.quota=1.5\n") != string::npos);
  CHECK(fingerprint_text(env).find("\nmemory.limit_bytes=2147483648\n") != string::npos);
}

TEST_CASE("changing one comparability field changes the fingerprint and is named") {
  const Env base = capture_fixture("intel_baremetal");
  const std::vector<std::pair<string, std::function<void(Env&)>>> changes = {
      {"cpu.model", [](Env& e) { e.cpu.model = "Intel(R) Core(TM) i7-7600U CPU @ 2.80GHz"; }},
      {"cpu.vendor", [](Env& e) { e.cpu.vendor.reset(); }},
      {"cpu.arch", [](Env& e) { e.cpu.arch = "aarch64"; }},
      {"cpu.logical", [](Env& e) { e.cpu.logical = 8; }},
      {"cpu.physical", [](Env& e) { e.cpu.physical = 4; }},
      {"cpu.sockets", [](Env& e) { e.cpu.sockets = 2; }},
      {"cpu.online", [](Env& e) { e.cpu.online = 3; }},
      {"cpu.affinity", [](Env& e) { e.cpu.affinity = 1; }},
      {"cpu.quota", [](Env& e) { e.cpu.quota = 2.0; }},
      {"memory.total_bytes", [](Env& e) { e.memory.total_bytes = 1; }},
      {"memory.limit_bytes", [](Env& e) { e.memory.limit_bytes = 1 << 30; }},
      {"os.name", [](Env& e) { e.os.name = "Debian GNU/Linux"; }},
      {"os.version", [](Env& e) { e.os.version = "24.04"; }},
      {"os.kernel", [](Env& e) { e.os.kernel = "5.15.0-92-generic"; }},
      {"virtualization", [](Env& e) { e.virtualization = "kvm"; }},
      {"container.kind", [](Env& e) { e.container.kind = "docker"; }},
      {"runtimes.compiler", [](Env& e) { e.runtimes.compiler = "clang 16.0.6"; }},
      {"runtimes.build_type", [](Env& e) { e.runtimes.build_type = "Debug"; }},
  };
  REQUIRE(changes.size() == benchledger::env::comparability_fields().size());
  for (const auto& [name, change] : changes) {
    Env changed = base;
    change(changed);
    INFO(name);
    CHECK(fingerprint(changed) != fingerprint(base));
    CHECK(differing_fields(base, changed) == std::vector<string>{name});
  }
}

TEST_CASE("fields outside the comparability set leave the fingerprint alone") {
  const Env base = capture_fixture("intel_baremetal");
  Env changed = base;
  changed.host = "another-host";
  changed.cpu.mhz = 800.0;
  changed.cpu.governor = "performance";
  changed.cpu.turbo = false;
  changed.cpu.smt = false;
  changed.cpu.cache_bytes.l3 = 1;
  changed.container.docker_version = "24.0.7";
  changed.clock.source = "hpet";
  changed.clock.read_ns = 20.5;
  changed.runtimes.node = "v20.0.0";
  changed.runtimes.python = "Python 3.12.0";
  changed.runtimes.postgres_client = "psql (PostgreSQL) 16.1";
  changed.runtimes.postgres_server = "PostgreSQL 16.1";
  changed.runtimes.benchledger = "0.0.9 (git v0.0.9-dirty)";
  changed.load_avg = std::vector<double>{9, 9, 9};
  changed.fingerprint = "not a hash";
  CHECK(fingerprint(changed) == fingerprint(base));
  // The runtimes are compared all the same (compare and the report), just not hashed.
  CHECK(differing_fields(base, changed) ==
        std::vector<string>{"runtimes.node", "runtimes.python", "runtimes.postgres_client",
                            "runtimes.postgres_server", "runtimes.benchledger"});
  changed.runtimes = base.runtimes;
  CHECK(differing_fields(base, changed).empty());
}

TEST_CASE("environment_differences leaves out the ignored fields and refuses unknown names") {
  const Env base = capture_fixture("intel_baremetal");
  Env changed = base;
  changed.runtimes.node = "v20.0.0";
  changed.os.kernel = "6.9.0";
  using benchledger::env::environment_differences;
  const auto all = environment_differences(base, changed);
  REQUIRE(all.size() == 2);
  CHECK(all[0].field == "os.kernel");
  CHECK(all[1].field == "runtimes.node");
  CHECK(all[1].current == "\"v20.0.0\"");
  CHECK(environment_differences(base, changed, {"runtimes.node", "os.kernel"}).empty());
  CHECK_THROWS_WITH(environment_differences(base, changed, {"runtimes.nodejs"}),
                    Catch::Contains("\"runtimes.nodejs\" is not a compared field"));
}

TEST_CASE("differing_fields between two fixture machines lists them in the documented order") {
  const Env intel = capture_fixture("intel_baremetal");
  const Env docker = capture_fixture("docker_cgroup2");
  CHECK(differing_fields(intel, docker) ==
        std::vector<string>{"cpu.model", "cpu.affinity", "memory.total_bytes", "os.name",
                            "os.version", "os.kernel", "virtualization", "container.kind"});
}

TEST_CASE("the PostgreSQL server's settings are compared but not hashed") {
  const Env base = capture_fixture("intel_baremetal");
  Env changed = base;
  PostgresSettings& pg = changed.postgres.emplace();
  pg.shared_buffers = "128MB";
  pg.same_host = true;
  CHECK(fingerprint(changed) == fingerprint(base));
  // A run that touched no server has nulls: one that did differs in what it knows.
  CHECK(differing_fields(base, changed) ==
        std::vector<string>{"postgres.shared_buffers", "postgres.same_host"});
  Env other = changed;
  other.postgres->shared_buffers = "1GB";
  other.postgres->fsync = "off";
  const auto differences = environment_differences(changed, other, {"postgres.fsync"});
  REQUIRE(differences.size() == 1);
  CHECK(differences[0] == FieldDifference{"postgres.shared_buffers", "\"128MB\"", "\"1GB\""});
}
