// Starting and awaiting a command's run, shared by the command runner (engine/command.cpp) and the
// benchledger-spawn helper (engine/spawn_helper.cpp), which must stay small: libc only, nothing
// from the library.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>

namespace benchledger::engine {

// posix_spawn's attributes and file actions for a run, released on every path: its own process
// group (a timeout kills the whole group), every signal at its default and none blocked, stdin
// /dev/null, and unless `show_output` stdout /dev/null and stderr `stderr_fd` (a file that keeps
// a failed run's last lines), or /dev/null when that is negative.
class SpawnSetup {
 public:
  SpawnSetup(bool show_output, int stderr_fd) {
    ::posix_spawnattr_init(&m_attr);
    ::posix_spawn_file_actions_init(&m_actions);
    sigset_t none;
    sigemptyset(&none);
    sigset_t all;
    sigfillset(&all);
    ::posix_spawnattr_setsigmask(&m_attr, &none);
    ::posix_spawnattr_setsigdefault(&m_attr, &all);
    ::posix_spawnattr_setpgroup(&m_attr, 0);
    ::posix_spawnattr_setflags(
        &m_attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
    ::posix_spawn_file_actions_addopen(&m_actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    if (!show_output) {
      ::posix_spawn_file_actions_addopen(&m_actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
      if (stderr_fd >= 0) {
        ::posix_spawn_file_actions_adddup2(&m_actions, stderr_fd, STDERR_FILENO);
      } else {
        ::posix_spawn_file_actions_addopen(&m_actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
      }
    }
  }
  ~SpawnSetup() {
    ::posix_spawnattr_destroy(&m_attr);
    ::posix_spawn_file_actions_destroy(&m_actions);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
  const posix_spawnattr_t* attr() const { return &m_attr; }
  const posix_spawn_file_actions_t* actions() const { return &m_actions; }

 private:
  posix_spawnattr_t m_attr{};
  posix_spawn_file_actions_t m_actions{};
};

// CLOCK_MONOTONIC in nanoseconds (the clock of std::chrono::steady_clock on Linux).
inline std::int64_t monotonic_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Waits until the child exits (leaving it to be reaped) or monotonic_ns() reaches `deadline`;
// false on the deadline.
inline bool wait_until(pid_t pid, std::int64_t deadline) {
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  bool exited = false;
  while (!exited) {
    const std::int64_t left = deadline - monotonic_ns();
    if (left <= 0) break;
    if (pidfd >= 0) {
      pollfd p{pidfd, POLLIN, 0};
      const std::int64_t ms = left / 1000000 + 1;
      exited = ::poll(&p, 1, static_cast<int>(ms < 1000 ? ms : 1000)) > 0;
    } else {
      // No pidfd (kernel before 5.3): poll the child's state every millisecond.
      siginfo_t info{};
      exited = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
               info.si_pid == pid;
      if (!exited) ::usleep(1000);
    }
  }
  if (pidfd >= 0) ::close(pidfd);
  return exited;
}

}  // namespace benchledger::engine
