// capture(): every probe of the environment, each bounded and unable to fail the run.
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
#include "env/cpu_probes.hpp"
#include "env/env.hpp"
#include "env/postgres_version.hpp"
#include "env/sources.hpp"
#include "process/process.hpp"

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
    const auto path = process::find_program(name, options.tool_dirs);
    if (!path) return probe;  // not installed: null, nothing to tell
    process::Spec spec;
    spec.argv = std::move(args);
    spec.argv.insert(spec.argv.begin(), path->string());
    spec.timeout_s = static_cast<double>(options.probe_timeout.count()) / 1e3;
    spec.out = process::Stream::capture(64 * 1024);  // a version, not a flood
    const process::Exit run = process::run(spec);
    if (run.timed_out) {
      probe.note = std::string(name) + ": no answer within " +
                   std::to_string(options.probe_timeout.count()) + " ms (killed)";
      return probe;
    }
    if (!run.ok()) return probe;  // e.g. docker without a reachable daemon
    std::string_view rest = run.out;
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

// The host name: gethostname() on the machine itself, else the files below the root.
void probe_host(const Root& root, Env& env) {
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
}

// The distribution's name and version (os-release(5)).
void probe_os_release(const Root& root, OsInfo& os) {
  auto text = root.read("etc/os-release");
  if (!text) text = root.read("usr/lib/os-release");
  if (!text) return;
  const auto fields = detail::parse_os_release(*text);
  const auto get = [&](std::string_view key) -> std::optional<std::string> {
    const auto it = fields.find(key);
    if (it == fields.end() || it->second.empty()) return std::nullopt;
    return it->second;
  };
  os.name = get("NAME");
  os.version = get("VERSION_ID");
}

// The kernel release and the machine's architecture.
void probe_uname(const Root& root, Env& env) {
  if (root.is_live()) {
    utsname names{};
    if (::uname(&names) != 0) return;
    env.os.kernel = std::string(names.release);
    env.cpu.arch = std::string(names.machine);
  } else {
    env.os.kernel = root.read_line("proc/sys/kernel/osrelease");
    env.cpu.arch = root.read_line("proc/sys/kernel/arch");
  }
}

}  // namespace

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
  std::optional<std::future<detail::PostgresFacts>> postgres;
  if (options.postgres_dsn) {
    guarded("postgres", notes, [&] {
      postgres = std::async(std::launch::async, [&options] {
        return detail::postgres_server_facts(*options.postgres_dsn, options.probe_timeout);
      });
    });
  }

  guarded("host", notes, [&] { probe_host(root, env); });
  guarded("cpuinfo", notes, [&] { detail::probe_cpuinfo(root, env.cpu); });
  guarded("cpu topology", notes, [&] { detail::probe_topology_fallback(root, env.cpu); });
  guarded("cpu sysfs", notes, [&] { detail::probe_cpu_sysfs(root, env.cpu); });
  guarded("affinity", notes, [&] { detail::probe_affinity(root, env.cpu); });
  guarded("cgroup", notes, [&] { detail::probe_cgroup_limits(root, env.cpu, env.memory); });
  guarded("meminfo", notes, [&] {
    if (auto text = root.read("proc/meminfo"))
      env.memory.total_bytes = detail::parse_meminfo_total(*text);
  });
  guarded("os-release", notes, [&] { probe_os_release(root, env.os); });
  guarded("uname", notes, [&] { probe_uname(root, env); });
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

  // Not a structured binding: clang before 16 cannot capture one in a lambda (the fuzz build's
  // clang 14 among them).
  for (auto& entry : pending) {
    guarded("tool", notes, [&, field = entry.first] {
      ToolProbe probe = entry.second.get();
      *field = std::move(probe.value);
      if (probe.note) notes.push_back(*probe.note);
    });
  }
  if (postgres) {
    guarded("postgres", notes, [&] {
      detail::PostgresFacts facts = postgres->get();
      env.runtimes.postgres_server = std::move(facts.version);
      env.postgres = facts.settings;
    });
  }

  repair_utf8(env);
  env.fingerprint = fingerprint(env);
  return result;
}

Env capture(const CaptureOptions& options) {
  return capture_with_notes(options).env;
}

}  // namespace benchledger::env
