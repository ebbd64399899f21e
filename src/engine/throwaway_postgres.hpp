// A throwaway PostgreSQL server for runs given no --pg (docs/postgres.md): initdb into a fresh
// directory under TMPDIR (or /tmp), the server on a free loopback port, stopped and removed
// when the object is destroyed, whatever ended the run. As root, both run as the `postgres`
// user, which PostgreSQL requires.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "process/process.hpp"
#include "process/temp_dir.hpp"

namespace benchledger::engine {

// The directory of the PostgreSQL server binaries (initdb, postgres): $PG_BIN, else the newest
// /usr/lib/postgresql/N/bin (Debian's layout), else the directory of `initdb` on $PATH;
// nullopt when none holds both.
std::optional<std::filesystem::path> postgres_server_binaries();

class ThrowawayPostgres {
 public:
  // Starts the server and waits until it accepts connections (at most a minute). Throws Error
  // saying what to install or pass when the binaries are missing, and with the tail of
  // initdb's or the server's log when either fails; nothing is left behind then.
  ThrowawayPostgres();
  // Fast shutdown (SIGINT), then the directory is removed. Never throws.
  ~ThrowawayPostgres();
  ThrowawayPostgres(const ThrowawayPostgres&) = delete;
  ThrowawayPostgres& operator=(const ThrowawayPostgres&) = delete;

  // postgresql://postgres@127.0.0.1:PORT/postgres (trust authentication: no password).
  const std::string& dsn() const { return m_dsn; }

 private:
  void stop() noexcept;

  std::optional<process::TempDir> m_dir;
  std::optional<process::Child> m_server;
  std::string m_dsn;
};

}  // namespace benchledger::engine
