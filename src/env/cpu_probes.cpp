// The probes of the CPUs and their limits (cpu_probes.hpp), and affinity_cpus().
#include "env/cpu_probes.hpp"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "env/env.hpp"

namespace benchledger::env {
namespace detail {

namespace {

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

}  // namespace

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

namespace {

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

}  // namespace

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

namespace {

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

}  // namespace

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

}  // namespace detail

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

}  // namespace benchledger::env
