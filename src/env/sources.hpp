// Reading and parsing the files environment capture looks at (/proc, /sys, /etc), below a
// root directory. Internal to src/env; declared here so that tests can check the parsers on
// their own.
//
// Readers return nullopt for a file that is missing, unreadable or malformed; parsers return
// nullopt for text they do not understand. Nothing here throws but std::bad_alloc.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace benchledger::env::detail {

// A file below a root: under("/", "proc/cpuinfo") is /proc/cpuinfo.
class Root {
 public:
  explicit Root(std::filesystem::path root);
  std::filesystem::path path(std::string_view relative) const;
  bool is_live() const { return m_live; }  // the root is "/", the machine itself
  bool exists(std::string_view relative) const;
  // The whole file, at most max_bytes of it.
  std::optional<std::string> read(std::string_view relative,
                                  std::size_t max_bytes = 1024 * 1024) const;
  // The first line, trimmed; nullopt when missing or empty.
  std::optional<std::string> read_line(std::string_view relative) const;
  std::optional<std::int64_t> read_int(std::string_view relative) const;

 private:
  std::filesystem::path m_root;
  bool m_live;
};

std::string trim(std::string_view text);
std::optional<std::int64_t> parse_int(std::string_view text);
std::optional<double> parse_double(std::string_view text);

// A kernel CPU list such as "0-3,8,10-11": the number of CPUs in it (7).
std::optional<std::int64_t> count_cpu_list(std::string_view text);

// A sysfs cache size such as "48K", "2048K" or "32M", in bytes.
std::optional<std::int64_t> parse_cache_size(std::string_view text);

// /proc/cpuinfo as one key/value map per processor block.
using CpuinfoBlock = std::map<std::string, std::string, std::less<>>;
std::vector<CpuinfoBlock> parse_cpuinfo(std::string_view text);

// /etc/os-release: KEY=value lines, values unquoted and unescaped.
std::map<std::string, std::string, std::less<>> parse_os_release(std::string_view text);

// /proc/meminfo's MemTotal in bytes.
std::optional<std::int64_t> parse_meminfo_total(std::string_view text);

// /proc/loadavg's first three numbers.
std::optional<std::vector<double>> parse_loadavg(std::string_view text);

// One line of /proc/<pid>/cgroup: "hierarchy-id:controllers:path".
struct CgroupLine {
  std::string hierarchy;
  std::vector<std::string> controllers;  // empty for cgroup v2's "0::/path"
  std::string path;
};
std::vector<CgroupLine> parse_proc_cgroup(std::string_view text);

// cgroup v2 cpu.max ("150000 100000" or "max 100000") in CPUs; nullopt when unlimited.
std::optional<double> parse_cpu_max(std::string_view text);

// A hypervisor vendor name from CPUID leaf 0x40000000's 12-byte signature, or from DMI
// strings, in systemd-detect-virt's vocabulary (kvm, qemu, vmware, microsoft, xen, oracle,
// ...). nullopt when the text names no hypervisor.
std::optional<std::string> hypervisor_from_cpuid_signature(std::string_view signature);
std::optional<std::string> hypervisor_from_dmi(std::string_view text);

// A container kind from the cgroup paths of /proc/<pid>/cgroup (docker, podman, lxc,
// kubernetes); nullopt when none names a container.
std::optional<std::string> container_from_cgroup(std::string_view proc_cgroup);

}  // namespace benchledger::env::detail
