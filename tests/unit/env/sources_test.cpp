// The parsers of /proc, /sys and /etc files read what the kernel and os-release(5) write, and
// container detection follows docs/environment.md's order.
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "env/env.hpp"
#include "env/sources.hpp"
#include "env_test_support.hpp"
#include "support/scratch_dir.hpp"

namespace detail = benchledger::env::detail;
using std::optional;
using std::string;
using namespace std::string_literals;

TEST_CASE("count_cpu_list counts ranges and single CPUs of a kernel CPU list") {
  CHECK(detail::count_cpu_list("0") == optional<std::int64_t>(1));
  CHECK(detail::count_cpu_list("0-3\n") == optional<std::int64_t>(4));
  CHECK(detail::count_cpu_list("0-3,8,10-11") == optional<std::int64_t>(7));
  CHECK(detail::count_cpu_list("") == optional<std::int64_t>());
  CHECK(detail::count_cpu_list("3-1") == optional<std::int64_t>());
  CHECK(detail::count_cpu_list("a-b") == optional<std::int64_t>());
}

TEST_CASE("parse_cache_size reads sysfs sizes with K, M and G suffixes") {
  CHECK(detail::parse_cache_size("48K") == optional<std::int64_t>(49152));
  CHECK(detail::parse_cache_size("107520K\n") == optional<std::int64_t>(107520 * 1024));
  CHECK(detail::parse_cache_size("32M") == optional<std::int64_t>(32 * 1024 * 1024));
  CHECK(detail::parse_cache_size("512") == optional<std::int64_t>(512));
  CHECK(detail::parse_cache_size("K") == optional<std::int64_t>());
  CHECK(detail::parse_cache_size("big") == optional<std::int64_t>());
}

TEST_CASE("parse_os_release undoes double quotes, single quotes and backslash escapes") {
  const auto fields = detail::parse_os_release(
      "# comment\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=12\nID='debian'\n"
      "PRETTY_NAME=\"A \\\"quoted\\\" \\\\ name\"\nBROKEN=\"unterminated\n\n");
  CHECK(fields.at("NAME") == "Debian GNU/Linux");
  CHECK(fields.at("VERSION_ID") == "12");
  CHECK(fields.at("ID") == "debian");
  CHECK(fields.at("PRETTY_NAME") == "A \"quoted\" \\ name");
  CHECK(fields.count("BROKEN") == 0);
}

TEST_CASE("parse_meminfo_total converts MemTotal from kB to bytes") {
  CHECK(detail::parse_meminfo_total("MemFree: 5 kB\nMemTotal:       24682416 kB\n") ==
        optional<std::int64_t>(std::int64_t{24682416} * 1024));
  CHECK(detail::parse_meminfo_total("MemFree: 5 kB\n") == optional<std::int64_t>());
  CHECK(detail::parse_meminfo_total("MemTotal: 12 MB\n") == optional<std::int64_t>());
}

TEST_CASE("parse_loadavg takes the first three numbers of /proc/loadavg") {
  CHECK(detail::parse_loadavg("0.36 0.23 0.10 1/81 5976\n") ==
        optional<std::vector<double>>(std::vector<double>{0.36, 0.23, 0.10}));
  CHECK(detail::parse_loadavg("0.36 0.23") == optional<std::vector<double>>());
  CHECK(detail::parse_loadavg("x y z 1/2 3") == optional<std::vector<double>>());
}

TEST_CASE("parse_cpu_max gives the quota in CPUs and nothing when unlimited") {
  CHECK(detail::parse_cpu_max("150000 100000\n") == optional<double>(1.5));
  CHECK(detail::parse_cpu_max("50000 100000") == optional<double>(0.5));
  CHECK(detail::parse_cpu_max("max 100000") == optional<double>());
  CHECK(detail::parse_cpu_max("200000") == optional<double>(2.0));
  CHECK(detail::parse_cpu_max("0 100000") == optional<double>());
}

TEST_CASE("parse_proc_cgroup splits v1 and v2 lines") {
  const auto lines = detail::parse_proc_cgroup("4:cpu,cpuacct:/a/b\n0::/\n");
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].hierarchy == "4");
  CHECK(lines[0].controllers == std::vector<string>{"cpu", "cpuacct"});
  CHECK(lines[0].path == "/a/b");
  CHECK(lines[1].hierarchy == "0");
  CHECK(lines[1].controllers.empty());
  CHECK(lines[1].path == "/");
}

TEST_CASE("hypervisor names follow systemd-detect-virt for CPUID signatures and DMI strings") {
  CHECK(detail::hypervisor_from_cpuid_signature(string("KVMKVMKVM\0\0\0", 12)) ==
        optional<string>("kvm"));
  CHECK(detail::hypervisor_from_cpuid_signature("Microsoft Hv") == optional<string>("microsoft"));
  CHECK(detail::hypervisor_from_cpuid_signature("VMwareVMware") == optional<string>("vmware"));
  CHECK(detail::hypervisor_from_cpuid_signature("XenVMMXenVMM") == optional<string>("xen"));
  CHECK(detail::hypervisor_from_cpuid_signature("GenuineIntel") == optional<string>());
  CHECK(detail::hypervisor_from_dmi("QEMU") == optional<string>("qemu"));
  CHECK(detail::hypervisor_from_dmi("VMware, Inc.") == optional<string>("vmware"));
  CHECK(detail::hypervisor_from_dmi("innotek GmbH") == optional<string>("oracle"));
  CHECK(detail::hypervisor_from_dmi("Dell Inc.") == optional<string>());
}

TEST_CASE("container_from_cgroup recognises Docker, Podman, Kubernetes and LXC paths") {
  CHECK(detail::container_from_cgroup("0::/system.slice/docker-0123abcd.scope\n") ==
        optional<string>("docker"));
  CHECK(detail::container_from_cgroup("12:memory:/docker/0123abcd\n") ==
        optional<string>("docker"));
  CHECK(detail::container_from_cgroup("0::/machine.slice/libpod-0123.scope\n") ==
        optional<string>("podman"));
  CHECK(detail::container_from_cgroup("3:cpu:/kubepods/besteffort/pod1/abc\n") ==
        optional<string>("kubernetes"));
  CHECK(detail::container_from_cgroup("0::/lxc.payload.c1\n") == optional<string>("lxc"));
  CHECK(detail::container_from_cgroup("0::/\n") == optional<string>());
  CHECK(detail::container_from_cgroup("0::/user.slice/user-1000.slice\n") == optional<string>());
}

namespace {

// A temporary root directory, removed at the end of the test.
class TempTree {
 public:
  const std::filesystem::path& dir() const { return m_scratch.path(); }
  void write(const string& relative, const string& content) const {
    const auto path = dir() / relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << content;
  }
  void remove(const string& relative) const { std::filesystem::remove(dir() / relative); }

 private:
  benchledger::test_support::ScratchDir m_scratch;
};

optional<string> container_kind(const TempTree& tree) {
  benchledger::env::CaptureOptions options;
  options.root = tree.dir();
  options.run_tools = false;
  return benchledger::env::capture(options).container.kind;
}

}  // namespace

TEST_CASE("container detection takes the first of docs/environment.md's sources that answers") {
  TempTree tree;
  tree.write("proc/1/cgroup", "0::/system.slice/docker-0123.scope\n");
  CHECK(container_kind(tree) == optional<string>("docker"));
  tree.write("proc/1/cgroup", "0::/kubepods/pod1/abc\n");
  CHECK(container_kind(tree) == optional<string>("kubernetes"));
  tree.write(".dockerenv", "");
  CHECK(container_kind(tree) == optional<string>("docker"));
  tree.write("run/.containerenv", "");
  CHECK(container_kind(tree) == optional<string>("podman"));
  tree.write("proc/1/environ", "HOME=/\0container=lxc\0TERM=dumb\0"s);
  CHECK(container_kind(tree) == optional<string>("lxc"));
  tree.write("run/systemd/container", "systemd-nspawn\n");
  CHECK(container_kind(tree) == optional<string>("systemd-nspawn"));
  tree.write("run/host/container-manager", "oci\n");
  CHECK(container_kind(tree) == optional<string>("oci"));

  // Removing them again walks back down the order.
  tree.remove("run/host/container-manager");
  tree.remove("run/systemd/container");
  CHECK(container_kind(tree) == optional<string>("lxc"));
  tree.remove("proc/1/environ");
  tree.remove("run/.containerenv");
  tree.remove(".dockerenv");
  tree.remove("proc/1/cgroup");
  CHECK(container_kind(tree) == optional<string>());
}

TEST_CASE("malformed files leave their fields null instead of failing the capture") {
  TempTree tree;
  tree.write("proc/cpuinfo", "garbage without colons\n\n\n");
  tree.write("proc/meminfo", "MemTotal: lots\n");
  tree.write("proc/loadavg", "high\n");
  tree.write("sys/devices/system/cpu/online", "0-\n");
  tree.write("sys/devices/system/cpu/intel_pstate/no_turbo", "maybe\n");
  tree.write("sys/devices/system/cpu/smt/active", "forceoff\n");
  tree.write("proc/self/cgroup", "0::/x\n");
  tree.write("sys/fs/cgroup/cgroup.controllers", "cpu\n");
  tree.write("sys/fs/cgroup/x/cpu.max", "lots 100000\n");
  tree.write("sys/fs/cgroup/x/memory.max", "-5x\n");
  tree.write("etc/os-release", "NAME=\"unterminated\n");
  benchledger::env::CaptureOptions options;
  options.root = tree.dir();
  options.run_tools = false;
  const auto capture = benchledger::env::capture_with_notes(options);
  const auto& env = capture.env;
  CHECK(env.cpu.model == optional<string>());
  CHECK(env.cpu.logical == optional<std::int64_t>());
  CHECK(env.cpu.online == optional<std::int64_t>());
  CHECK(env.cpu.turbo == optional<bool>());
  CHECK(env.cpu.smt == optional<bool>());
  CHECK(env.cpu.quota == optional<double>());
  CHECK(env.memory.total_bytes == optional<std::int64_t>());
  CHECK(env.memory.limit_bytes == optional<std::int64_t>());
  CHECK(env.os.name == optional<string>());
  CHECK(env.load_avg == optional<std::vector<double>>());
  CHECK(capture.notes.empty());  // unreadable values are unknown, not failures
}
