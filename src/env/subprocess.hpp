// Running a tool for its version output, bounded in time and output: fork/exec without a
// shell (posix_spawn), stdin and stderr on /dev/null, stdout captured. Internal to src/env.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace benchledger::env::detail {

struct ToolRun {
  std::string output;      // stdout, at most the cap
  int exit_status = -1;    // the exit code; -1 when killed or ended by a signal
  bool timed_out = false;  // killed at the deadline
  bool truncated = false;  // stopped (and killed) at the output cap
};

// Runs argv (argv[0] an executable path) in its own process group. At the deadline, or when
// stdout exceeds max_output bytes, the whole group is killed with SIGKILL and reaped.
// Throws std::runtime_error when the process cannot be started.
ToolRun run_tool(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                 std::size_t max_output = 64 * 1024);

// The first executable regular file named `name` in dirs, or in $PATH when dirs is empty.
std::optional<std::filesystem::path> find_tool(std::string_view name,
                                               const std::vector<std::filesystem::path>& dirs);

}  // namespace benchledger::env::detail
