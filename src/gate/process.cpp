// fork and exec rather than posix_spawn: the child changes directory first, and the gate's
// steps take seconds, not the microseconds a spawn saves.
#include "gate/process.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

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
  const bool stopped_before = stop_signal() != 0;
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
  engine::add_stop_target(-pid);
  // A signal that came after the fork, before the step had a group to pass it to.
  if (!stopped_before && stop_signal() != 0) std::ignore = ::kill(-pid, stop_signal());
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
  engine::remove_stop_target(-pid);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
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
