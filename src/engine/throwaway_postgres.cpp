#include "engine/throwaway_postgres.hpp"

#include <fcntl.h>
#include <grp.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <system_error>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include <benchledger/error.hpp>

#include "engine/scratch_dir.hpp"
#include "engine/stop_signals.hpp"

namespace benchledger::engine {

namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* k_install_hint =
    "install the PostgreSQL server (Debian: apt-get install postgresql) or give a server with "
    "--pg DSN or BENCHLEDGER_PG";

bool has_server(const std::filesystem::path& dir) {
  return ::access((dir / "initdb").c_str(), X_OK) == 0 &&
         ::access((dir / "postgres").c_str(), X_OK) == 0;
}

std::string errno_text(int error) {
  return std::error_code(error, std::generic_category()).message();
}

// The last lines of a log, for an error message.
std::string log_tail(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  const std::size_t first = lines.size() > 5 ? lines.size() - 5 : 0;
  std::string out;
  for (std::size_t i = first; i < lines.size(); ++i) out += (out.empty() ? "" : " | ") + lines[i];
  return out.empty() ? "(empty log)" : out;
}

// Whom the server runs as: PostgreSQL refuses to run as root.
struct Owner {
  bool switch_user = false;
  uid_t uid = 0;
  gid_t gid = 0;
};

Owner server_owner() {
  Owner owner;
  if (::geteuid() != 0) return owner;
  const passwd* entry = ::getpwnam("postgres");
  if (entry == nullptr) {
    throw Error(
        "cannot start a throwaway PostgreSQL as root without a `postgres` user to run it (the "
        "postgresql package creates one); " +
        std::string(k_install_hint));
  }
  owner.switch_user = true;
  owner.uid = entry->pw_uid;
  owner.gid = entry->pw_gid;
  return owner;
}

// Starts argv as `owner` with stdout and stderr appended to `log`; returns the child's pid.
// The child gets SIGINT (the server's fast shutdown) if this thread dies first.
pid_t start(const std::vector<std::string>& argv, const Owner& owner,
            const std::filesystem::path& log) {
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (out < 0) throw Error("cannot create " + log.string() + ": " + errno_text(errno));
  if (owner.switch_user) std::ignore = ::fchown(out, owner.uid, owner.gid);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    ::close(out);
    throw Error("cannot start " + argv.front() + ": " + errno_text(error));
  }
  if (pid == 0) {
    // Only async-signal-safe calls until exec.
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, STDIN_FILENO);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(out, STDERR_FILENO);
    ::setpgid(0, 0);  // a Ctrl-C meant for benchledger must not reach the server first
    if (owner.switch_user &&
        (::setgroups(0, nullptr) != 0 || ::setgid(owner.gid) != 0 || ::setuid(owner.uid) != 0)) {
      ::_exit(126);
    }
    // After the change of user, which clears a parent-death signal set before it (prctl(2));
    // a parent that died before this line would never send it.
    ::prctl(PR_SET_PDEATHSIG, SIGINT);
    if (::getppid() != parent) ::_exit(126);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(out);
  // Both sides set the group, so that it exists before a stop signal is passed on to it.
  std::ignore = ::setpgid(pid, pid);
  return pid;
}

// A port nobody listens on now (the kernel's choice for port 0).
int free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw Error("cannot open a socket to find a free port: " + errno_text(errno));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  const int error = errno;
  ::close(fd);
  if (!ok) throw Error("cannot find a free loopback port: " + errno_text(error));
  return ntohs(address.sin_port);
}

}  // namespace

std::optional<std::filesystem::path> postgres_server_binaries() {
  if (const char* bin = std::getenv("PG_BIN"); bin != nullptr && *bin != '\0') {
    if (has_server(bin)) return std::filesystem::path(bin);
  }
  std::error_code ignored;
  std::optional<std::filesystem::path> best;
  int best_version = -1;
  for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/postgresql", ignored)) {
    const std::string name = entry.path().filename().string();
    int version = 0;
    try {
      version = std::stoi(name);
    } catch (const std::exception&) {
      continue;  // not a version directory
    }
    if (version > best_version && has_server(entry.path() / "bin")) {
      best = entry.path() / "bin";
      best_version = version;
    }
  }
  if (best) return best;
  if (const char* path = std::getenv("PATH"); path != nullptr) {
    std::stringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');) {
      if (!dir.empty() && has_server(dir)) return std::filesystem::path(dir);
    }
  }
  return std::nullopt;
}

ThrowawayPostgres::ThrowawayPostgres() {
  const auto bin = postgres_server_binaries();
  if (!bin)
    throw Error("no PostgreSQL server binaries (initdb, postgres) found: " +
                std::string(k_install_hint));
  const Owner owner = server_owner();
  // Short: the server's Unix socket path, inside this directory, has a length limit.
  std::string pattern = (temp_root() / "benchledger-pg-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw Error(fmt::format("cannot create a directory like {} for a throwaway PostgreSQL: {}",
                            pattern, errno_text(errno)));
  }
  m_dir = pattern;
  try {
    if (owner.switch_user && ::chown(m_dir.c_str(), owner.uid, owner.gid) != 0)
      throw Error("cannot give " + m_dir.string() + " to the postgres user: " + errno_text(errno));
    const std::filesystem::path data = m_dir / "data";
    const bool stopped_before = stop_signal() != 0;
    const pid_t initdb = start({(*bin / "initdb").string(), "-D", data.string(), "-U", "postgres",
                                "-A", "trust", "--no-sync"},
                               owner, m_dir / "initdb.log");
    int status = 0;
    {
      // A Ctrl-C during initdb ends initdb; the folder goes below, with the Stopped thrown.
      const StopTarget stop_target(-initdb, stopped_before);
      siginfo_t info{};
      while (::waitid(P_PID, static_cast<id_t>(initdb), &info, WEXITED | WNOWAIT) < 0 &&
             errno == EINTR) {
      }
    }
    while (::waitpid(initdb, &status, 0) < 0 && errno == EINTR) {
    }
    throw_if_stopped();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      throw Error("initdb of a throwaway PostgreSQL failed: " + log_tail(m_dir / "initdb.log"));

    const int port = free_loopback_port();
    m_server = start({(*bin / "postgres").string(), "-D", data.string(), "-h", "127.0.0.1", "-p",
                      std::to_string(port), "-k", m_dir.string()},
                     owner, m_dir / "server.log");
    m_dsn = fmt::format("postgresql://postgres@127.0.0.1:{}/postgres", port);
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    const std::string ping = m_dsn + "?connect_timeout=2";
    while (PQping(ping.c_str()) != PQPING_OK) {
      throw_if_stopped();  // the server is stopped and its folder removed below
      if (::waitpid(m_server, &status, WNOHANG) == m_server) {
        m_server = -1;
        throw Error("a throwaway PostgreSQL exited while starting: " +
                    log_tail(m_dir / "server.log"));
      }
      if (Clock::now() > deadline) {
        throw Error("a throwaway PostgreSQL did not accept connections within 60 s: " +
                    log_tail(m_dir / "server.log"));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  } catch (...) {
    stop();
    throw;
  }
}

ThrowawayPostgres::~ThrowawayPostgres() {
  stop();
}

void ThrowawayPostgres::stop() noexcept {
  if (m_server > 0) {
    // SIGINT is PostgreSQL's fast shutdown: clients are disconnected, the server exits cleanly.
    // SIGKILL only when it has not gone within 30 s: the directory is deleted either way.
    std::ignore = ::kill(m_server, SIGINT);
    const auto deadline = Clock::now() + std::chrono::seconds(30);
    int status = 0;
    while (::waitpid(m_server, &status, WNOHANG) == 0) {
      if (Clock::now() > deadline) {
        std::ignore = ::kill(m_server, SIGKILL);
        std::ignore = ::waitpid(m_server, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    m_server = -1;
  }
  if (!m_dir.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(m_dir, ignored);  // nothing more to do if a file stays behind
    m_dir.clear();
  }
}

}  // namespace benchledger::engine
