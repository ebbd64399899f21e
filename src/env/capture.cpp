// capture(): every probe of the environment, each bounded and unable to fail the run.
#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <functional>
#include <future>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <nlohmann/json.hpp>

#include "env/build_version.hpp"
#include "env/env.hpp"
#include "env/postgres_version.hpp"
#include "env/sources.hpp"
#include "env/subprocess.hpp"

#ifndef BENCHLEDGER_BUILD_TYPE
#define BENCHLEDGER_BUILD_TYPE ""
#endif

namespace benchledger::env {

namespace {

using detail::Root;

// Runs one probe; an exception leaves its fields as they were (null) and becomes a note.
void guarded(const char* probe, std::vector<std::string>& notes, const std::function<void()>& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    notes.push_back(std::string(probe) + ": " + e.what());
  } catch (...) {
    notes.push_back(std::string(probe) + ": unknown error");
  }
}

// ---- cpu -------------------------------------------------------------------------------

std::optional<std::string> arm_vendor(std::string_view implementer) {
  // "CPU implementer" codes of the Arm architecture reference manual (MIDR_EL1).
  if (implementer.substr(0, 2) == "0x") implementer.remove_prefix(2);
  unsigned code = 0;
  const auto [end, ec] =
      std::from_chars(implementer.data(), implementer.data() + implementer.size(), code, 16);
  if (ec != std::errc() || end != implementer.data() + implementer.size()) return std::nullopt;
  switch (code) {
    case 0x41:
      return "ARM";
    case 0x42:
      return "Broadcom";
    case 0x43:
      return "Cavium";
    case 0x46:
      return "Fujitsu";
    case 0x48:
      return "HiSilicon";
    case 0x4e:
      return "NVIDIA";
    case 0x50:
      return "APM";
    case 0x51:
      return "Qualcomm";
    case 0x61:
      return "Apple";
    case 0xc0:
      return "Ampere";
    default:
      return std::nullopt;
  }
}

void probe_cpuinfo(const Root& root, CpuInfo& cpu) {
  const auto text = root.read("proc/cpuinfo", 16 * 1024 * 1024);
  if (!text) return;
  const auto blocks = detail::parse_cpuinfo(*text);
  std::vector<const detail::CpuinfoBlock*> processors;
  for (const auto& block : blocks) {
    if (block.count("processor") != 0) processors.push_back(&block);
  }
  if (processors.empty()) return;
  cpu.logical = static_cast<std::int64_t>(processors.size());

  const auto& first = *processors.front();
  const auto field = [&](std::string_view key) -> std::optional<std::string> {
    const auto it = first.find(key);
    if (it == first.end() || it->second.empty()) return std::nullopt;
    return it->second;
  };
  cpu.model = field("model name");
  if (!cpu.model) cpu.model = field("cpu");  // POWER: "cpu : POWER9 (raw), altivec supported"
  cpu.vendor = field("vendor_id");
  if (!cpu.vendor) {
    if (auto implementer = field("CPU implementer")) cpu.vendor = arm_vendor(*implementer);
  }
  if (auto mhz = field("cpu MHz")) cpu.mhz = detail::parse_double(*mhz);

  // Cores and sockets only when every processor names its package and core.
  std::set<std::string> packages;
  std::set<std::pair<std::string, std::string>> cores;
  bool complete = true;
  for (const auto* block : processors) {
    const auto package = block->find("physical id");
    const auto core = block->find("core id");
    if (package == block->end() || core == block->end()) {
      complete = false;
      break;
    }
    packages.insert(package->second);
    cores.emplace(package->second, core->second);
  }
  if (complete) {
    cpu.sockets = static_cast<std::int64_t>(packages.size());
    cpu.physical = static_cast<std::int64_t>(cores.size());
  }
}

// CPU directories cpu0, cpu1, ... below sys/devices/system/cpu, in numeric order.
std::vector<std::string> cpu_dirs(const Root& root) {
  std::vector<std::pair<std::int64_t, std::string>> found;
  std::error_code ec;
  for (const auto& entry :
       std::filesystem::directory_iterator(root.path("sys/devices/system/cpu"), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() < 4 || name.compare(0, 3, "cpu") != 0) continue;
    if (auto n = detail::parse_int(std::string_view(name).substr(3)); n && *n >= 0)
      found.emplace_back(*n, "sys/devices/system/cpu/" + name);
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> dirs;
  for (auto& [n, dir] : found) dirs.push_back(std::move(dir));
  return dirs;
}

void probe_topology_fallback(const Root& root, CpuInfo& cpu) {
  // Architectures whose /proc/cpuinfo names no package or core ids (arm64) have them in
  // sysfs.
  if (cpu.physical && cpu.sockets) return;
  std::set<std::int64_t> packages;
  std::set<std::pair<std::int64_t, std::int64_t>> cores;
  const auto dirs = cpu_dirs(root);
  if (dirs.empty()) return;
  for (const auto& dir : dirs) {
    const auto package = root.read_int(dir + "/topology/physical_package_id");
    const auto core = root.read_int(dir + "/topology/core_id");
    if (!package || !core) return;
    packages.insert(*package);
    cores.emplace(*package, *core);
  }
  cpu.sockets = static_cast<std::int64_t>(packages.size());
  cpu.physical = static_cast<std::int64_t>(cores.size());
}

void probe_cpu_sysfs(const Root& root, CpuInfo& cpu) {
  // /proc/cpuinfo lists online CPUs only; `present` also counts those taken offline.
  if (auto present = root.read_line("sys/devices/system/cpu/present")) {
    if (auto count = detail::count_cpu_list(*present)) cpu.logical = count;
  }
  if (auto online = root.read_line("sys/devices/system/cpu/online"))
    cpu.online = detail::count_cpu_list(*online);

  if (auto smt = root.read_int("sys/devices/system/cpu/smt/active")) {
    if (*smt == 0 || *smt == 1) cpu.smt = *smt == 1;
  }

  // Every CPU's governor: one name when they agree, the distinct names joined by "," when
  // they do not.
  std::set<std::string> governors;
  for (const auto& dir : cpu_dirs(root)) {
    if (auto governor = root.read_line(dir + "/cpufreq/scaling_governor"))
      governors.insert(*governor);
  }
  if (!governors.empty()) {
    std::string joined;
    for (const auto& g : governors) joined += (joined.empty() ? "" : ",") + g;
    cpu.governor = joined;
  }

  // Turbo: intel_pstate's no_turbo (inverted), else acpi-cpufreq's global boost, else
  // amd-pstate's per-policy boost.
  if (auto no_turbo = root.read_int("sys/devices/system/cpu/intel_pstate/no_turbo");
      no_turbo && (*no_turbo == 0 || *no_turbo == 1)) {
    cpu.turbo = *no_turbo == 0;
  } else if (auto boost = root.read_int("sys/devices/system/cpu/cpufreq/boost");
             boost && (*boost == 0 || *boost == 1)) {
    cpu.turbo = *boost == 1;
  } else if (auto policy_boost = root.read_int("sys/devices/system/cpu/cpufreq/policy0/boost");
             policy_boost && (*policy_boost == 0 || *policy_boost == 1)) {
    cpu.turbo = *policy_boost == 1;
  }

  // Cache sizes as cpu0 sees them (per core for L1 and usually L2, shared for L3).
  std::error_code ec;
  for (const auto& entry :
       std::filesystem::directory_iterator(root.path("sys/devices/system/cpu/cpu0/cache"), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("index", 0) != 0) continue;
    const std::string dir = "sys/devices/system/cpu/cpu0/cache/" + name;
    const auto level = root.read_int(dir + "/level");
    const auto type = root.read_line(dir + "/type");
    const auto size_text = root.read_line(dir + "/size");
    if (!level || !type || !size_text) continue;
    const auto size = detail::parse_cache_size(*size_text);
    if (!size) continue;
    if (*level == 1 && *type == "Data") cpu.cache_bytes.l1d = size;
    if (*level == 2 && (*type == "Unified" || *type == "Data")) cpu.cache_bytes.l2 = size;
    if (*level == 3 && (*type == "Unified" || *type == "Data")) cpu.cache_bytes.l3 = size;
  }
}

void probe_affinity(const Root& root, CpuInfo& cpu) {
  if (root.is_live()) {
    cpu.affinity = affinity_cpus();
    return;
  }
  // A fixture tree: the allowed list the kernel shows in /proc/self/status.
  const auto status = root.read("proc/self/status");
  if (!status) return;
  std::string_view text = *status;
  const std::string_view key = "Cpus_allowed_list:";
  const std::size_t at = text.find(key);
  if (at == std::string_view::npos) return;
  std::string_view rest = text.substr(at + key.size());
  cpu.affinity = detail::count_cpu_list(rest.substr(0, rest.find('\n')));
}

// ---- cgroup limits -------------------------------------------------------------------------

// The smallest limit set on the cgroup at `path` or any of its ancestors below `mount`.
// `read_limit` returns nullopt for "no limit here".
template <typename T, typename ReadLimit>
std::optional<T> tightest_limit(const Root& root, const std::string& mount, const std::string& path,
                                ReadLimit read_limit) {
  std::string dir = path;
  // A cgroup path from another namespace does not exist below our mount; the mount's root is
  // then our own cgroup (a container's private cgroup namespace).
  if (!root.exists(mount + dir)) dir = "/";
  std::optional<T> tightest;
  while (true) {
    const std::string here = mount + (dir == "/" ? "" : dir);
    if (auto limit = read_limit(here); limit && (!tightest || *limit < *tightest)) tightest = limit;
    if (dir == "/" || dir.empty()) break;
    const std::size_t slash = dir.rfind('/');
    dir = slash == 0 ? "/" : dir.substr(0, slash);
  }
  return tightest;
}

void probe_cgroup_limits(const Root& root, CpuInfo& cpu, MemoryInfo& memory) {
  const auto text = root.read("proc/self/cgroup");
  if (!text) return;
  const auto lines = detail::parse_proc_cgroup(*text);

  const auto read_cpu_max = [&](const std::string& dir) -> std::optional<double> {
    const auto content = root.read_line(dir + "/cpu.max");
    return content ? detail::parse_cpu_max(*content) : std::nullopt;
  };
  const auto read_memory_max = [&](const std::string& dir) -> std::optional<std::int64_t> {
    const auto content = root.read_line(dir + "/memory.max");
    if (!content || *content == "max") return std::nullopt;
    return detail::parse_int(*content);
  };
  // cgroup v1: a quota of -1 is unlimited; memory.limit_in_bytes' "unlimited" is the largest
  // page-aligned value (about 2^63), anything from 2^62 up.
  const auto read_cfs = [&](const std::string& dir) -> std::optional<double> {
    const auto quota = root.read_int(dir + "/cpu.cfs_quota_us");
    const auto period = root.read_int(dir + "/cpu.cfs_period_us");
    if (!quota || !period || *quota <= 0 || *period <= 0) return std::nullopt;
    return static_cast<double>(*quota) / static_cast<double>(*period);
  };
  const auto read_limit_in_bytes = [&](const std::string& dir) -> std::optional<std::int64_t> {
    const auto limit = root.read_int(dir + "/memory.limit_in_bytes");
    if (!limit || *limit <= 0 || *limit >= (std::int64_t{1} << 62)) return std::nullopt;
    return limit;
  };

  for (const auto& line : lines) {
    if (line.hierarchy == "0" && line.controllers.empty()) {
      // cgroup v2: the unified hierarchy is /sys/fs/cgroup, or /sys/fs/cgroup/unified on a
      // hybrid system.
      const std::string mount = root.exists("sys/fs/cgroup/cgroup.controllers")
                                    ? "sys/fs/cgroup"
                                    : "sys/fs/cgroup/unified";
      if (auto quota = tightest_limit<double>(root, mount, line.path, read_cpu_max))
        cpu.quota = quota;
      if (auto limit = tightest_limit<std::int64_t>(root, mount, line.path, read_memory_max))
        memory.limit_bytes = limit;
      continue;
    }
    const auto has = [&](std::string_view controller) {
      return std::find(line.controllers.begin(), line.controllers.end(), controller) !=
             line.controllers.end();
    };
    std::string joined;
    for (const auto& c : line.controllers) joined += (joined.empty() ? "" : ",") + c;
    if (has("cpu") && !cpu.quota) {
      for (const std::string& mount :
           {"sys/fs/cgroup/" + joined, std::string("sys/fs/cgroup/cpu")}) {
        if (!root.exists(mount)) continue;
        cpu.quota = tightest_limit<double>(root, mount, line.path, read_cfs);
        break;
      }
    }
    if (has("memory") && !memory.limit_bytes && root.exists("sys/fs/cgroup/memory")) {
      memory.limit_bytes = tightest_limit<std::int64_t>(root, "sys/fs/cgroup/memory", line.path,
                                                        read_limit_in_bytes);
    }
  }
}

// ---- container and virtualization ------------------------------------------------------

std::optional<std::string> container_value(std::string_view text) {
  std::string value = detail::trim(text);
  if (value.rfind("container=", 0) == 0) value = value.substr(10);
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
    value = value.substr(1, value.size() - 2);
  if (value.empty()) return std::nullopt;
  return value;
}

std::optional<std::string> probe_container(const Root& root) {
  // The order that works under cgroup v2, where a private cgroup namespace shows "0::/".
  if (auto manager = root.read_line("run/host/container-manager")) return container_value(*manager);
  if (auto systemd = root.read_line("run/systemd/container")) return container_value(*systemd);
  if (auto environ = root.read("proc/1/environ")) {
    std::string_view rest = *environ;
    while (!rest.empty()) {
      const std::size_t end = rest.find('\0');
      const std::string_view entry = rest.substr(0, end);
      if (entry.rfind("container=", 0) == 0) {
        if (auto kind = container_value(entry)) return kind;
      }
      if (end == std::string_view::npos) break;
      rest.remove_prefix(end + 1);
    }
  }
  if (root.exists("run/.containerenv")) return "podman";
  if (root.exists(".dockerenv")) return "docker";
  for (const char* file : {"proc/1/cgroup", "proc/self/cgroup"}) {
    if (auto text = root.read(file)) {
      if (auto kind = detail::container_from_cgroup(*text)) return kind;
    }
  }
  return std::nullopt;
}

std::optional<std::string> cpuid_hypervisor() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return std::nullopt;
  if ((ecx & (1u << 31)) == 0) return std::nullopt;  // the hypervisor-present bit
  __cpuid(0x40000000u, eax, ebx, ecx, edx);
  std::string signature(12, '\0');
  for (int i = 0; i < 4; ++i) {
    signature[static_cast<std::size_t>(i)] = static_cast<char>((ebx >> (8 * i)) & 0xff);
    signature[static_cast<std::size_t>(4 + i)] = static_cast<char>((ecx >> (8 * i)) & 0xff);
    signature[static_cast<std::size_t>(8 + i)] = static_cast<char>((edx >> (8 * i)) & 0xff);
  }
  if (auto name = detail::hypervisor_from_cpuid_signature(signature)) return name;
  return "vm-other";  // the bit says virtualized; the vendor is not one we know
#else
  return std::nullopt;
#endif
}

std::optional<std::string> probe_virtualization(const Root& root) {
  if (root.is_live()) {
    if (auto name = cpuid_hypervisor()) return name;
  }
  for (const char* file : {"sys/class/dmi/id/product_name", "sys/class/dmi/id/sys_vendor"}) {
    if (auto text = root.read_line(file)) {
      if (auto name = detail::hypervisor_from_dmi(*text)) return name;
    }
  }
  if (root.exists("proc/device-tree/hypervisor")) {
    const auto compatible = root.read("proc/device-tree/hypervisor/compatible");
    const std::string text = compatible ? *compatible : "";
    if (text.find("linux,kvm") != std::string::npos) return "kvm";
    if (text.find("xen") != std::string::npos) return "xen";
    if (text.find("vmware") != std::string::npos) return "vmware";
    return "vm-other";
  }
  return std::nullopt;
}

// ---- clock, compiler -----------------------------------------------------------------------

std::optional<double> measure_clock_read_ns(std::chrono::milliseconds budget) {
  // The median over batches of the mean cost of one steady_clock::now() in a batch of 1000:
  // the batch amortizes the two reads that time it, the median drops batches an interrupt hit.
  constexpr int k_batches = 31;
  constexpr int k_reads = 1000;
  const auto start = std::chrono::steady_clock::now();
  std::vector<double> per_read;
  std::chrono::steady_clock::rep sink = 0;
  for (int batch = 0; batch < k_batches; ++batch) {
    const auto begin = std::chrono::steady_clock::now();
    for (int i = 0; i < k_reads; ++i)
      sink += std::chrono::steady_clock::now().time_since_epoch().count();
    const auto end = std::chrono::steady_clock::now();
    per_read.push_back(std::chrono::duration<double, std::nano>(end - begin).count() / k_reads);
    if (end - start > budget) break;
  }
  // An observable use of every read, so that no compiler may drop the calls.
  [[maybe_unused]] volatile std::chrono::steady_clock::rep observed = sink;
  if (per_read.empty()) return std::nullopt;
  std::sort(per_read.begin(), per_read.end());
  const std::size_t n = per_read.size();
  const double median = n % 2 == 1 ? per_read[n / 2] : (per_read[n / 2 - 1] + per_read[n / 2]) / 2;
  // Two decimals are all the precision this has.
  return std::round(median * 100.0) / 100.0;
}

std::string library_compiler() {
#if defined(__clang__)
  return "clang " + std::to_string(__clang_major__) + "." + std::to_string(__clang_minor__) + "." +
         std::to_string(__clang_patchlevel__);
#elif defined(__INTEL_LLVM_COMPILER)
  return "icx " + std::to_string(__INTEL_LLVM_COMPILER);
#elif defined(__GNUC__)
  return "gcc " + std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__) + "." +
         std::to_string(__GNUC_PATCHLEVEL__);
#elif defined(_MSC_VER)
  return "msvc " + std::to_string(_MSC_FULL_VER);
#else
  return "unknown";
#endif
}

// ---- tools -----------------------------------------------------------------------------

struct ToolProbe {
  std::optional<std::string> value;
  std::optional<std::string> note;
};

// The first non-empty line of a tool's stdout, when it exits 0 in time.
ToolProbe run_version_tool(const CaptureOptions& options, std::string_view name,
                           std::vector<std::string> args) {
  ToolProbe probe;
  try {
    const auto path = detail::find_tool(name, options.tool_dirs);
    if (!path) return probe;  // not installed: null, nothing to tell
    args.insert(args.begin(), path->string());
    const auto run = detail::run_tool(args, options.probe_timeout);
    if (run.timed_out) {
      probe.note = std::string(name) + ": no answer within " +
                   std::to_string(options.probe_timeout.count()) + " ms (killed)";
      return probe;
    }
    if (run.exit_status != 0) return probe;  // e.g. docker without a reachable daemon
    std::string_view rest = run.output;
    while (!rest.empty()) {
      const std::size_t end = rest.find('\n');
      std::string line = detail::trim(rest.substr(0, end));
      if (!line.empty()) {
        if (line.size() > 200) line.resize(200);
        probe.value = line;
        break;
      }
      if (end == std::string_view::npos) break;
      rest.remove_prefix(end + 1);
    }
  } catch (const std::exception& e) {
    probe.note = std::string(name) + ": " + e.what();
  }
  return probe;
}

// Files and tools may hold bytes that are not UTF-8 (a DMI string, a locale's output); a
// record must be valid UTF-8, so invalid sequences become U+FFFD.
void repair_utf8(std::optional<std::string>& text) {
  if (!text) return;
  const std::string dumped =
      nlohmann::json(*text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  text = nlohmann::json::parse(dumped).get<std::string>();
}

void repair_utf8(Env& env) {
  for (auto* text :
       {&env.host, &env.cpu.model, &env.cpu.vendor, &env.cpu.arch, &env.cpu.governor, &env.os.name,
        &env.os.version, &env.os.kernel, &env.virtualization, &env.container.kind,
        &env.container.docker_version, &env.clock.source, &env.runtimes.compiler,
        &env.runtimes.build_type, &env.runtimes.node, &env.runtimes.python,
        &env.runtimes.postgres_client, &env.runtimes.postgres_server, &env.runtimes.benchledger})
    repair_utf8(*text);
}

}  // namespace

std::optional<std::int64_t> affinity_cpus() {
  // Grow the set until it holds every CPU the kernel knows (more than 1024 on big hosts).
  for (int ncpus = 1024; ncpus <= (1 << 20); ncpus *= 2) {
    cpu_set_t* set = CPU_ALLOC(ncpus);
    if (set == nullptr) return std::nullopt;
    const std::size_t size = CPU_ALLOC_SIZE(ncpus);
    CPU_ZERO_S(size, set);
    const int rc = ::sched_getaffinity(0, size, set);
    const int saved = errno;
    const int count = rc == 0 ? CPU_COUNT_S(size, set) : 0;
    CPU_FREE(set);
    if (rc == 0) return count;
    if (saved != EINVAL) return std::nullopt;
  }
  return std::nullopt;
}

Capture capture_with_notes(const CaptureOptions& options) {
  Capture result;
  Env& env = result.env;
  auto& notes = result.notes;
  const Root root(options.root);

  // The clock first, while no tool started below competes for the CPUs.
  guarded("clock", notes, [&] {
    if (root.is_live()) env.clock.read_ns = measure_clock_read_ns(options.probe_timeout);
  });

  // Tools and Postgres take tens of milliseconds each: start them next, in parallel.
  std::vector<std::pair<std::optional<std::string>*, std::future<ToolProbe>>> pending;
  const auto start_tool = [&](std::optional<std::string>* field, std::string name,
                              std::vector<std::string> args) {
    try {
      pending.emplace_back(field, std::async(std::launch::async, [&options, name, args] {
                             return run_version_tool(options, name, args);
                           }));
    } catch (const std::exception& e) {
      notes.push_back(name + ": " + e.what());
    }
  };
  if (options.run_tools) {
    start_tool(&env.container.docker_version, "docker",
               {"version", "--format", "{{.Server.Version}}"});
    start_tool(&env.runtimes.node, "node", {"--version"});
    start_tool(&env.runtimes.python, "python3", {"--version"});
    start_tool(&env.runtimes.postgres_client, "psql", {"--version"});
  }
  std::optional<std::future<std::string>> postgres;
  if (options.postgres_dsn) {
    guarded("postgres", notes, [&] {
      postgres = std::async(std::launch::async, [&options] {
        return detail::postgres_server_version(*options.postgres_dsn, options.probe_timeout);
      });
    });
  }

  guarded("host", notes, [&] {
    if (root.is_live()) {
      std::string name(256, '\0');
      if (::gethostname(name.data(), name.size()) == 0) {
        name.resize(name.find('\0'));
        if (!name.empty()) env.host = name;
      }
    } else {
      env.host = root.read_line("proc/sys/kernel/hostname");
      if (!env.host) env.host = root.read_line("etc/hostname");
    }
  });
  guarded("cpuinfo", notes, [&] { probe_cpuinfo(root, env.cpu); });
  guarded("cpu topology", notes, [&] { probe_topology_fallback(root, env.cpu); });
  guarded("cpu sysfs", notes, [&] { probe_cpu_sysfs(root, env.cpu); });
  guarded("affinity", notes, [&] { probe_affinity(root, env.cpu); });
  guarded("cgroup", notes, [&] { probe_cgroup_limits(root, env.cpu, env.memory); });
  guarded("meminfo", notes, [&] {
    if (auto text = root.read("proc/meminfo"))
      env.memory.total_bytes = detail::parse_meminfo_total(*text);
  });
  guarded("os-release", notes, [&] {
    auto text = root.read("etc/os-release");
    if (!text) text = root.read("usr/lib/os-release");
    if (!text) return;
    const auto fields = detail::parse_os_release(*text);
    const auto get = [&](std::string_view key) -> std::optional<std::string> {
      const auto it = fields.find(key);
      if (it == fields.end() || it->second.empty()) return std::nullopt;
      return it->second;
    };
    env.os.name = get("NAME");
    env.os.version = get("VERSION_ID");
  });
  guarded("uname", notes, [&] {
    if (root.is_live()) {
      utsname names{};
      if (::uname(&names) != 0) return;
      env.os.kernel = std::string(names.release);
      env.cpu.arch = std::string(names.machine);
    } else {
      env.os.kernel = root.read_line("proc/sys/kernel/osrelease");
      env.cpu.arch = root.read_line("proc/sys/kernel/arch");
    }
  });
  guarded("container", notes, [&] { env.container.kind = probe_container(root); });
  guarded("virtualization", notes, [&] { env.virtualization = probe_virtualization(root); });
  guarded("clock source", notes, [&] {
    env.clock.source =
        root.read_line("sys/devices/system/clocksource/clocksource0/current_clocksource");
  });
  guarded("loadavg", notes, [&] {
    if (auto text = root.read_line("proc/loadavg")) env.load_avg = detail::parse_loadavg(*text);
  });
  env.runtimes.compiler = options.compiler ? options.compiler : library_compiler();
  if (options.build_type) {
    env.runtimes.build_type = options.build_type;
  } else if (std::string_view(BENCHLEDGER_BUILD_TYPE).size() > 0) {
    env.runtimes.build_type = std::string(BENCHLEDGER_BUILD_TYPE);
  }
  env.runtimes.benchledger = std::string(benchledger_version());

  for (auto& [field, future] : pending) {
    guarded("tool", notes, [&, field = field] {
      ToolProbe probe = future.get();
      *field = std::move(probe.value);
      if (probe.note) notes.push_back(*probe.note);
    });
  }
  if (postgres) {
    guarded("postgres", notes, [&] { env.runtimes.postgres_server = postgres->get(); });
  }

  repair_utf8(env);
  env.fingerprint = fingerprint(env);
  return result;
}

Env capture(const CaptureOptions& options) {
  return capture_with_notes(options).env;
}

GitCapture capture_git_with_notes(const std::filesystem::path& dir,
                                  std::chrono::milliseconds timeout,
                                  const std::vector<std::filesystem::path>& tool_dirs) {
  GitCapture capture;
  GitState& state = capture.git;
  try {
    const auto git = detail::find_tool("git", tool_dirs);
    if (!git) return capture;  // not installed: null, nothing to tell
    // The output of a successful call, or nullopt; a failure other than a non-zero exit (which
    // the caller judges) becomes a note.
    const auto ask = [&](std::vector<std::string> args) -> std::optional<detail::ToolRun> {
      const std::string subcommand = args.front();
      args.insert(args.begin(), {git->string(), "-C", dir.string()});
      auto run = detail::run_tool(args, timeout, 1024 * 1024);
      if (run.timed_out) {
        capture.notes.push_back("git " + subcommand + ": no answer within " +
                                std::to_string(timeout.count()) + " ms (killed)");
        return std::nullopt;
      }
      if (run.truncated) {
        capture.notes.push_back("git " + subcommand + ": more than 1 MiB of output (killed)");
        return std::nullopt;
      }
      if (run.exit_status < 0) {
        capture.notes.push_back("git " + subcommand + ": ended by a signal");
        return std::nullopt;
      }
      return run;
    };
    const auto commit = ask({"rev-parse", "--verify", "HEAD"});
    // A non-zero exit here: not a repository, or one without commits; nothing to tell.
    if (!commit || commit->exit_status != 0) return capture;
    state.commit = detail::trim(commit->output);
    // symbolic-ref -q exits 1 on a detached HEAD: no branch, and nothing to tell.
    if (auto branch = ask({"symbolic-ref", "--short", "-q", "HEAD"});
        branch && branch->exit_status == 0) {
      const std::string name = detail::trim(branch->output);
      if (!name.empty()) state.branch = name;
    }
    if (auto status = ask({"status", "--porcelain", "--untracked-files=no"})) {
      if (status->exit_status == 0) {
        state.dirty = !detail::trim(status->output).empty();
      } else {
        capture.notes.push_back("git status: exited with status " +
                                std::to_string(status->exit_status));
      }
    }
  } catch (const std::exception& e) {
    capture.git = GitState{};  // unknown: every field null
    capture.notes.push_back(std::string("git: ") + e.what());
  }
  return capture;
}

GitState capture_git(const std::filesystem::path& dir, std::chrono::milliseconds timeout,
                     const std::vector<std::filesystem::path>& tool_dirs) {
  return capture_git_with_notes(dir, timeout, tool_dirs).git;
}

}  // namespace benchledger::env
