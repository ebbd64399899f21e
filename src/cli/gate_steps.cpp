#include "cli/gate_steps.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <system_error>
#include <tuple>

#include <fmt/format.h>
#include <benchledger/error.hpp>

#include "cli/compare_flags.hpp"
#include "gate/process.hpp"

namespace benchledger::cli {

WorkDirectory::WorkDirectory(const std::string& name, bool keep) : m_keep(keep) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") +
                        "/benchledger-" + name + "-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw Error(
        fmt::format("cannot create a temporary directory {}: {}", pattern, std::strerror(errno)));
  }
  m_path = pattern;
}

WorkDirectory::~WorkDirectory() {
  std::error_code ignored;  // the worktrees are gone already; this is their empty parent
  if (!m_keep) std::filesystem::remove_all(m_path, ignored);
}

std::vector<std::string> own_arguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  std::string arg;
  while (std::getline(in, arg, '\0')) args.push_back(arg);
  return args;
}

int run_stoppable(const std::string& name, const std::function<int()>& run) {
  int status = 0;
  {
    // Ctrl-C or a CI runner's SIGTERM must not leave worktrees behind: the step running gets
    // the signal, the command unwinds (removing them), and then ends by the same signal, so
    // that whatever waits for it sees why.
    const gate::StopSignals stop_signals;
    try {
      status = run_gating(run);
    } catch (const Error&) {
      // Stopped, or a step the signal broke (a `git worktree add` cut short): the signal says
      // why, not the error.
      if (gate::stop_signal() == 0) throw;
    }
    if (gate::stop_signal() == 0) return status;
  }
  const int signal = gate::stop_signal();
  std::cerr << fmt::format("{}: stopped by signal {} (SIG{}); its worktrees are removed\n", name,
                           signal, ::sigabbrev_np(signal));
  std::cerr.flush();
  std::ignore = std::signal(signal, SIG_DFL);
  std::ignore = std::raise(signal);
  return 128 + signal;
}

}  // namespace benchledger::cli
