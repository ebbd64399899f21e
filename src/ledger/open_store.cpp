// Opening a store by URI, and the default ledger.
#include <cstdlib>
#include <filesystem>

#include <benchledger/config.hpp>
#include <benchledger/error.hpp>
#include <benchledger/ledger.hpp>

#include "ledger/ndjson/ndjson_store.hpp"
#include "ledger/postgres/postgres_store.hpp"
#include "ledger/sqlite/sqlite_store.hpp"
#include "model/redact.hpp"

namespace benchledger::ledger {

namespace {

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool is_postgres(std::string_view uri) {
  return starts_with(uri, "postgresql://") || starts_with(uri, "postgres://");
}

// A relative path inside a URI, taken from `base`.
std::string resolve(const std::string& uri, const std::filesystem::path& base) {
  for (const std::string_view scheme : {"ndjson:", "sqlite:"}) {
    if (starts_with(uri, scheme)) {
      const std::filesystem::path path = uri.substr(scheme.size());
      return std::string(scheme) + (path.is_absolute() ? path : base / path).string();
    }
  }
  if (is_postgres(uri)) return uri;
  const std::filesystem::path path = uri;
  return (path.is_absolute() ? path : base / path).string();
}

}  // namespace

std::unique_ptr<Store> open_store(const std::string& uri) {
  if (is_postgres(uri)) return std::make_unique<postgres::PostgresStore>(uri);
  if (starts_with(uri, "sqlite:")) {
    const std::string path = uri.substr(7);
    if (path.empty()) throw Error("ledger URI \"" + uri + "\": sqlite: needs a path");
    return std::make_unique<sqlite::SqliteStore>(uri, path);
  }
  if (starts_with(uri, "ndjson:")) {
    const std::string path = uri.substr(7);
    if (path.empty()) throw Error("ledger URI \"" + uri + "\": ndjson: needs a path");
    return std::make_unique<ndjson::NdjsonStore>(uri, path);
  }
  if (uri.size() > 7 && uri.ends_with(".ndjson")) {
    return std::make_unique<ndjson::NdjsonStore>(uri, uri);
  }
  throw Error("ledger URI \"" + model::redact_secrets(uri) +
              "\": expected path.ndjson, ndjson:PATH, sqlite:PATH or postgresql://…");
}

void grant_append_only(const std::string& uri, const std::string& role) {
  if (!is_postgres(uri)) {
    throw Error("ledger URI \"" + model::redact_secrets(uri) +
                "\": append-only roles are for postgresql:// ledgers (a file's permissions "
                "decide who may append to NDJSON and SQLite ledgers)");
  }
  if (role.empty()) throw Error("the role to grant append-only access to is empty");
  postgres::PostgresStore(uri).grant_append_only(role);
}

std::string default_ledger_uri() {
  if (const char* env = std::getenv("BENCHLEDGER_LEDGER"); env != nullptr && *env != '\0') {
    return env;
  }
  const Config config = load_default_config();
  if (config.ledger) return resolve(*config.ledger, config.path.parent_path());
  std::error_code ec;
  const auto root = project_root(std::filesystem::current_path(ec));
  return (root / "ledger" / "ledger.ndjson").string();
}

}  // namespace benchledger::ledger
