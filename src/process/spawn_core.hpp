// The libc-only core of starting and awaiting a child (process/process.hpp), shared with the
// benchledger-spawn helper (engine/spawn_helper.cpp), which must stay small: nothing here
// allocates, throws or needs more than libc.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace benchledger::process {

// The one rule of what a program is: a regular file (or a link to one) this process may execute.
// A directory named like the program, which access(X_OK) accepts, is not one.
inline bool is_program(const char* path) {
  struct stat st {};
  return ::stat(path, &st) == 0 && S_ISREG(st.st_mode) && ::access(path, X_OK) == 0;
}

// The first `dir/name` in the colon-separated `dirs` (an empty entry is the current folder)
// that is_program() accepts, written into `out` (`size` bytes); false when none is, or the
// path does not fit.
inline bool find_in_dirs(const char* name, const char* dirs, char* out, std::size_t size) {
  const std::size_t name_length = std::strlen(name);
  for (const char* at = dirs;;) {
    const char* end = std::strchr(at, ':');
    const std::size_t length =
        end != nullptr ? static_cast<std::size_t>(end - at) : std::strlen(at);
    const char* dir = length == 0 ? "." : at;
    const std::size_t dir_length = length == 0 ? 1 : length;
    if (dir_length + 1 + name_length + 1 <= size) {
      std::memcpy(out, dir, dir_length);
      out[dir_length] = '/';
      std::memcpy(out + dir_length + 1, name, name_length + 1);
      if (is_program(out)) return true;
    }
    if (end == nullptr) return false;
    at = end + 1;
  }
}

// $PATH, or the shell's default when it is unset.
inline const char* search_path() {
  const char* path = ::getenv("PATH");
  return path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
}

// posix_spawn's attributes and file actions, released on every path: optionally a process
// group of its own (a timeout or a stop signal then reaches whatever the child starts) and every
// signal at its default with none blocked, whatever this process has set; stdin from /dev/null
// unless `inherit_stdin`. Callers add their own file actions.
class SpawnAttributes {
 public:
  SpawnAttributes(bool own_group, bool default_signals, bool inherit_stdin) {
    ::posix_spawnattr_init(&m_attr);
    ::posix_spawn_file_actions_init(&m_actions);
    short flags = 0;
    if (default_signals) {
      sigset_t none;
      sigemptyset(&none);
      sigset_t all;
      sigfillset(&all);
      ::posix_spawnattr_setsigmask(&m_attr, &none);
      ::posix_spawnattr_setsigdefault(&m_attr, &all);
      flags |= POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    }
    if (own_group) {
      ::posix_spawnattr_setpgroup(&m_attr, 0);
      flags |= POSIX_SPAWN_SETPGROUP;
    }
    ::posix_spawnattr_setflags(&m_attr, flags);
    if (!inherit_stdin)
      ::posix_spawn_file_actions_addopen(&m_actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  }
  ~SpawnAttributes() {
    ::posix_spawnattr_destroy(&m_attr);
    ::posix_spawn_file_actions_destroy(&m_actions);
  }
  SpawnAttributes(const SpawnAttributes&) = delete;
  SpawnAttributes& operator=(const SpawnAttributes&) = delete;
  posix_spawn_file_actions_t* actions() { return &m_actions; }
  const posix_spawnattr_t* attr() const { return &m_attr; }

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
// false on the deadline. A signal that interrupts the wait does not end it; a child that cannot
// be waited for (not this process's, reaped already) ends it at once, for reap_child to report.
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
      const int got = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
      // A child that is not there to wait for (ECHILD): nothing to wait for; reaping says why.
      exited = (got == 0 && info.si_pid == pid) || (got < 0 && errno != EINTR);
      if (!exited) ::usleep(1000);
    }
  }
  if (pidfd >= 0) ::close(pidfd);
  return exited;
}

// Reaps the child: wait4, again after EINTR. 0, or the errno that ended the wait (ECHILD: the
// child is not this process's or was reaped already), which a caller must treat as an error:
// `status` then says nothing.
inline int reap_child(pid_t pid, int* status, rusage* usage) {
  while (::wait4(pid, status, 0, usage) < 0) {
    if (errno != EINTR) return errno;
  }
  return 0;
}

}  // namespace benchledger::process
