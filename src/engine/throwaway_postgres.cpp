#include "engine/throwaway_postgres.hpp"

#include <libpq-fe.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include <benchledger/error.hpp>

#include "engine/stop_signals.hpp"
#include "model/output_tail.hpp"
#include "process/temp_dir.hpp"

namespace benchledger::engine {

namespace {

constexpr std::int64_t k_ready_within_ns = 60'000'000'000;  // the wait for the server
constexpr std::int64_t k_probe_every_ns = 50'000'000;

constexpr const char* k_install_hint =
    "install the PostgreSQL server (Debian: apt-get install postgresql) or give a server with "
    "--pg DSN or BENCHLEDGER_PG";

bool has_server(const std::filesystem::path& dir) {
  return process::find_program("initdb", {dir}) && process::find_program("postgres", {dir});
}

std::string errno_text(int error) {
  return std::error_code(error, std::generic_category()).message();
}

// The last lines of a log, for an error message.
std::string log_tail(const std::filesystem::path& path) {
  const std::string tail = model::file_tail(path, 5, " | ");
  return tail.empty() ? "(empty log)" : tail;
}

// Whom the server runs as: PostgreSQL refuses to run as root. nullopt: this process's user.
std::optional<process::User> server_owner() {
  if (::geteuid() != 0) return std::nullopt;
  const passwd* entry = ::getpwnam("postgres");
  if (entry == nullptr) {
    throw Error(
        "cannot start a throwaway PostgreSQL as root without a `postgres` user to run it (the "
        "postgresql package creates one); " +
        std::string(k_install_hint));
  }
  return process::User{entry->pw_uid, entry->pw_gid};
}

// argv as `owner`, in a group of its own (a Ctrl-C meant for benchledger must not reach the
// server first), stdout and stderr appended to `log`. The child gets SIGINT (the server's fast
// shutdown) if this thread dies first.
process::Spec server_step(std::vector<std::string> argv, const std::optional<process::User>& owner,
                          const std::filesystem::path& log) {
  process::Spec spec;
  spec.argv = std::move(argv);
  spec.user = owner;
  spec.parent_death_signal = SIGINT;
  spec.out = spec.err = process::Stream::to_file(log, true);
  return spec;
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

// The real probe: the server answers (PQping), a connection attempt given 2 s at most.
bool pq_accepts_connections(const std::string& dsn) {
  return PQping((dsn + "?connect_timeout=2").c_str()) == PQPING_OK;
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
  if (const auto initdb = process::find_program("initdb");
      initdb && has_server(initdb->parent_path())) {
    return initdb->parent_path();
  }
  return std::nullopt;
}

ThrowawayPostgres::ThrowawayPostgres()
    : ThrowawayPostgres([] {
        static StopPassingExecutor executor;  // stateless
        return ServerSeam{executor, pq_accepts_connections};
      }()) {}

ThrowawayPostgres::ThrowawayPostgres(const ServerSeam& seam) {
  process::Executor& executor = seam.executor;
  const auto bin = postgres_server_binaries();
  if (!bin)
    throw Error("no PostgreSQL server binaries (initdb, postgres) found: " +
                std::string(k_install_hint));
  const std::optional<process::User> owner = server_owner();
  // Short: the server's Unix socket path, inside this directory, has a length limit.
  m_dir.emplace("benchledger-pg", "a throwaway PostgreSQL");
  const std::filesystem::path& dir = m_dir->path();
  try {
    if (owner && ::chown(dir.c_str(), owner->uid, owner->gid) != 0)
      throw Error("cannot give " + dir.string() + " to the postgres user: " + errno_text(errno));
    const std::filesystem::path data = dir / "data";
    // A Ctrl-C during initdb ends initdb; the folder goes below, with the Stopped thrown.
    const process::Exit initdb =
        executor.run(server_step({(*bin / "initdb").string(), "-D", data.string(), "-U", "postgres",
                                  "-A", "trust", "--no-sync"},
                                 owner, dir / "initdb.log"));
    throw_if_stopped();
    if (!initdb.ok())
      throw Error("initdb of a throwaway PostgreSQL failed: " + log_tail(dir / "initdb.log"));

    const int port = free_loopback_port();
    m_server =
        executor.start(server_step({(*bin / "postgres").string(), "-D", data.string(), "-h",
                                    "127.0.0.1", "-p", std::to_string(port), "-k", dir.string()},
                                   owner, dir / "server.log"));
    m_dsn = fmt::format("postgresql://postgres@127.0.0.1:{}/postgres", port);
    const std::int64_t deadline = executor.now_ns() + k_ready_within_ns;
    while (!seam.accepts_connections(m_dsn)) {
      throw_if_stopped();  // the server is stopped and its folder removed below
      if (m_server->has_exited()) {
        m_server.reset();  // reaped
        throw Error("a throwaway PostgreSQL exited while starting: " +
                    log_tail(dir / "server.log"));
      }
      if (executor.now_ns() > deadline) {
        throw Error("a throwaway PostgreSQL did not accept connections within 60 s: " +
                    log_tail(dir / "server.log"));
      }
      executor.pause(k_probe_every_ns);
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
  if (m_server) {
    // SIGINT is PostgreSQL's fast shutdown: clients are disconnected, the server exits cleanly.
    // SIGKILL only when it has not gone within 30 s: the directory is deleted either way.
    m_server->stop(SIGINT, std::chrono::seconds(30));
    m_server.reset();
  }
  m_dir.reset();  // after the server: it writes there until it has gone
}

}  // namespace benchledger::engine
