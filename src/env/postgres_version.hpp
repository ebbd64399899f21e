// `SELECT version()` and the speed-deciding settings of a PostgreSQL server, bounded in time.
// Internal to src/env.
#pragma once

#include <chrono>
#include <string>

#include "benchledger/record.hpp"

namespace benchledger::env::detail {

struct PostgresFacts {
  std::string version;        // version(), verbatim
  PostgresSettings settings;  // current_setting() of each, and same_host
};

// The server's version() string and settings. Uses libpq's non-blocking API, so that
// connecting and the query together take at most `timeout` (name resolution aside, which libpq
// does blocking). Throws std::runtime_error with libpq's reason when the server cannot be
// asked.
PostgresFacts postgres_server_facts(const std::string& dsn, std::chrono::milliseconds timeout);

// Whether a server reached at `address` (inet_server_addr() as text; empty for a Unix-domain
// socket) runs on this host: a socket, a loopback address, or an address of one of this
// host's interfaces (getifaddrs).
bool is_local_server_address(const std::string& address);

}  // namespace benchledger::env::detail
