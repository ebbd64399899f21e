#include "cli/run_postgres.hpp"

#include <stdlib.h>

#include <cstdlib>

#include <benchledger/error.hpp>

namespace benchledger::cli {

RunServer resolve_run_server(const std::optional<std::string>& flag, const Config& config,
                             bool needed) {
  RunServer server;
  if (flag) {
    server.dsn = flag;
  } else if (const char* env = std::getenv("BENCHLEDGER_PG"); env != nullptr && *env != '\0') {
    server.dsn = std::string(env);
  } else if (config.pg) {
    server.dsn = config.pg;
  }
  if (server.dsn && server.dsn->empty()) throw Error("--pg: an empty connection string");
  if (!server.dsn && needed) {
    server.throwaway = std::make_unique<engine::ThrowawayPostgres>();
    server.dsn = server.throwaway->dsn();
  }
  if (server.dsn) ::setenv("BENCHLEDGER_PG", server.dsn->c_str(), 1);
  return server;
}

}  // namespace benchledger::cli
