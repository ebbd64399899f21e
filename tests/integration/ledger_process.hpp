// Running the real CLI (BENCHLEDGER_BIN) and the test appender as child processes for the
// ledger's integration tests: output captured, extra environment, optional file-size limit.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace benchledger::testing {

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  bool hung = false;  // killed by the hang guard
  std::string out, err;
};

struct ProcessOptions {
  std::vector<std::string> env;           // extra NAME=value entries
  std::optional<rlim_t> file_size_limit;  // RLIMIT_FSIZE, with SIGXFSZ ignored
  std::string cwd;                        // the child's working directory, when not empty
  // A hang guard, not a timing: a child still running after this many seconds is killed with
  // SIGKILL and its result says `hung`. 0: wait for ever.
  int hang_guard_seconds = 0;
};

inline std::string cli_path() {
  const char* bin = std::getenv("BENCHLEDGER_BIN");
  if (bin == nullptr) throw std::runtime_error("BENCHLEDGER_BIN is not set (run through ctest)");
  return bin;
}

// Starts argv[0] with pipes on stdout and stderr; returns the pid and the read ends.
struct Child {
  pid_t pid = -1;
  int out = -1, err = -1;
};

inline Child spawn(const std::vector<std::string>& argv, const ProcessOptions& options = {}) {
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
    throw std::runtime_error("pipe failed");
  }
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    for (const auto& entry : options.env) ::putenv(const_cast<char*>(entry.c_str()));
    if (!options.cwd.empty() && ::chdir(options.cwd.c_str()) != 0) ::_exit(126);
    if (options.file_size_limit) {
      ::signal(SIGXFSZ, SIG_IGN);  // inherited across exec: write() fails with EFBIG instead
      const rlimit limit{*options.file_size_limit, *options.file_size_limit};
      ::setrlimit(RLIMIT_FSIZE, &limit);
    }
    std::vector<char*> args;
    for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(out[1]);
  ::close(err[1]);
  return {pid, out[0], err[0]};
}

// Reads both pipes to their end and reaps the child; with a hang guard (seconds), kills it
// first if it runs longer than that.
inline ProcessResult finish(Child child, int hang_guard_seconds = 0) {
  ProcessResult result;
  pollfd fds[2] = {{child.out, POLLIN, 0}, {child.err, POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_pipes = 2;
  char buffer[65536];
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(hang_guard_seconds);
  while (open_pipes > 0) {
    int wait_ms = -1;
    if (hang_guard_seconds > 0 && !result.hung) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      wait_ms = static_cast<int>(std::max<std::int64_t>(left.count(), 0));
    }
    const int ready = ::poll(fds, 2, wait_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("poll failed");
    }
    if (ready == 0) {  // the guard's time is up: the pipes close once the child is dead
      ::kill(child.pid, SIGKILL);
      result.hung = true;
      continue;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t got = ::read(fds[i].fd, buffer, sizeof buffer);
      if (got > 0) {
        sinks[i]->append(buffer, static_cast<std::size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_pipes;
      }
    }
  }
  int status = 0;
  while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

inline ProcessResult run_process(const std::vector<std::string>& argv,
                                 const ProcessOptions& options = {}) {
  return finish(spawn(argv, options), options.hang_guard_seconds);
}

// `benchledger ledger ARGS...`
inline ProcessResult run_ledger(const std::vector<std::string>& args,
                                const ProcessOptions& options = {}) {
  std::vector<std::string> argv = {cli_path(), "ledger"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, options);
}

}  // namespace benchledger::testing
