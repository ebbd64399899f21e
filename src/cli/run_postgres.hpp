// The PostgreSQL server a run measures (docs/postgres.md): `--pg DSN`, else BENCHLEDGER_PG,
// else benchledger.json's "pg"; else, when something in the run needs a server (the postgres
// suite, --pgbench), a throwaway one started for the run and stopped when it ends.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <benchledger/config.hpp>

#include "engine/throwaway_postgres.hpp"

namespace benchledger::cli {

struct RunServer {
  std::optional<std::string> dsn;  // secret: only ever shown through model::redact_secrets
  std::unique_ptr<engine::ThrowawayPostgres> throwaway;
};

// Resolves the server and exports it as BENCHLEDGER_PG, which the postgres suite's cases (child
// processes) read. Throws Error (what to install or pass) when a server is needed and none can
// be started.
RunServer resolve_run_server(const std::optional<std::string>& flag, const Config& config,
                             bool needed);

}  // namespace benchledger::cli
