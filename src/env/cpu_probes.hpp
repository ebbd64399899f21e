// The probes of capture() that read the CPUs and their limits (cpu_probes.cpp): /proc/cpuinfo,
// sysfs topology, frequency and caches, affinity, cgroup quotas. Each fills the fields it finds
// below `root` and leaves the others as they are; it may throw, which capture() turns into a
// note. Internal to src/env.
#pragma once

#include <benchledger/record.hpp>

#include "env/sources.hpp"

namespace benchledger::env::detail {

// Model, vendor, MHz, sockets and physical cores from /proc/cpuinfo.
void probe_cpuinfo(const Root& root, CpuInfo& cpu);
// Sockets and cores from sysfs topology, where /proc/cpuinfo had none (Arm).
void probe_topology_fallback(const Root& root, CpuInfo& cpu);
// Logical and online CPUs, governor, turbo, SMT and cache sizes from sysfs.
void probe_cpu_sysfs(const Root& root, CpuInfo& cpu);
// The CPUs this process may run on (Cpus_allowed_list of /proc/self/status).
void probe_affinity(const Root& root, CpuInfo& cpu);
// The tightest CPU quota and memory limit of this process's cgroup and its ancestors.
void probe_cgroup_limits(const Root& root, CpuInfo& cpu, MemoryInfo& memory);

}  // namespace benchledger::env::detail
