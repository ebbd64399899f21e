// capture() reads every field of a fixture machine from the files docs/environment.md names, and
// leaves what those files do not say null (never a guess).
#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "env/env.hpp"
#include "env_test_support.hpp"

using benchledger::Env;
using benchledger::env::capture;
using benchledger::env::stability_warnings;
using benchledger::env::testing::capture_fixture;
using benchledger::env::testing::fixture_options;
using std::optional;
using std::string;

namespace {

bool any_contains(const std::vector<string>& lines, const string& part) {
  for (const auto& line : lines) {
    if (line.find(part) != string::npos) return true;
  }
  return false;
}

// What no fixture tree can say: the fields only the live machine or tools answer.
void require_live_only_fields_null(const Env& env) {
  CHECK(env.clock.read_ns == optional<double>());
  CHECK(env.container.docker_version == optional<string>());
  CHECK(env.runtimes.node == optional<string>());
  CHECK(env.runtimes.python == optional<string>());
  CHECK(env.runtimes.postgres_client == optional<string>());
  CHECK(env.runtimes.postgres_server == optional<string>());
  CHECK(env.runtimes.compiler == optional<string>("gcc 12.2.0"));
  CHECK(env.runtimes.build_type == optional<string>("Release"));
  CHECK(env.fingerprint == benchledger::env::fingerprint(env));
}

}  // namespace

TEST_CASE("a bare-metal Intel laptop reports intel_pstate's turbo and the powersave governor") {
  const Env env = capture_fixture("intel_baremetal");
  CHECK(env.host == optional<string>("laptop"));
  CHECK(env.cpu.model == optional<string>("Intel(R) Core(TM) i5-7300U CPU @ 2.60GHz"));
  CHECK(env.cpu.vendor == optional<string>("GenuineIntel"));
  CHECK(env.cpu.arch == optional<string>("x86_64"));
  CHECK(env.cpu.logical == optional<std::int64_t>(4));
  CHECK(env.cpu.physical == optional<std::int64_t>(2));
  CHECK(env.cpu.sockets == optional<std::int64_t>(1));
  CHECK(env.cpu.online == optional<std::int64_t>(4));
  CHECK(env.cpu.affinity == optional<std::int64_t>(4));
  CHECK(env.cpu.quota == optional<double>());
  CHECK(env.cpu.mhz == optional<double>(3100.0));
  CHECK(env.cpu.governor == optional<string>("powersave"));
  CHECK(env.cpu.turbo == optional<bool>(true));
  CHECK(env.cpu.smt == optional<bool>(true));
  CHECK(env.cpu.cache_bytes.l1d == optional<std::int64_t>(32 * 1024));
  CHECK(env.cpu.cache_bytes.l2 == optional<std::int64_t>(256 * 1024));
  CHECK(env.cpu.cache_bytes.l3 == optional<std::int64_t>(3072 * 1024));
  CHECK(env.memory.total_bytes == optional<std::int64_t>(std::int64_t{16279544} * 1024));
  CHECK(env.memory.limit_bytes == optional<std::int64_t>());
  CHECK(env.os.name == optional<string>("Ubuntu"));
  CHECK(env.os.version == optional<string>("22.04"));
  CHECK(env.os.kernel == optional<string>("5.15.0-91-generic"));
  CHECK(env.virtualization == optional<string>());
  CHECK(env.container.kind == optional<string>());
  CHECK(env.clock.source == optional<string>("tsc"));
  CHECK(env.load_avg == optional<std::vector<double>>(std::vector<double>{0.12, 0.30, 0.25}));
  require_live_only_fields_null(env);

  const auto warnings = stability_warnings(env);
  REQUIRE(warnings.size() == 2);
  CHECK(any_contains(warnings, "governor is \"powersave\", not \"performance\""));
  CHECK(any_contains(warnings, "turbo boost is on"));
}

TEST_CASE("an AMD host reports turbo from cpufreq/boost and warns of nothing else") {
  const Env env = capture_fixture("amd_host");
  CHECK(env.cpu.model == optional<string>("AMD Ryzen 7 5800X 8-Core Processor"));
  CHECK(env.cpu.vendor == optional<string>("AuthenticAMD"));
  CHECK(env.cpu.logical == optional<std::int64_t>(16));
  CHECK(env.cpu.physical == optional<std::int64_t>(8));
  CHECK(env.cpu.sockets == optional<std::int64_t>(1));
  CHECK(env.cpu.online == optional<std::int64_t>(16));
  CHECK(env.cpu.affinity == optional<std::int64_t>(16));
  CHECK(env.cpu.governor == optional<string>("performance"));
  CHECK(env.cpu.turbo == optional<bool>(true));
  CHECK(env.cpu.smt == optional<bool>(true));
  CHECK(env.cpu.cache_bytes.l2 == optional<std::int64_t>(512 * 1024));
  CHECK(env.cpu.cache_bytes.l3 == optional<std::int64_t>(32 * 1024 * 1024));
  CHECK(env.os.name == optional<string>("Debian GNU/Linux"));
  CHECK(env.os.version == optional<string>("12"));
  CHECK(env.os.kernel == optional<string>("6.1.0-17-amd64"));
  CHECK(env.virtualization == optional<string>());
  CHECK(env.container.kind == optional<string>());
  CHECK(env.memory.limit_bytes == optional<std::int64_t>());
  require_live_only_fields_null(env);

  const auto warnings = stability_warnings(env);
  REQUIRE(warnings.size() == 1);
  CHECK(any_contains(warnings, "turbo boost is on"));
}

TEST_CASE("a VM without cpufreq files has governor and turbo null, not performance and false") {
  const Env env = capture_fixture("vm_kvm");
  CHECK(env.cpu.governor == optional<string>());
  CHECK(env.cpu.turbo == optional<bool>());
  CHECK(env.cpu.smt == optional<bool>(false));
  CHECK(env.cpu.model == optional<string>("Intel Xeon Processor (Cascadelake)"));
  CHECK(env.cpu.logical == optional<std::int64_t>(2));
  CHECK(env.cpu.physical == optional<std::int64_t>(2));
  CHECK(env.cpu.sockets == optional<std::int64_t>(2));
  CHECK(env.virtualization == optional<string>("qemu"));
  CHECK(env.container.kind == optional<string>());
  CHECK(env.clock.source == optional<string>("kvm-clock"));
  CHECK(env.cpu.cache_bytes.l2 == optional<std::int64_t>(4096 * 1024));
  require_live_only_fields_null(env);

  const auto warnings = stability_warnings(env);
  REQUIRE(warnings.size() == 1);
  CHECK(any_contains(warnings, "virtual machine (qemu)"));
}

TEST_CASE("Docker under cgroup v2 is found by /.dockerenv although the cgroup path is 0::/") {
  const Env env = capture_fixture("docker_cgroup2");
  CHECK(env.container.kind == optional<string>("docker"));
  CHECK(env.virtualization == optional<string>("amazon"));    // DMI: sys_vendor "Amazon EC2"
  CHECK(env.cpu.quota == optional<double>());                 // cpu.max "max 100000"
  CHECK(env.memory.limit_bytes == optional<std::int64_t>());  // memory.max "max"
  CHECK(env.cpu.online == optional<std::int64_t>(4));
  CHECK(env.cpu.affinity == optional<std::int64_t>());  // no /proc/self/status in the tree
  CHECK(env.cpu.governor == optional<string>());
  CHECK(env.cpu.turbo == optional<bool>());
  CHECK(env.cpu.smt == optional<bool>());
  CHECK(env.host == optional<string>("3f2a9c1b7d4e"));
  require_live_only_fields_null(env);

  const auto warnings = stability_warnings(env);
  REQUIRE(warnings.size() == 2);
  CHECK(any_contains(warnings, "container (docker)"));
  CHECK(any_contains(warnings, "virtual machine (amazon)"));
}

TEST_CASE("Podman is found by /run/.containerenv, and os-release's quoting is undone") {
  const Env env = capture_fixture("podman");
  CHECK(env.container.kind == optional<string>("podman"));
  CHECK(env.os.name == optional<string>("Fedora Linux"));  // NAME='Fedora Linux'
  CHECK(env.os.version == optional<string>("39"));         // VERSION_ID=39
  CHECK(env.os.kernel == optional<string>("6.6.8-200.fc39.x86_64"));
  CHECK(env.cpu.vendor == optional<string>("AuthenticAMD"));
  CHECK(env.cpu.physical == optional<std::int64_t>(1));
  CHECK(env.cpu.logical == optional<std::int64_t>(2));
  require_live_only_fields_null(env);
}

TEST_CASE("a CPU quota and a memory limit are the tightest along the cgroup's ancestors") {
  const Env env = capture_fixture("cgroup_quota");
  CHECK(env.cpu.quota == optional<double>(1.5));  // the service's 150000/100000, not the slice's 4
  CHECK(env.memory.limit_bytes == optional<std::int64_t>(std::int64_t{2} << 30));  // the slice's
  CHECK(env.cpu.logical == optional<std::int64_t>(8));  // `present`: CPU 7 is offline
  CHECK(env.cpu.online == optional<std::int64_t>(7));
  CHECK(env.cpu.affinity == optional<std::int64_t>(6));
  CHECK(env.cpu.physical == optional<std::int64_t>(4));  // cores of the online CPUs
  CHECK(env.cpu.governor == optional<string>("performance,schedutil"));
  CHECK(env.cpu.turbo == optional<bool>(false));  // intel_pstate/no_turbo = 1
  CHECK(env.container.kind == optional<string>());
  require_live_only_fields_null(env);

  const auto warnings = stability_warnings(env);
  REQUIRE(warnings.size() == 3);
  CHECK(any_contains(warnings, "governor is \"performance,schedutil\""));
  CHECK(any_contains(warnings, "load average is 3.50 with 1.5 CPUs available"));
  CHECK(any_contains(warnings, "CPU quota is 1.5 CPUs, fewer than the 6 CPUs"));
}

TEST_CASE("Kubernetes on cgroup v1 is found by its cgroup path, its limits at the mounts' root") {
  const Env env = capture_fixture("kubernetes_cgroup1");
  CHECK(env.container.kind == optional<string>("kubernetes"));
  CHECK(env.cpu.quota == optional<double>(0.5));
  CHECK(env.memory.limit_bytes == optional<std::int64_t>(512 * 1024 * 1024));
  CHECK(env.virtualization == optional<string>("google"));  // product_name Google Compute Engine
  require_live_only_fields_null(env);
}

TEST_CASE("a root with no files at all gives nulls, not an error") {
  auto options = fixture_options("no-such-tree");
  const Env env = capture(options);
  CHECK(env.host == optional<string>());
  CHECK(env.cpu == benchledger::CpuInfo{});
  CHECK(env.memory == benchledger::MemoryInfo{});
  CHECK(env.os == benchledger::OsInfo{});
  CHECK(env.virtualization == optional<string>());
  CHECK(env.container == benchledger::ContainerInfo{});
  CHECK(env.clock == benchledger::ClockInfo{});
  CHECK(env.load_avg == optional<std::vector<double>>());
  CHECK(env.fingerprint.size() == 64);
  CHECK(stability_warnings(env).empty());
}
