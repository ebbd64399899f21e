// `SELECT version()` on a PostgreSQL server, bounded in time. Internal to src/env.
#pragma once

#include <chrono>
#include <string>

namespace benchledger::env::detail {

// The server's version() string. Uses libpq's non-blocking API, so that connecting and the
// query together take at most `timeout` (name resolution aside, which libpq does blocking).
// Throws std::runtime_error with libpq's reason when the server cannot be asked.
std::string postgres_server_version(const std::string& dsn, std::chrono::milliseconds timeout);

}  // namespace benchledger::env::detail
