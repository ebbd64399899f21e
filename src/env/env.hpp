// The environment fingerprint (docs/design.md, "Records", `env`): what machine and software a run
// measured on, read from Linux's /proc and /sys, a few tools' version output and compiler
// macros.
//
// capture() never throws and never fails a run: every probe is bounded in time and catches
// its own errors, leaving its fields null (unknown is null, never a guess). Under a root other
// than "/" every file is read below that root and the probes that can only see the live
// machine (CPUID, sched_getaffinity, uname, the clock-read measurement) are skipped, so tests
// run capture() against fixture trees with deterministic results.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "benchledger/record.hpp"

namespace benchledger::env {

struct CaptureOptions {
  // Every file is read below this directory: "/" for the machine itself, a fixture tree in
  // tests.
  std::filesystem::path root = "/";
  // When set, `SELECT version()` on this libpq connection string or URI fills
  // runtimes.postgres_server, and the server's settings fill env.postgres.
  std::optional<std::string> postgres_dsn;
  // The most one probe may take: a tool that has not exited by then is killed (with its
  // process group), a Postgres connection is abandoned.
  std::chrono::milliseconds probe_timeout{2000};
  // Whether to run `docker version`, `node --version`, `python3 --version`, `psql --version`.
  bool run_tools = true;
  // Directories searched for those tools; empty means $PATH.
  std::vector<std::filesystem::path> tool_dirs;
  // The compiler and build type of the code being measured. Unset: those of this library
  // (its compiler macros and the BENCHLEDGER_BUILD_TYPE it was built with).
  std::optional<std::string> compiler;
  std::optional<std::string> build_type;
};

// The environment plus what went wrong while reading it (a tool that timed out, a Postgres
// server that refused the connection): one lower-case sentence per probe that failed in a way
// worth telling a user. Fields of failed probes are null.
struct Capture {
  Env env;
  std::vector<std::string> notes;
};

// The number of CPUs this process may run on (sched_getaffinity, on hosts of any size), or
// nullopt when the kernel does not say.
std::optional<std::int64_t> affinity_cpus();

// Reads the environment; env.fingerprint is set. Never throws (std::bad_alloc aside).
Capture capture_with_notes(const CaptureOptions& options);
Env capture(const CaptureOptions& options);

// The comparability fields, in the fixed order the fingerprint hashes them, by dotted name:
// cpu.model, cpu.vendor, cpu.arch, cpu.logical, cpu.physical, cpu.sockets, cpu.online,
// cpu.affinity, cpu.quota, memory.total_bytes, memory.limit_bytes, os.name, os.version,
// os.kernel, virtualization, container.kind, runtimes.compiler, runtimes.build_type.
const std::vector<std::string>& comparability_fields();

// The canonical text the fingerprint hashes: a version line, then one `name=value` line per
// comparability field, the value as JSON (null, a number or a JSON string).
std::string fingerprint_text(const Env& env);

// SHA-256 (64 lower-case hex) of fingerprint_text(env). Ignores env.fingerprint itself.
std::string fingerprint(const Env& env);

// The fields compare holds two runs' environments to (docs/environment.md): the comparability
// fields, then the runtimes that a fingerprint leaves out because a run may not use them:
// runtimes.node, runtimes.python, runtimes.postgres_client, runtimes.postgres_server,
// runtimes.benchledger (which benchledger measured), then the
// measured PostgreSQL server's settings: postgres.shared_buffers, postgres.synchronous_commit,
// postgres.fsync, postgres.max_connections, postgres.wal_level, postgres.work_mem,
// postgres.same_host (null in a run given no server).
const std::vector<std::string>& compared_fields();

// A compared field whose values differ, both as fingerprint_text writes values (JSON).
struct FieldDifference {
  std::string field, base, current;
  bool operator==(const FieldDifference&) const = default;
};

// The one comparison of two environments that compare, --require-same-env and the report's
// "differs" marks all use: the compared fields whose values differ, in the order of
// compared_fields(), leaving out those named in `ignore` (benchledger.json's
// environment.ignore). Throws benchledger::Error when `ignore` names a field that is not
// compared.
std::vector<FieldDifference> environment_differences(const Env& base, const Env& current,
                                                     const std::vector<std::string>& ignore = {});

// The names of environment_differences(a, b) with nothing ignored.
std::vector<std::string> differing_fields(const Env& a, const Env& b);

// Why numbers measured in this environment may be unstable, one sentence each: a governor
// other than `performance`, turbo on, a high load for the CPUs available, a Debug build, a
// container or a virtual machine, a CPU quota below the CPU count. Unknown values (null) raise
// no warning.
std::vector<std::string> stability_warnings(const Env& env);

// The git state of the repository containing dir: HEAD's commit, its branch (null when
// detached) and whether tracked files have uncommitted changes. All null outside a
// repository, without git, or when git takes longer than timeout. Never throws.
GitState capture_git(const std::filesystem::path& dir,
                     std::chrono::milliseconds timeout = std::chrono::milliseconds{2000},
                     const std::vector<std::filesystem::path>& tool_dirs = {});

// The git state plus what went wrong while reading it, as capture_with_notes gives for the
// environment: one lower-case sentence for a git that did not answer within timeout, flooded
// its output, could not be started or failed on a repository it had recognised. A directory
// outside any repository, or no git installed, is not a failure: no note. Never throws.
struct GitCapture {
  GitState git;
  std::vector<std::string> notes;
};
GitCapture capture_git_with_notes(
    const std::filesystem::path& dir,
    std::chrono::milliseconds timeout = std::chrono::milliseconds{2000},
    const std::vector<std::filesystem::path>& tool_dirs = {});

}  // namespace benchledger::env
