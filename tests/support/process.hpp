// The one way the tests start a child process (the built CLI, a test program, psql, git, a
// shell): fork and exec with no shell in between unless the test asks for one, stdin from
// /dev/null, stdout and stderr captured through pipes (or sent to a file such as /dev/full, or
// stderr to a pseudo-terminal), extra environment, a working directory, a file-size limit and a
// hang guard. spawn() starts it, finish() reads both outputs to their end and reaps it, and
// run_process() does both.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
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

namespace benchledger::test_support {

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  int status = -1;    // the exit code, or 128 + the signal, as a shell reports it
  bool hung = false;  // killed by the hang guard
  std::string out, err;
  double seconds = 0;  // from the start to the end of both outputs
};

struct ProcessOptions {
  std::vector<std::string> env;           // extra NAME=value entries
  std::string cwd;                        // the child's working directory, when not empty
  std::optional<rlim_t> file_size_limit;  // RLIMIT_FSIZE, with SIGXFSZ ignored
  // A hang guard, not a timing: a child still running after this many seconds is killed with
  // SIGKILL and its result says `hung`. 0: wait for ever.
  int hang_guard_seconds = 0;
  std::string stdout_path;  // stdout opened here (/dev/full, /dev/null) instead of captured
  std::string stderr_path;  // the same for stderr
  // When not 0, stderr is a pseudo-terminal this many columns wide, and what the child writes to
  // it comes back in `err`: what a user at a terminal sees.
  unsigned short terminal_columns = 0;
};

// A started child and the read ends of its outputs (-1 for one not captured).
struct Child {
  pid_t pid = -1;
  int out = -1, err = -1;
  std::chrono::steady_clock::time_point started;
};

// Starts argv (argv[0] a path, or a name looked up in PATH). Throws std::runtime_error when it
// cannot start; a program that cannot be executed exits 127.
inline Child spawn(const std::vector<std::string>& argv, const ProcessOptions& options = {}) {
  int out[2] = {-1, -1}, err[2] = {-1, -1};
  if (options.stdout_path.empty() && ::pipe2(out, O_CLOEXEC) != 0) {
    throw std::runtime_error("pipe failed");
  }
  if (options.terminal_columns > 0) {
    winsize size{};
    size.ws_col = options.terminal_columns;
    size.ws_row = 24;
    if (::openpty(&err[0], &err[1], nullptr, nullptr, &size) != 0) {
      throw std::runtime_error("openpty failed");
    }
    ::fcntl(err[0], F_SETFD, FD_CLOEXEC);
    ::fcntl(err[1], F_SETFD, FD_CLOEXEC);
  } else if (options.stderr_path.empty() && ::pipe2(err, O_CLOEXEC) != 0) {
    throw std::runtime_error("pipe failed");
  }
  const auto started = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const auto redirect = [](int target, const std::string& path, int flags, int pipe_end) {
      const int fd = path.empty() ? pipe_end : ::open(path.c_str(), flags);
      if (fd < 0 || ::dup2(fd, target) < 0) ::_exit(126);
    };
    redirect(0, "/dev/null", O_RDONLY, -1);
    redirect(1, options.stdout_path, O_WRONLY, out[1]);
    redirect(2, options.stderr_path, O_WRONLY, err[1]);
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
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  if (out[1] >= 0) ::close(out[1]);
  if (err[1] >= 0) ::close(err[1]);
  return {pid, out[0], err[0], started};
}

// Reads the captured outputs to their end (a terminal's at EIO, when its last writer closed it)
// and reaps the child; with a hang guard (seconds), kills it first if it runs longer than that.
inline ProcessResult finish(Child child, int hang_guard_seconds = 0) {
  ProcessResult result;
  pollfd fds[2] = {{child.out, POLLIN, 0}, {child.err, POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_outputs = (child.out >= 0 ? 1 : 0) + (child.err >= 0 ? 1 : 0);
  char buffer[65536];
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(hang_guard_seconds);
  while (open_outputs > 0) {
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
    if (ready == 0) {  // the guard's time is up: the outputs close once the child is dead
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
        --open_outputs;
      }
    }
  }
  int status = 0;
  while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - child.started).count();
  if (WIFEXITED(status)) result.exit_code = result.status = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    result.status = 128 + result.signal;
  }
  return result;
}

inline ProcessResult run_process(const std::vector<std::string>& argv,
                                 const ProcessOptions& options = {}) {
  return finish(spawn(argv, options), options.hang_guard_seconds);
}

// A command line run by /bin/sh -c: for tests whose command needs a shell (a pipe, a glob).
inline ProcessResult run_shell(const std::string& command, const ProcessOptions& options = {}) {
  return run_process({"/bin/sh", "-c", command}, options);
}

}  // namespace benchledger::test_support
