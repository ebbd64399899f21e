// A throwaway PostgreSQL server for runs given no --pg (docs/postgres.md): initdb into a fresh
// directory under TMPDIR (or /tmp), the server on a free loopback port, stopped and removed
// when the object is destroyed, whatever ended the run. As root, both run as the `postgres`
// user, which PostgreSQL requires.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "process/executor.hpp"
#include "process/temp_dir.hpp"

namespace benchledger::engine {

// The directory of the PostgreSQL server binaries (initdb, postgres): $PG_BIN, else the newest
// /usr/lib/postgresql/N/bin (Debian's layout), else the directory of `initdb` on $PATH;
// nullopt when none holds both.
std::optional<std::filesystem::path> postgres_server_binaries();

// What a throwaway server is started through: initdb is run and the server started by
// `executor`, the wait for the server reads its clock and pauses through it between two probes;
// `accepts_connections(dsn)` is one probe (libpq's PQping in the real seam). The executor must
// outlive the server: the server is the executor's child until it is stopped.
struct ServerSeam {
  process::Executor& executor;
  std::function<bool(const std::string& dsn)> accepts_connections;
};

class ThrowawayPostgres {
 public:
  // Starts the server and waits until it accepts connections (at most a minute on the
  // executor's clock, probing every 50 ms). Throws Error saying what to install or pass when the
  // binaries are missing, and with the tail of initdb's or the server's log when either fails;
  // nothing is left behind then (the server stopped, its folder removed). The first through the
  // real seam: initdb through engine::StopPassingExecutor, which passes a stop signal on to it.
  ThrowawayPostgres();
  explicit ThrowawayPostgres(const ServerSeam& seam);
  // Fast shutdown (SIGINT), then the directory is removed. Never throws.
  ~ThrowawayPostgres();
  ThrowawayPostgres(const ThrowawayPostgres&) = delete;
  ThrowawayPostgres& operator=(const ThrowawayPostgres&) = delete;

  // postgresql://postgres@127.0.0.1:PORT/postgres (trust authentication: no password).
  const std::string& dsn() const { return m_dsn; }

 private:
  void stop() noexcept;

  std::optional<process::TempDir> m_dir;
  std::unique_ptr<process::Started> m_server;
  std::string m_dsn;
};

}  // namespace benchledger::engine
