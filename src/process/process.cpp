#include "process/process.hpp"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <tuple>

#include "process/spawn_core.hpp"
#include "process/temp_dir.hpp"

extern char** environ;

namespace benchledger::process {

namespace {

// A descriptor closed on every path.
class Fd {
 public:
  explicit Fd(int fd = -1) : m_fd(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return m_fd; }
  int release() { return std::exchange(m_fd, -1); }
  void reset(int fd = -1) {
    if (m_fd >= 0) std::ignore = ::close(m_fd);  // nothing to lose on a pipe or a read-only fd
    m_fd = fd;
  }

 private:
  int m_fd;
};

// This process's environment with `changes` (`NAME=VALUE`) replacing or adding to it.
std::vector<std::string> environment_with(const std::vector<std::string>& changes) {
  std::vector<std::string> out;
  const auto name_of = [](std::string_view entry) { return entry.substr(0, entry.find('=')); };
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view name = name_of(*entry);
    const bool replaced = std::any_of(changes.begin(), changes.end(),
                                      [&](const std::string& c) { return name_of(c) == name; });
    if (!replaced) out.emplace_back(*entry);
  }
  out.insert(out.end(), changes.begin(), changes.end());
  return out;
}

std::vector<char*> pointers(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// What the forked child reports through its close-on-exec pipe when it fails before exec.
struct ChildFailure {
  int step;  // an index into k_steps
  int error;
};
constexpr const char* k_steps[] = {
    "open /dev/null", "dup2",   "setpgid", "chdir", "sched_setaffinity",
    "setgroups",      "setgid", "setuid",  "prctl", "exec"};

[[noreturn]] void fail_in_child(int pipe_fd, int step) {
  const ChildFailure failure{step, errno};
  std::ignore = ::write(pipe_fd, &failure, sizeof failure);
  ::_exit(127);
}

// The pipe of a captured stream: the read end here (close-on-exec), the write end for the child.
std::pair<int, int> capture_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw Error(std::string("cannot create a pipe: ") + std::strerror(errno));
  return {fds[0], fds[1]};
}

}  // namespace

std::optional<std::filesystem::path> find_program(std::string_view name,
                                                  const std::vector<std::filesystem::path>& dirs) {
  const std::string text(name);
  if (text.empty()) return std::nullopt;
  if (text.find('/') != std::string::npos) {
    if (is_program(text.c_str())) return std::filesystem::path(text);
    return std::nullopt;
  }
  if (dirs.empty()) {
    std::string found(4096, '\0');
    if (!find_in_dirs(text.c_str(), search_path(), found.data(), found.size())) return std::nullopt;
    found.resize(std::strlen(found.c_str()));
    return std::filesystem::path(found);
  }
  for (const auto& dir : dirs) {
    const std::filesystem::path candidate = dir / text;
    if (is_program(candidate.c_str())) return candidate;
  }
  return std::nullopt;
}

std::string signal_name(int signal) {
  const char* abbreviation = ::sigabbrev_np(signal);
  return abbreviation != nullptr ? std::to_string(signal) + " (SIG" + abbreviation + ")"
                                 : std::to_string(signal);
}

Child::Child(const Spec& spec)
    : m_own_group(spec.own_group), m_out_spec(spec.out), m_err_spec(spec.err) {
  if (spec.argv.empty()) throw Error("no command to run");
  m_name = spec.argv.front();
  std::string program = m_name;
  if (program.find('/') == std::string::npos) {
    const auto found = find_program(program);
    if (!found) {
      throw SpawnError(
          "cannot start \"" + m_name + "\": " + std::strerror(ENOENT) + " (not in PATH)", ENOENT);
    }
    program = found->string();
  }
  const std::vector<std::string> env_strings = environment_with(spec.env);
  std::vector<char*> argv = pointers(spec.argv);
  std::vector<char*> envp = pointers(env_strings);

  // The child's stdout and stderr: a descriptor of this process's to duplicate, or none (-1:
  // inherited) — files are opened here, so that an error names the file.
  Fd null_out, out_file, err_file, out_write, err_write, out_read, err_read;
  const auto target_of = [&](const Stream& s, Fd& file, Fd& write_end, Fd& read_end) -> int {
    switch (s.kind) {
      case Stream::Kind::inherit:
        return -1;
      case Stream::Kind::null:
        if (null_out.get() < 0) {
          null_out.reset(::open("/dev/null", O_WRONLY | O_CLOEXEC));
          if (null_out.get() < 0)
            throw Error(std::string("cannot open /dev/null: ") + std::strerror(errno));
        }
        return null_out.get();
      case Stream::Kind::fd:
        return s.fd;
      case Stream::Kind::file: {
        const int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (s.append ? O_APPEND : O_TRUNC);
        file.reset(::open(s.path.c_str(), flags, 0644));
        if (file.get() < 0)
          throw Error("cannot open " + s.path.string() + " for \"" + m_name +
                      "\"'s output: " + std::strerror(errno));
        if (spec.user) std::ignore = ::fchown(file.get(), spec.user->uid, spec.user->gid);
        return file.get();
      }
      case Stream::Kind::capture:
      case Stream::Kind::tail: {
        const auto [read_fd, write_fd] = capture_pipe();
        read_end.reset(read_fd);
        write_end.reset(write_fd);
        return write_end.get();
      }
    }
    return -1;
  };
  const int out_target = target_of(spec.out, out_file, out_write, out_read);
  const int err_target = target_of(spec.err, err_file, err_write, err_read);

  const bool needs_fork = spec.user || spec.parent_death_signal != 0 || !spec.cpus.empty();
  m_start_ns = monotonic_ns();
  if (!needs_fork) {
    SpawnAttributes setup(spec.own_group, spec.default_signals, spec.inherit_stdin);
    if (out_target >= 0) ::posix_spawn_file_actions_adddup2(setup.actions(), out_target, 1);
    if (err_target >= 0) ::posix_spawn_file_actions_adddup2(setup.actions(), err_target, 2);
    for (const auto& [from, to] : spec.extra_fds)
      ::posix_spawn_file_actions_adddup2(setup.actions(), from, to);
    if (spec.dir) ::posix_spawn_file_actions_addchdir_np(setup.actions(), spec.dir->c_str());
    pid_t pid = 0;
    const int error = ::posix_spawn(&pid, program.c_str(), setup.actions(), setup.attr(),
                                    argv.data(), envp.data());
    if (error != 0) {
      throw SpawnError("cannot start \"" + m_name + "\"" +
                           (spec.dir ? " in " + spec.dir->string() : std::string()) + ": " +
                           std::strerror(error),
                       error);
    }
    m_pid = pid;
  } else {
    // fork and exec: posix_spawn cannot change the user, set a parent-death signal or pin CPUs.
    cpu_set_t cpu_set;
    CPU_ZERO(&cpu_set);
    for (const int cpu : spec.cpus) CPU_SET(cpu, &cpu_set);
    int report[2];
    if (::pipe2(report, O_CLOEXEC) != 0)
      throw Error(std::string("cannot create a pipe: ") + std::strerror(errno));
    Fd report_read(report[0]), report_write(report[1]);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
      const int error = errno;
      throw SpawnError("cannot start \"" + m_name + "\": fork: " + std::strerror(error), error);
    }
    if (pid == 0) {
      // Only async-signal-safe calls from here to exec.
      const int w = report_write.get();
      if (spec.own_group && ::setpgid(0, 0) != 0) fail_in_child(w, 2);
      if (spec.default_signals) {
        struct sigaction default_action {};
        default_action.sa_handler = SIG_DFL;
        for (int s = 1; s < NSIG; ++s) std::ignore = ::sigaction(s, &default_action, nullptr);
        sigset_t none;
        sigemptyset(&none);
        std::ignore = ::sigprocmask(SIG_SETMASK, &none, nullptr);
      }
      if (!spec.inherit_stdin) {
        const int null_in = ::open("/dev/null", O_RDONLY);
        if (null_in < 0) fail_in_child(w, 0);
        if (::dup2(null_in, STDIN_FILENO) < 0) fail_in_child(w, 1);
      }
      if (out_target >= 0 && ::dup2(out_target, STDOUT_FILENO) < 0) fail_in_child(w, 1);
      if (err_target >= 0 && ::dup2(err_target, STDERR_FILENO) < 0) fail_in_child(w, 1);
      for (const auto& [from, to] : spec.extra_fds)
        if (::dup2(from, to) < 0) fail_in_child(w, 1);
      if (spec.dir && ::chdir(spec.dir->c_str()) != 0) fail_in_child(w, 3);
      if (!spec.cpus.empty() && ::sched_setaffinity(0, sizeof cpu_set, &cpu_set) != 0)
        fail_in_child(w, 4);
      if (spec.user) {
        if (::setgroups(0, nullptr) != 0) fail_in_child(w, 5);
        if (::setgid(spec.user->gid) != 0) fail_in_child(w, 6);
        if (::setuid(spec.user->uid) != 0) fail_in_child(w, 7);
      }
      if (spec.parent_death_signal != 0) {
        // After the change of user, which clears a parent-death signal set before it (prctl(2));
        // a parent that died before this line would never send it.
        if (::prctl(PR_SET_PDEATHSIG, spec.parent_death_signal) != 0) fail_in_child(w, 8);
        if (::getppid() != parent) ::_exit(126);
      }
      ::execve(program.c_str(), argv.data(), envp.data());
      fail_in_child(w, 9);
    }
    m_pid = pid;
    report_write.reset();
    // Both sides set the group, so that it exists before a signal is passed on to it.
    if (spec.own_group) std::ignore = ::setpgid(pid, pid);
    ChildFailure failure{};
    ssize_t got = 0;
    while ((got = ::read(report_read.get(), &failure, sizeof failure)) < 0 && errno == EINTR) {
    }
    if (got == static_cast<ssize_t>(sizeof failure)) {
      int status = 0;
      std::ignore = reap_child(pid, &status, nullptr);  // it exited 127 just after the report
      m_pid = -1;
      const int step = failure.step >= 0 && failure.step < 10 ? failure.step : 9;
      throw SpawnError("cannot start \"" + m_name + "\"" +
                           (spec.dir ? " in " + spec.dir->string() : std::string()) + ": " +
                           k_steps[step] + ": " + std::strerror(failure.error),
                       failure.error);
    }
  }
  if (spec.timeout_s) m_deadline_ns = m_start_ns + static_cast<std::int64_t>(*spec.timeout_s * 1e9);
  m_out_pipe = out_read.release();
  m_err_pipe = err_read.release();
}

Child::~Child() {
  if (m_out_pipe >= 0) std::ignore = ::close(m_out_pipe);
  if (m_err_pipe >= 0) std::ignore = ::close(m_err_pipe);
  if (m_pid > 0) {
    kill_group();
    int status = 0;
    std::ignore = reap_child(m_pid, &status, nullptr);  // nothing more to do in a destructor
  }
}

void Child::kill_group() noexcept {
  if (m_own_group) std::ignore = ::kill(-m_pid, SIGKILL);  // ESRCH when it is gone: fine
  std::ignore = ::kill(m_pid, SIGKILL);
}

void Child::settle() {
  if (m_settled || m_pid <= 0) return;
  m_settled = true;
  const std::int64_t deadline = m_deadline_ns.value_or(std::numeric_limits<std::int64_t>::max());
  std::string* buffers[2] = {&m_exit.out, &m_exit.err};
  const Stream* streams[2] = {&m_out_spec, &m_err_spec};
  pollfd polled[2] = {{m_out_pipe, POLLIN, 0}, {m_err_pipe, POLLIN, 0}};
  char chunk[65536];
  while (polled[0].fd >= 0 || polled[1].fd >= 0) {
    const std::int64_t left = deadline - monotonic_ns();
    if (left <= 0) {
      m_exit.timed_out = true;
      kill_group();
      break;
    }
    const int ready =
        ::poll(polled, 2, static_cast<int>(std::min<std::int64_t>(left / 1000000 + 1, 1000)));
    if (ready <= 0) continue;  // EINTR (a stop signal, passed on by the caller) or a slice passed
    for (int i = 0; i < 2; ++i) {
      if (polled[i].fd < 0 || polled[i].revents == 0) continue;
      const ssize_t n = ::read(polled[i].fd, chunk, sizeof chunk);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) {
        polled[i].fd = -1;  // end of file: poll skips it from here on
        continue;
      }
      std::string& kept = *buffers[i];
      const Stream& s = *streams[i];
      const auto size = static_cast<std::size_t>(n);
      if (s.kind == Stream::Kind::tail) {
        kept.append(chunk, size);
        if (kept.size() > s.limit) kept.erase(0, kept.size() - s.limit);
      } else {
        const std::size_t take = std::min(size, s.limit - kept.size());
        kept.append(chunk, take);
        if (take < size || kept.size() >= s.limit) m_exit.truncated = true;
      }
    }
    if (m_exit.truncated) {
      kill_group();
      break;
    }
  }
  if (m_out_pipe >= 0) std::ignore = ::close(m_out_pipe);
  if (m_err_pipe >= 0) std::ignore = ::close(m_err_pipe);
  m_out_pipe = m_err_pipe = -1;
  if (m_exit.timed_out || m_exit.truncated) return;  // killed: reap() waits for it
  if (!wait_until(m_pid, deadline)) {
    m_exit.timed_out = true;
    kill_group();
  }
}

bool Child::has_exited() const {
  if (m_pid <= 0) return true;
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(m_pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == m_pid;
}

Exit Child::reap() {
  if (m_pid <= 0) throw Error("\"" + m_name + "\" was reaped already");
  settle();
  int status = 0;
  rusage usage{};
  const int error = reap_child(m_pid, &status, &usage);
  m_pid = -1;
  if (error != 0) throw Error("cannot wait for \"" + m_name + "\": " + std::strerror(error));
  m_exit.wall_ns = monotonic_ns() - m_start_ns;
  m_exit.user_us =
      static_cast<std::int64_t>(usage.ru_utime.tv_sec) * 1000000 + usage.ru_utime.tv_usec;
  m_exit.sys_us =
      static_cast<std::int64_t>(usage.ru_stime.tv_sec) * 1000000 + usage.ru_stime.tv_usec;
  m_exit.max_rss_kib = usage.ru_maxrss;
  if (WIFEXITED(status)) m_exit.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) m_exit.signal = WTERMSIG(status);
  return std::move(m_exit);
}

void Child::stop(int signal, std::chrono::milliseconds grace) noexcept {
  if (m_pid <= 0) return;
  std::ignore = ::kill(m_pid, signal);
  if (!wait_until(m_pid, monotonic_ns() + std::chrono::nanoseconds(grace).count())) kill_group();
  int status = 0;
  std::ignore = reap_child(m_pid, &status, nullptr);  // nothing more to do: it is gone either way
  m_pid = -1;
}

Exit run(const Spec& spec) {
  Child child(spec);
  return child.reap();
}

std::string read_tail(int fd, std::size_t max_bytes) {
  struct stat info {};
  if (fd < 0 || ::fstat(fd, &info) != 0 || info.st_size <= 0) return "";
  const auto size = static_cast<std::size_t>(info.st_size);
  const std::size_t wanted = std::min(size, max_bytes);
  std::string text(wanted, '\0');
  const ssize_t got = ::pread(fd, text.data(), wanted, static_cast<off_t>(size - wanted));
  if (got <= 0) return "";
  text.resize(static_cast<std::size_t>(got));
  return text;
}

std::filesystem::path temp_root() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
}

TempDir::TempDir(const std::string& prefix, const std::string& what) {
  const std::string pattern = (temp_root() / (prefix + "-XXXXXX")).string();
  std::string path = pattern;  // mkdtemp fills in the Xs, even when it fails
  if (::mkdtemp(path.data()) == nullptr) {
    throw Error("cannot create a directory like " + pattern + " for " + what + ": " +
                std::strerror(errno));
  }
  m_path = path;
}

TempDir::~TempDir() {
  if (m_released) return;
  std::error_code ignored;
  std::filesystem::remove_all(m_path, ignored);
}

}  // namespace benchledger::process
