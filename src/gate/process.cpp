// fork and exec rather than posix_spawn: the child changes directory first, and the gate's
// steps take seconds, not the microseconds a spawn saves.
#include "gate/process.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <deque>
#include <fstream>
#include <iterator>
#include <tuple>

#include <fmt/format.h>
#include <benchledger/error.hpp>

namespace benchledger::gate {

std::string ProcessResult::describe() const {
  if (exit_code) return fmt::format("exit status {}", *exit_code);
  if (signal) {
    const char* name = ::sigabbrev_np(*signal);
    return name != nullptr ? fmt::format("killed by signal {} (SIG{})", *signal, name)
                           : fmt::format("killed by signal {}", *signal);
  }
  return "ended in an unknown way";
}

namespace {

constexpr int k_stop_signals[] = {SIGINT, SIGTERM, SIGHUP};

volatile std::sig_atomic_t g_stop_signal = 0;
// The process groups of the steps running (their leaders' pids): two at once in a duet, 0 in a
// free slot, -1 in one taken by a step not started yet. Lock-free atomics, so that the handler
// may read them.
std::atomic<pid_t> g_step_groups[2];
static_assert(std::atomic<pid_t>::is_always_lock_free);
struct sigaction g_previous[std::size(k_stop_signals)];

extern "C" void on_stop_signal(int signal) {
  if (g_stop_signal == 0) g_stop_signal = signal;
  // kill is async-signal-safe; the step ends, and the gate with it after cleaning up.
  for (const std::atomic<pid_t>& slot : g_step_groups) {
    const pid_t group = slot.load();
    if (group > 0) std::ignore = ::kill(-group, signal);
  }
}

// A free slot of g_step_groups, taken; throws Error when both are.
std::atomic<pid_t>& take_step_slot() {
  for (std::atomic<pid_t>& slot : g_step_groups) {
    pid_t free = 0;
    if (slot.compare_exchange_strong(free, -1)) return slot;
  }
  throw Error("more than two gate steps at once");
}

int open_log(const std::filesystem::path& log) {
  const int fd = ::open(log.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw Error(
        fmt::format("cannot open the gate's log {}: {}", log.string(), std::strerror(errno)));
  }
  return fd;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& dir,
                          const std::filesystem::path& log, bool capture_stdout,
                          const std::vector<int>& cpus) {
  if (argv.empty()) throw Error("no command to run");
  cpu_set_t cpu_set;
  CPU_ZERO(&cpu_set);
  for (const int cpu : cpus) CPU_SET(cpu, &cpu_set);
  std::atomic<pid_t>& slot = take_step_slot();
  struct FreeSlot {
    std::atomic<pid_t>& slot;
    ~FreeSlot() { slot = 0; }
  } free_slot{slot};
  const int log_fd = open_log(log);
  int pipe_fds[2] = {-1, -1};
  if (capture_stdout && ::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    std::ignore = ::close(log_fd);
    throw Error(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  }
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);

  // A step started after a stop signal (removing the worktrees on the way out) must run to its
  // end: only a signal that comes while this one starts is passed on below.
  const bool stopped_before = g_stop_signal != 0;
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    std::ignore = ::close(log_fd);
    if (capture_stdout) {
      std::ignore = ::close(pipe_fds[0]);
      std::ignore = ::close(pipe_fds[1]);
    }
    throw Error(fmt::format("cannot start {}: {}", argv[0], std::strerror(error)));
  }
  if (pid == 0) {
    // Only async-signal-safe calls from here to exec. A group of its own: a stop signal reaches
    // the step and everything it started (a build's compilers), and only through the gate, which
    // passes it on.
    std::ignore = ::setpgid(0, 0);
    const int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    ::dup2(capture_stdout ? pipe_fds[1] : log_fd, STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
    if (!cpus.empty() && ::sched_setaffinity(0, sizeof cpu_set, &cpu_set) != 0) {
      static const char message[] = "benchledger gate: cannot pin the step to its CPUs\n";
      std::ignore = ::write(STDERR_FILENO, message, sizeof message - 1);
      ::_exit(127);
    }
    if (::chdir(dir.c_str()) != 0) {
      static const char message[] = "benchledger gate: cannot change to the worktree\n";
      std::ignore = ::write(STDERR_FILENO, message, sizeof message - 1);
      ::_exit(127);
    }
    ::execvp(args[0], args.data());
    static const char message[] = "benchledger gate: cannot execute the command\n";
    std::ignore = ::write(STDERR_FILENO, message, sizeof message - 1);
    ::_exit(127);
  }
  std::ignore = ::close(log_fd);
  // Both parent and child set the group, so that it exists before either goes on.
  std::ignore = ::setpgid(pid, pid);
  slot = pid;
  // A signal that came after the fork, before the step had a group to pass it to.
  if (!stopped_before && g_stop_signal != 0) std::ignore = ::kill(-pid, g_stop_signal);
  ProcessResult result;
  if (capture_stdout) {
    std::ignore = ::close(pipe_fds[1]);
    char buffer[65536];
    for (;;) {
      const ssize_t got = ::read(pipe_fds[0], buffer, sizeof buffer);
      if (got > 0) {
        result.output.append(buffer, static_cast<std::size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        break;
      }
    }
    std::ignore = ::close(pipe_fds[0]);  // nothing to do if close fails after EOF
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      throw Error(fmt::format("cannot wait for {}: {}", argv[0], std::strerror(errno)));
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

StopSignals::StopSignals() {
  g_stop_signal = 0;
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  ::sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocking read or wait returns EINTR and is retried
  for (std::size_t i = 0; i < std::size(k_stop_signals); ++i) {
    std::ignore = ::sigaction(k_stop_signals[i], nullptr, &g_previous[i]);
    if (g_previous[i].sa_handler == SIG_IGN) continue;  // `nohup`, or `&` in a script
    std::ignore = ::sigaction(k_stop_signals[i], &action, nullptr);
  }
}

StopSignals::~StopSignals() {
  for (std::size_t i = 0; i < std::size(k_stop_signals); ++i) {
    std::ignore = ::sigaction(k_stop_signals[i], &g_previous[i], nullptr);
  }
}

int stop_signal() {
  return g_stop_signal;
}

Stopped::Stopped(int signal)
    : Error(fmt::format("stopped by signal {} (SIG{})", signal, ::sigabbrev_np(signal))),
      m_signal(signal) {}

void throw_if_stopped() {
  if (g_stop_signal != 0) throw Stopped(g_stop_signal);
}

void append_to_log(const std::filesystem::path& log, const std::string& line) {
  std::ofstream out(log, std::ios::app);
  out << line << '\n';
  if (!out) throw Error("cannot write the gate's log " + log.string());
}

std::string log_tail(const std::filesystem::path& log, std::size_t lines) {
  std::ifstream in(log);
  std::deque<std::string> last;
  std::string line;
  while (std::getline(in, line)) {
    last.push_back(line);
    if (last.size() > lines) last.pop_front();
  }
  std::string out;
  for (const std::string& l : last) out += "  " + l + "\n";
  return out;
}

}  // namespace benchledger::gate
