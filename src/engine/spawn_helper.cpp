// benchledger-spawn: the small process that starts and times command mode's runs.
//
// Linux credits a process at exec with the peak resident set of the memory map it leaves
// (the kernel's setmax_mm_hiwater_rss at exec): a command spawned straight from benchledger (vfork)
// would report benchledger's own 10+ MiB as its max RSS, one forked from it (fork) the pages the
// fork copied, and the fork itself would add 0.3–1.5 ms to every wall time. Spawning from this
// helper, which uses nothing but libc and stays near 1 MiB, gives each run its own max RSS and
// a vfork-fast start.
//
// Protocol on fds 3 (requests in) and 4 (responses out), native byte order; the helper exits
// at end of file on fd 3:
//   request:  int32 argc, argc x (int32 length, bytes), double timeout_s (<= 0: none),
//             int32 show_output
//   response: SpawnResponse (engine/spawn_protocol.hpp)
// fds 0-2 are inherited: a run's stdin is /dev/null, its stdout /dev/null and its stderr fd 5 (a
// file the engine truncates before each run and reads after a failed one; /dev/null when fd 5 is
// not open) unless show_output.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "engine/spawn_protocol.hpp"
#include "process/spawn_core.hpp"

extern char** environ;

namespace {

using benchledger::engine::read_exact;
using benchledger::engine::SpawnResponse;
using benchledger::engine::write_exact;
using benchledger::process::find_in_dirs;
using benchledger::process::monotonic_ns;
using benchledger::process::reap_child;
using benchledger::process::search_path;
using benchledger::process::SpawnAttributes;
using benchledger::process::wait_until;

constexpr int k_requests = 3;
constexpr int k_responses = 4;
constexpr int k_stderr_file = 5;
constexpr std::int32_t k_max_args = 65536;
constexpr std::int32_t k_max_arg_bytes = 1 << 20;

// The run in progress, for the signal handler: a run started in its own process group does
// not get the terminal's Ctrl-C, so the helper passes it on before it goes.
volatile sig_atomic_t g_running = 0;

// Sleeps 10 ms a time (nanosleep is async-signal-safe) until `gone` holds, at most `ticks` times.
template <class Gone>
bool wait_ticks(int ticks, Gone gone) {
  for (int i = 0; i < ticks; ++i) {
    if (gone()) return true;
    const timespec tick{0, 10'000'000};
    ::nanosleep(&tick, nullptr);
  }
  return gone();
}

// The same signal first, so that a run that cleans up on it can (Valgrind, killed outright
// between creating a temporary file in TMPDIR and unlinking it, leaves the file), again every
// 200 ms while the leader lives (a Valgrind still starting up can lose the first one and count
// on); SIGKILL for a group still there after 10 s. The helper exits only once the run's group is
// gone, so that benchledger, which waits for it, removes its temporary folders after the last write
// into them.
void on_termination(int signal) {
  const pid_t running = static_cast<pid_t>(g_running);
  if (running > 0) {
    ::kill(-running, signal);
    ::kill(running, signal);
    int ticks = 0;
    const auto leader_gone = [running, signal, &ticks] {
      int status = 0;
      // ECHILD: reaped already by run(), which the signal interrupted after its wait4.
      const pid_t got = ::waitpid(running, &status, WNOHANG);
      if (got == running || (got < 0 && errno != EINTR)) return true;
      if (++ticks % 20 == 0) ::kill(-running, signal);
      return false;
    };
    if (!wait_ticks(1000, leader_gone)) {
      ::kill(-running, SIGKILL);
      int status = 0;
      static_cast<void>(reap_child(running, &status, nullptr));  // the helper exits either way
    }
    // The rest of the group (the leader's children, reaped by init); SIGKILL after 10 s more.
    const auto group_gone = [running] { return ::kill(-running, 0) != 0; };
    if (!wait_ticks(1000, group_gone)) {
      ::kill(-running, SIGKILL);
      wait_ticks(1000, group_gone);
    }
  }
  ::_exit(128 + signal);
}

// Its own process group (a timeout kills the whole group), every signal at its default and none
// blocked, stdin /dev/null, and unless `show_output` stdout /dev/null and stderr `stderr_fd` (a
// file that keeps a failed run's last lines), or /dev/null when that is negative.
SpawnResponse run(char** argv, double timeout_s, bool show_output, int stderr_fd) {
  SpawnResponse response{};
  // argv[0] found by the library's one rule (process::find_program): a regular file this
  // process may execute, searched in PATH when the name has no slash.
  static char program[4096];
  if (std::strchr(argv[0], '/') != nullptr) {
    if (std::strlen(argv[0]) >= sizeof program) {
      response.spawn_errno = ENAMETOOLONG;
      return response;
    }
    std::strcpy(program, argv[0]);
  } else if (!find_in_dirs(argv[0], search_path(), program, sizeof program)) {
    response.spawn_errno = ENOENT;
    return response;
  }
  SpawnAttributes setup(true, true, false);
  if (!show_output) {
    ::posix_spawn_file_actions_addopen(setup.actions(), STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    if (stderr_fd >= 0) {
      ::posix_spawn_file_actions_adddup2(setup.actions(), stderr_fd, STDERR_FILENO);
    } else {
      ::posix_spawn_file_actions_addopen(setup.actions(), STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    }
  }
  pid_t pid = 0;
  const std::int64_t start = monotonic_ns();
  const int error = ::posix_spawn(&pid, program, setup.actions(), setup.attr(), argv, environ);
  if (error != 0) {
    response.spawn_errno = error;
    return response;
  }
  g_running = pid;
  if (timeout_s > 0 && !wait_until(pid, start + static_cast<std::int64_t>(timeout_s * 1e9))) {
    response.timed_out = 1;
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
  }
  int status = 0;
  rusage usage{};
  if (const int failed = reap_child(pid, &status, &usage); failed != 0) {
    response.spawn_errno = failed;
    return response;
  }
  response.wall_ns = monotonic_ns() - start;
  g_running = 0;
  response.user_us =
      static_cast<std::int64_t>(usage.ru_utime.tv_sec) * 1000000 + usage.ru_utime.tv_usec;
  response.sys_us =
      static_cast<std::int64_t>(usage.ru_stime.tv_sec) * 1000000 + usage.ru_stime.tv_usec;
  response.max_rss_kib = usage.ru_maxrss;
  if (WIFEXITED(status)) {
    response.exited = 1;
    response.exit_code = WEXITSTATUS(status);
  }
  if (WIFSIGNALED(status)) {
    response.signaled = 1;
    response.signal = WTERMSIG(status);
  }
  return response;
}

}  // namespace

int main() {
  ::signal(SIGPIPE, SIG_IGN);
  struct sigaction action {};
  action.sa_handler = on_termination;
  const int signals[] = {SIGINT, SIGTERM, SIGHUP};
  // One at a time: a second signal (Ctrl-C from the terminal, then benchledger's) waits.
  sigemptyset(&action.sa_mask);
  for (const int signal : signals) sigaddset(&action.sa_mask, signal);
  for (const int signal : signals) ::sigaction(signal, &action, nullptr);
  // benchledger killed outright (SIGKILL) cannot tell the helper: the kernel does.
  const pid_t parent = ::getppid();
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != parent) return 1;
  // Only the run's stderr is the file: no run inherits it as a descriptor of its own.
  const int stderr_fd = ::fcntl(k_stderr_file, F_SETFD, FD_CLOEXEC) == 0 ? k_stderr_file : -1;
  while (true) {
    std::int32_t argc = 0;
    if (!read_exact(k_requests, &argc, sizeof argc)) return 0;  // the engine is done
    if (argc < 1 || argc > k_max_args) return 2;
    char** argv =
        static_cast<char**>(std::calloc(static_cast<std::size_t>(argc) + 1, sizeof(char*)));
    if (argv == nullptr) return 3;
    for (std::int32_t i = 0; i < argc; ++i) {
      std::int32_t length = 0;
      if (!read_exact(k_requests, &length, sizeof length) || length < 0 || length > k_max_arg_bytes)
        return 2;
      argv[i] = static_cast<char*>(std::malloc(static_cast<std::size_t>(length) + 1));
      if (argv[i] == nullptr) return 3;
      if (!read_exact(k_requests, argv[i], static_cast<std::size_t>(length))) return 2;
      argv[i][length] = '\0';
    }
    double timeout_s = 0;
    std::int32_t show_output = 0;
    if (!read_exact(k_requests, &timeout_s, sizeof timeout_s) ||
        !read_exact(k_requests, &show_output, sizeof show_output))
      return 2;
    const SpawnResponse response = run(argv, timeout_s, show_output != 0, stderr_fd);
    for (std::int32_t i = 0; i < argc; ++i) std::free(argv[i]);
    std::free(argv);
    if (!write_exact(k_responses, &response, sizeof response)) return 0;
  }
}
