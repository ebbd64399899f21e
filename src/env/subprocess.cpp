#include "env/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>

extern char** environ;

namespace benchledger::env::detail {

namespace {

using Clock = std::chrono::steady_clock;

class Fd {
 public:
  explicit Fd(int fd = -1) : m_fd(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return m_fd; }
  void reset() {
    if (m_fd >= 0) std::ignore = ::close(m_fd);  // a pipe end: nothing to lose
    m_fd = -1;
  }

 private:
  int m_fd;
};

// Owns posix_spawn's attribute and file-action objects.
struct SpawnSetup {
  posix_spawn_file_actions_t actions{};
  posix_spawnattr_t attr{};
  SpawnSetup() {
    if (::posix_spawn_file_actions_init(&actions) != 0 || ::posix_spawnattr_init(&attr) != 0)
      throw std::runtime_error("cannot prepare posix_spawn");
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
  ~SpawnSetup() {
    ::posix_spawn_file_actions_destroy(&actions);
    ::posix_spawnattr_destroy(&attr);
  }
};

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() <= 0 ? 0 : static_cast<int>(left.count());
}

}  // namespace

ToolRun run_tool(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                 std::size_t max_output) {
  if (argv.empty()) throw std::runtime_error("no command to run");
  const auto deadline = Clock::now() + timeout;

  // O_CLOEXEC so that tools started at the same time from other threads do not inherit this
  // pipe and keep it open past this child's exit.
  std::array<int, 2> pipe_fds{-1, -1};
  if (::pipe2(pipe_fds.data(), O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  Fd read_end(pipe_fds[0]);
  Fd write_end(pipe_fds[1]);

  SpawnSetup setup;
  ::posix_spawn_file_actions_addopen(&setup.actions, 0, "/dev/null", O_RDONLY, 0);
  ::posix_spawn_file_actions_adddup2(&setup.actions, write_end.get(), 1);
  ::posix_spawn_file_actions_addopen(&setup.actions, 2, "/dev/null", O_WRONLY, 0);
  // Its own process group, so that a timeout kills whatever the tool started too; default
  // signal dispositions and an empty mask, whatever this process has set.
  sigset_t empty_mask;
  sigemptyset(&empty_mask);
  sigset_t default_signals;
  sigemptyset(&default_signals);
  sigaddset(&default_signals, SIGPIPE);
  sigaddset(&default_signals, SIGINT);
  sigaddset(&default_signals, SIGTERM);
  ::posix_spawnattr_setpgroup(&setup.attr, 0);
  ::posix_spawnattr_setsigmask(&setup.attr, &empty_mask);
  ::posix_spawnattr_setsigdefault(&setup.attr, &default_signals);
  ::posix_spawnattr_setflags(
      &setup.attr,
      static_cast<short>(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF));

  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);

  pid_t pid = -1;
  const int spawn_error =
      ::posix_spawn(&pid, argv[0].c_str(), &setup.actions, &setup.attr, args.data(), environ);
  if (spawn_error != 0)
    throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(spawn_error));
  write_end.reset();

  ToolRun run;
  bool eof = false;
  std::array<char, 4096> buffer{};
  while (!eof && !run.timed_out && !run.truncated) {
    const int wait_ms = remaining_ms(deadline);
    if (wait_ms == 0) {
      run.timed_out = true;
      break;
    }
    pollfd pfd{read_end.get(), POLLIN, 0};
    const int ready = ::poll(&pfd, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {  // the deadline passed, or poll itself failed: stop either way
      run.timed_out = true;
      break;
    }
    const ssize_t n = ::read(read_end.get(), buffer.data(), buffer.size());
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      eof = true;
    } else if (n == 0) {
      eof = true;
    } else {
      const std::size_t room = max_output - run.output.size();
      const std::size_t take = std::min(room, static_cast<std::size_t>(n));
      run.output.append(buffer.data(), take);
      if (take < static_cast<std::size_t>(n) || run.output.size() >= max_output)
        run.truncated = true;
    }
  }
  read_end.reset();

  // The tool closed its stdout; give it until the deadline to exit.
  int status = 0;
  bool reaped = false;
  while (!run.timed_out && !run.truncated) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      reaped = true;
      break;
    }
    if (r < 0 && errno != EINTR) {
      reaped = true;  // not our child any more (someone reaped it): nothing to kill
      status = -1;
      break;
    }
    if (remaining_ms(deadline) == 0) {
      run.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (!reaped) {
    std::ignore = ::kill(-pid, SIGKILL);  // ESRCH when the group is already gone: fine
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    run.exit_status = -1;
    return run;
  }
  run.exit_status = (status != -1 && WIFEXITED(status)) ? WEXITSTATUS(status) : -1;
  return run;
}

std::optional<std::filesystem::path> find_tool(std::string_view name,
                                               const std::vector<std::filesystem::path>& dirs) {
  std::vector<std::filesystem::path> search = dirs;
  if (search.empty()) {
    const char* path_env = std::getenv("PATH");
    std::string_view path = path_env != nullptr ? path_env : "/usr/local/bin:/usr/bin:/bin";
    while (true) {
      const std::size_t colon = path.find(':');
      const std::string_view dir = path.substr(0, colon);
      search.emplace_back(dir.empty() ? std::string_view(".") : dir);
      if (colon == std::string_view::npos) break;
      path.remove_prefix(colon + 1);
    }
  }
  for (const auto& dir : search) {
    const std::filesystem::path candidate = dir / std::filesystem::path(name);
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  return std::nullopt;
}

}  // namespace benchledger::env::detail
