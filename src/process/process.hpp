// Starting a child process, the one way every folder does it (docs/ARCHITECTURE.md): argv
// without a shell, an optional working folder, environment changes, user, process group,
// parent-death signal and CPUs, a timeout that kills the child's group, and each output stream
// to /dev/null, inherited, a descriptor, a file, or captured (bounded) through a pipe. One PATH
// lookup and one wait, which retries EINTR and reports every other errno as an error.
//
// Stop signals are the caller's (engine/stop_signals.hpp, a folder above this one): a Child
// exposes the pid between its start and its reaping, where a caller sets the stop target.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <benchledger/error.hpp>

namespace benchledger::process {

// The first `dir/name` in `dirs`, or in $PATH when `dirs` is empty, that is a regular file this
// process may execute (a directory or a file without the execute bit is skipped); nullopt when
// none is. A `name` with a slash is not searched: it is returned when it is such a file.
std::optional<std::filesystem::path> find_program(
    std::string_view name, const std::vector<std::filesystem::path>& dirs = {});

// Where a child's stdout or stderr goes.
struct Stream {
  enum class Kind { null, inherit, fd, file, capture, tail };
  Kind kind = Kind::null;
  int fd = -1;                 // fd: this descriptor, duplicated (the caller keeps it)
  std::filesystem::path path;  // file: created if missing, appended to or truncated
  bool append = false;
  // capture: the first `limit` bytes are kept, and the child's group is killed (Exit::truncated)
  // when it writes more; tail: everything is read and the last `limit` bytes kept.
  std::size_t limit = 0;

  static Stream null() { return {}; }
  static Stream inherit() { return with(Kind::inherit); }
  static Stream to_fd(int fd) {
    Stream s = with(Kind::fd);
    s.fd = fd;
    return s;
  }
  static Stream to_file(std::filesystem::path path, bool append) {
    Stream s = with(Kind::file);
    s.path = std::move(path);
    s.append = append;
    return s;
  }
  static Stream capture(std::size_t limit = std::numeric_limits<std::size_t>::max()) {
    Stream s = with(Kind::capture);
    s.limit = limit;
    return s;
  }
  static Stream tail(std::size_t limit) {
    Stream s = with(Kind::tail);
    s.limit = limit;
    return s;
  }

 private:
  static Stream with(Kind kind) {
    Stream s;
    s.kind = kind;
    return s;
  }
};

// Whom the child runs as (setgroups to none, setgid, setuid before exec): files the Stream
// creates for it are given to that user.
struct User {
  uid_t uid = 0;
  gid_t gid = 0;
};

struct Spec {
  // argv[0]: a name without a slash is searched in PATH (find_program); a path is executed as it
  // is, relative to `dir` when one is given.
  std::vector<std::string> argv;
  std::optional<std::filesystem::path> dir;  // the child's working folder
  std::vector<std::string> env;              // `NAME=VALUE`, replacing or adding to this
                                             // process's environment
  std::optional<User> user;
  bool own_group = true;            // a process group of its own, led by the child
  bool default_signals = true;      // every signal at its default disposition, none blocked
  int parent_death_signal = 0;      // sent to the child when this thread ends (prctl); 0: none
  std::vector<int> cpus;            // pinned to these CPUs (sched_setaffinity); empty: any
  std::optional<double> timeout_s;  // past it the child (and its group) gets SIGKILL
  bool inherit_stdin = false;       // else /dev/null
  Stream out, err;
  std::vector<std::pair<int, int>> extra_fds;  // (this process's fd, the child's fd): dup2'd
};

// How a child ended, and what it wrote to captured streams.
struct Exit {
  std::optional<int> exit_code;          // set when it exited
  std::optional<int> signal;             // set when a signal ended it
  bool timed_out = false;                // killed (with its group) past the timeout
  bool truncated = false;                // killed (with its group) once a capture passed its limit
  std::string out, err;                  // the captured (or tail) streams
  std::int64_t wall_ns = 0;              // from just before the spawn to wait4's return
  std::int64_t user_us = 0, sys_us = 0;  // its own rusage, from wait4
  std::int64_t max_rss_kib = 0;

  bool ok() const { return exit_code == 0 && !timed_out && !truncated; }
};

// `9 (SIGKILL)`, or the number alone for a signal without a name.
std::string signal_name(int signal);

// The child could not be started: not found, not executable, a working folder or user that
// could not be taken. `error()` is the errno.
class SpawnError : public Error {
 public:
  SpawnError(const std::string& what, int error) : Error(what), m_error(error) {}
  int error() const { return m_error; }

 private:
  int m_error;
};

// A started child. The destructor of one that was not reaped kills it (SIGKILL to its group)
// and reaps it: no child outlives its Child as a zombie.
class Child {
 public:
  // Starts the child: posix_spawn (vfork-fast) when the spec needs nothing it cannot do, else
  // fork and exec, with the child's failure before exec reported back through a pipe. Throws
  // SpawnError when the child cannot be started, Error when a file of a Stream cannot be opened.
  explicit Child(const Spec& spec);
  ~Child();
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return m_pid; }
  // Where a signal for the child goes, as kill(2) takes it: -pid for its own group, else pid.
  pid_t signal_target() const { return m_own_group ? -m_pid : m_pid; }

  // Reads the captured streams and waits until the child has exited, its timeout has passed or a
  // capture its limit (either kills its group); does not reap it, so that its pid stays its own
  // until reap(). A signal that interrupts the wait does not end it.
  void settle();
  // True when the child has exited (not yet reaped); does not wait.
  bool has_exited() const;
  // Reaps the child (settle() first when it was not called). Throws Error when wait4 fails with
  // anything but EINTR (ECHILD included): how the child ended is then unknown.
  Exit reap();
  // `signal` to the child's group, SIGKILL to it after `grace`, then reaped. Never throws.
  void stop(int signal, std::chrono::milliseconds grace) noexcept;

 private:
  void kill_group() noexcept;

  std::string m_name;  // argv[0], for messages
  pid_t m_pid = -1;
  bool m_own_group = true;
  bool m_settled = false;
  std::int64_t m_start_ns = 0;
  std::optional<std::int64_t> m_deadline_ns;
  Stream m_out_spec, m_err_spec;
  int m_out_pipe = -1, m_err_pipe = -1;
  Exit m_exit;
};

// Starts the child, settles and reaps it.
Exit run(const Spec& spec);

// At most the last `max_bytes` bytes of the file open at `fd` (a child's output, which may be
// large), read without moving its offset; empty when it cannot be read.
std::string read_tail(int fd, std::size_t max_bytes);

}  // namespace benchledger::process
