// On the machine running the tests, capture() reports what the kernel and the installed tools
// say, and `benchledger env --format json` prints exactly that object.
#include <stdio.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "env/env.hpp"
#include "env_test_support.hpp"
#include "process/process.hpp"
#include "support/process.hpp"

using benchledger::Env;
using std::optional;
using std::string;
namespace fs = std::filesystem;

namespace {

string read_file(const string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Output {
  string out;
  int status = -1;
};

Output run(const string& command) {
  const auto result = benchledger::test_support::run_shell(command);
  return {result.out, result.status};
}

string trimmed(string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// The "model name" line of /proc/cpuinfo, the kernel's own words.
optional<string> cpuinfo_value(const string& key) {
  std::istringstream lines(read_file("/proc/cpuinfo"));
  for (string line; std::getline(lines, line);) {
    if (line.rfind(key, 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == string::npos) continue;
    string value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.erase(0, 1);
    return value;
  }
  return std::nullopt;
}

bool exists(const string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

}  // namespace

TEST_CASE("the live machine's CPU, memory, kernel and tools are reported") {
  const Env env = benchledger::env::capture({});

  // CPU model, counts and memory against libc and coreutils.
  CHECK(env.cpu.model == cpuinfo_value("model name"));
  CHECK(env.cpu.vendor == cpuinfo_value("vendor_id"));
  CHECK(env.cpu.logical == optional<std::int64_t>(::sysconf(_SC_NPROCESSORS_CONF)));
  CHECK(env.cpu.online == optional<std::int64_t>(::sysconf(_SC_NPROCESSORS_ONLN)));
  CHECK(env.cpu.affinity == optional<std::int64_t>(std::stoll(run("nproc").out)));
  CHECK(env.memory.total_bytes ==
        optional<std::int64_t>(std::int64_t{::sysconf(_SC_PHYS_PAGES)} * ::sysconf(_SC_PAGESIZE)));
  CHECK(env.os.kernel == optional<string>(trimmed(run("uname -r").out)));
  CHECK(env.cpu.arch == optional<string>(trimmed(run("uname -m").out)));
  REQUIRE(env.clock.read_ns.has_value());
  CHECK(*env.clock.read_ns > 0);
  CHECK(env.runtimes.compiler.has_value());
  CHECK(env.fingerprint == benchledger::env::fingerprint(env));

  // Installed tools answer (node and docker only where installed; psql is in tools/setup).
  if (benchledger::process::find_program("node")) {
    REQUIRE(env.runtimes.node.has_value());
    CHECK(*env.runtimes.node == trimmed(run("node --version").out));
  }
  REQUIRE(env.runtimes.postgres_client.has_value());
  CHECK(env.runtimes.postgres_client->rfind("psql (PostgreSQL) ", 0) == 0);

  // Docker: the kind wherever /.dockerenv exists and nothing earlier in the order answers.
  if (exists("/.dockerenv") && !exists("/run/host/container-manager") &&
      !exists("/run/systemd/container") && !exists("/run/.containerenv") &&
      read_file("/proc/1/environ").find("container=") == string::npos) {
    CHECK(env.container.kind == optional<string>("docker"));
  }
  // A hypervisor name wherever the kernel saw CPUID's hypervisor bit.
  const auto flags = cpuinfo_value("flags");
  if (flags && (" " + *flags + " ").find(" hypervisor ") != string::npos) {
    CHECK(env.virtualization.has_value());
  }
  // Null, not "performance" or false, where /sys has no cpufreq.
  if (!exists("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")) {
    CHECK(env.cpu.governor == optional<string>());
  }
  if (!exists("/sys/devices/system/cpu/intel_pstate/no_turbo") &&
      !exists("/sys/devices/system/cpu/cpufreq/boost") &&
      !exists("/sys/devices/system/cpu/cpufreq/policy0/boost")) {
    CHECK(env.cpu.turbo == optional<bool>());
  }
}

TEST_CASE("the live machine's environment survives the record model's JSON round trip") {
  const Env env = benchledger::env::capture({});
  CHECK(benchledger::env_from_json(nlohmann::json::parse(benchledger::to_json(env).dump())) == env);
}

TEST_CASE("benchledger env --format json prints the env object a run records, on one line") {
  const char* bin = std::getenv("BENCHLEDGER_BIN");
  REQUIRE(bin != nullptr);
  const Output json = run(string(bin) + " env --format json 2>/dev/null");
  REQUIRE(json.status == 0);
  REQUIRE(!json.out.empty());
  CHECK(json.out.back() == '\n');
  CHECK(json.out.find('\n') == json.out.size() - 1);
  const Env printed = benchledger::env_from_json(nlohmann::json::parse(json.out));
  // Its canonical bytes are what to_json makes of it.
  CHECK(benchledger::to_json(printed).dump() + "\n" == json.out);
  // And it describes this machine: the comparability fields agree with a capture here, except
  // those that belong to the binary rather than the machine (the CLI may be another build).
  const Env here = benchledger::env::capture({});
  for (const auto& field : benchledger::env::differing_fields(printed, here)) {
    INFO(field);
    CHECK((field == "runtimes.compiler" || field == "runtimes.build_type"));
  }
  CHECK(printed.fingerprint == benchledger::env::fingerprint(printed));
}

TEST_CASE("benchledger env prints a table with every field and the stability warnings") {
  const char* bin = std::getenv("BENCHLEDGER_BIN");
  REQUIRE(bin != nullptr);
  const Output table = run(string(bin) + " env 2>/dev/null");
  REQUIRE(table.status == 0);
  for (const char* field :
       {"host", "cpu.model", "cpu.quota", "cpu.governor", "cpu.turbo", "cpu.cache_bytes.l3",
        "memory.total_bytes", "os.kernel", "virtualization", "container.kind", "clock.read_ns",
        "runtimes.postgres_client", "load_avg", "fingerprint"}) {
    INFO(field);
    CHECK(("\n" + table.out).find(string("\n") + field + " ") != string::npos);
  }
  for (const auto& warning : benchledger::env::stability_warnings(benchledger::env::capture({}))) {
    // The load warning's numbers move between two captures; the others are fixed sentences.
    if (warning.find("load average") != string::npos) continue;
    INFO(warning);
    CHECK(table.out.find("  - " + warning + "\n") != string::npos);
  }
  CHECK(run(string(bin) + " env --format yaml 2>/dev/null").status != 0);
}
