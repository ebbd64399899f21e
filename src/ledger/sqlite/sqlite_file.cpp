// The SQLite file under the SQLite store (see sqlite_file.hpp).
#include "ledger/sqlite/sqlite_file.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <thread>

#include "ledger/chain.hpp"

namespace benchledger::ledger::sqlite {

namespace {

// The table, its indexes and the triggers that make it append-only. Rows are inserted with an
// explicit seq one above the last, so the insert trigger also refuses rows slipped into the
// middle of history and INSERT OR REPLACE (whose implicit delete fires no delete trigger).
constexpr const char* k_schema_sql = R"sql(
CREATE TABLE IF NOT EXISTS records (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL CHECK (type IN ('run', 'result', 'note')),
  time TEXT NOT NULL,
  run TEXT,
  label TEXT,
  bench TEXT,
  params TEXT,
  git_commit TEXT,
  target TEXT,
  bytes TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS records_by_type ON records(type, seq);
CREATE INDEX IF NOT EXISTS records_by_run ON records(run, seq);
CREATE INDEX IF NOT EXISTS records_by_label ON records(label, seq);
CREATE INDEX IF NOT EXISTS records_by_git_commit ON records(git_commit, seq);
CREATE INDEX IF NOT EXISTS records_by_case ON records(bench, params);
CREATE INDEX IF NOT EXISTS records_by_time ON records(time);
CREATE TRIGGER IF NOT EXISTS records_refuse_update BEFORE UPDATE ON records
BEGIN
  SELECT RAISE(ABORT, 'benchledger ledger is append-only: UPDATE is refused (correct a record by appending a note)');
END;
CREATE TRIGGER IF NOT EXISTS records_refuse_delete BEFORE DELETE ON records
BEGIN
  SELECT RAISE(ABORT, 'benchledger ledger is append-only: DELETE is refused (correct a record by appending a note)');
END;
CREATE TRIGGER IF NOT EXISTS records_append_at_end BEFORE INSERT ON records
WHEN NEW.seq IS NULL OR NEW.seq <= (SELECT coalesce(max(seq), 0) FROM records)
  OR EXISTS (SELECT 1 FROM records WHERE id = NEW.id)
BEGIN
  SELECT RAISE(ABORT, 'benchledger ledger is append-only: a record goes after the last one, with an id not used before');
END;
)sql";

// Views for dashboards (docs/history.md, "Grafana"): one row per run, case and metric, with what
// a chart needs beside the value. Results and runs that an `invalidate` note targets are left
// out, as `history` leaves them out. Version 2 of the file's schema (PRAGMA user_version).
constexpr const char* k_views_sql = R"sql(
CREATE VIEW IF NOT EXISTS benchledger_results AS
SELECT run.time AS time,
  r.run AS run,
  r.id AS result,
  run.label AS label,
  run.git_commit AS git_commit,
  json_extract(run.bytes, '$.git.dirty') AS dirty,
  json_extract(run.bytes, '$.env.host') AS host,
  json_extract(run.bytes, '$.env.fingerprint') AS fingerprint,
  r.bench AS bench,
  r.params AS params,
  m.key AS metric,
  m.key = json_extract(r.bytes, '$.primary') AS is_primary,
  json_extract(m.value, '$.unit') AS unit,
  json_extract(m.value, '$.better') AS better,
  json_extract(m.value, '$.value') AS centre,
  json_extract(m.value, '$.summary.p50') AS p50,
  json_extract(m.value, '$.summary.p95') AS p95,
  json_extract(m.value, '$.summary.p99') AS p99,
  json_extract(m.value, '$.summary.n') AS samples
FROM records AS r
JOIN records AS run ON run.id = r.run AND run.type = 'run'
JOIN json_each(r.bytes, '$.metrics') AS m
WHERE r.type = 'result'
  AND NOT EXISTS (
    SELECT 1 FROM records AS n
    WHERE n.type = 'note' AND json_extract(n.bytes, '$.kind') = 'invalidate'
      AND ((n.target = r.run AND (n.bench IS NULL OR n.bench = r.bench))
           OR (n.target = r.id AND n.bench IS NULL)));
)sql";

// Each result's points, one row per metric, with its run's fields and its case beside them:
// what `history` reads (scan_points, store_scans.hpp), clustered by case so that one case's series
// is one range of the file (docs/history.md, "Speed"). Rows are derived from the records in the
// transaction that appends them, may only describe a result already in the table, and are never
// changed; `verify` recomputes every row from the records. Version 3 (PRAGMA user_version).
constexpr const char* k_points_sql = R"sql(
CREATE TABLE IF NOT EXISTS points (
  bench TEXT NOT NULL,
  params TEXT NOT NULL,
  metric TEXT NOT NULL,
  seq INTEGER NOT NULL,
  result TEXT NOT NULL,
  is_primary INTEGER NOT NULL,
  unit TEXT NOT NULL,
  better TEXT NOT NULL,
  run TEXT NOT NULL,
  time TEXT NOT NULL,
  label TEXT,
  branch TEXT,
  git_commit TEXT,
  dirty INTEGER NOT NULL,
  centre REAL,
  low REAL,
  high REAL,
  min REAL,
  max REAL,
  samples INTEGER NOT NULL,
  PRIMARY KEY (bench, params, metric, seq)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS points_refuse_update BEFORE UPDATE ON points
BEGIN
  SELECT RAISE(ABORT, 'benchledger ledger is append-only: UPDATE of points is refused');
END;
CREATE TRIGGER IF NOT EXISTS points_refuse_delete BEFORE DELETE ON points
BEGIN
  SELECT RAISE(ABORT, 'benchledger ledger is append-only: DELETE of points is refused');
END;
CREATE TRIGGER IF NOT EXISTS points_of_a_result BEFORE INSERT ON points
WHEN NOT EXISTS (SELECT 1 FROM records WHERE seq = NEW.seq AND type = 'result'
                 AND id = NEW.result AND run = NEW.run AND bench = NEW.bench
                 AND params = NEW.params)
  OR EXISTS (SELECT 1 FROM points WHERE bench = NEW.bench AND params = NEW.params
             AND metric = NEW.metric AND seq = NEW.seq)
BEGIN
  SELECT RAISE(ABORT, 'benchledger ledger is append-only: a point is refused unless it is new and its result, run and case are those of a record in the table of records');
END;
)sql";

// 1: the table alone; 2: and the views; 3: and the points.
constexpr std::int64_t k_schema_version = 3;

std::int64_t schema_version(sqlite3* db, const std::string& name) {
  Statement query(db, "PRAGMA user_version", name);
  return query.step() ? query.integer(0) : 0;
}

}  // namespace

void exec(sqlite3* db, const char* sql, const std::string& name) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string text = message != nullptr ? message : sqlite3_errmsg(db);
    sqlite3_free(message);
    throw Error(fmt::format("{}: {}", name, text));
  }
}

bool table_exists(sqlite3* db, const std::string& name) {
  Statement query(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'records'",
                  name);
  return query.step();
}

void check_ours(sqlite3* db, const std::string& name) {
  Statement query(db, "PRAGMA application_id", name);
  const std::int64_t id = query.step() ? query.integer(0) : 0;
  if (id == k_application_id) return;
  Statement tables(db, "SELECT count(*) FROM sqlite_master", name);
  if (id == 0 && tables.step() && tables.integer(0) == 0) return;  // new and empty
  throw Error(
      fmt::format("{} is not a benchledger SQLite ledger (its application_id is {})", name, id));
}

void create_schema(sqlite3* db, const std::string& context) {
  exec(db, k_schema_sql, context);
  exec(db, k_views_sql, context);
  exec(db, k_points_sql, context);
  exec(db, fmt::format("PRAGMA application_id = {}", k_application_id).c_str(), context);
  exec(db, fmt::format("PRAGMA user_version = {}", k_schema_version).c_str(), context);
}

bool has_points(sqlite3* db, const std::string& name) {
  Statement query(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'points'", name);
  return query.step();
}

bool upgrade_schema(sqlite3* db, const std::string& context) {
  // The table of points is derived from the records: one dropped from a file of version 3
  // (verify reports that) is made and filled again, like one a file never had.
  const bool made_points = !has_points(db, context);
  if (!made_points && schema_version(db, context) >= k_schema_version) return false;
  exec(db, k_views_sql, context);
  exec(db, k_points_sql, context);
  exec(db, fmt::format("PRAGMA user_version = {}", k_schema_version).c_str(), context);
  return made_points;
}

// Puts the database in WAL mode. On a database still in rollback mode (a new one), the switch
// takes a read lock and then upgrades it to a write lock to rewrite the header; SQLite answers
// SQLITE_BUSY to that upgrade at once, without the busy handler, when another connection holds
// the write lock, since waiting while holding a read lock could deadlock. Processes that create
// one ledger at the same moment meet there, so the switch is retried, with the lock released
// between tries, for as long as the busy timeout would have waited.
void enter_wal_mode(sqlite3* db, const std::string& name) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(k_busy_timeout_ms);
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    {
      Statement wal(db, "PRAGMA journal_mode = WAL", name);
      const int rc = wal.step_code();
      if (rc == SQLITE_ROW && wal.text(0) == "wal") return;
      if (rc == SQLITE_ROW) {
        throw Error(fmt::format("cannot put {} in WAL mode (nothing was written)", name));
      }
      if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() >= deadline) {
        throw Error(fmt::format("{}: {} (nothing was written)", name, sqlite3_errmsg(db)));
      }
    }  // the statement, and with it the read lock, is released before the pause
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
}

// A connection that cannot write a database in WAL mode still needs its `-shm` index, which
// SQLite creates beside the file: without write access to the directory, every read then fails
// with "attempt to write a readonly database". When no write-ahead log holds records the file
// lacks (no `-wal`, or an empty one: the last connection checkpointed it), the file alone is
// the ledger, and it is read as immutable, with no `-shm` at all. A `-wal` with records in it
// cannot be read that way: that is refused with what to do. Returns the connection to read
// with (`db` itself when it reads), closing `db` if it is replaced (and clearing `writable`);
// throws Error.
sqlite3* readable(sqlite3* db, const std::filesystem::path& path, bool& writable) {
  const std::string name = path.string();
  const int rc = sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
  const int code = rc & 0xff;
  if (rc == SQLITE_OK || (code != SQLITE_READONLY && code != SQLITE_CANTOPEN)) return db;
  sqlite3_close_v2(db);
  writable = false;
  struct stat wal {};
  if (::stat((name + "-wal").c_str(), &wal) == 0 && wal.st_size > 0) {
    throw Error(fmt::format(
        "cannot read {} without write access to its directory: its write-ahead log {}-wal holds "
        "records not yet in the file, and SQLite needs to create {}-shm to read them (read it "
        "as a user who may write the directory, or have its owner run `sqlite3 {} \"PRAGMA "
        "wal_checkpoint(TRUNCATE)\"`)",
        name, name, name, name));
  }
  std::string uri = "file:";
  for (const char c : std::filesystem::absolute(path).string()) {
    if (c == '%' || c == '?' || c == '#') {
      uri += fmt::format("%{:02x}", static_cast<unsigned char>(c));
    } else {
      uri += c;
    }
  }
  uri += "?immutable=1";
  db = nullptr;
  if (sqlite3_open_v2(uri.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | k_one_thread,
                      nullptr) != SQLITE_OK) {
    const std::string message = db != nullptr ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close_v2(db);
    throw Error(fmt::format("cannot open {} read-only: {}", name, message));
  }
  return db;
}

namespace {

// The schema's objects as sqlite_master holds them, by type and name: SQL text as stored.
std::map<std::pair<std::string, std::string>, std::optional<std::string>> schema_objects(
    sqlite3* db, const std::string& name) {
  std::map<std::pair<std::string, std::string>, std::optional<std::string>> out;
  Statement query(db,
                  "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_stat%'",
                  "cannot read the schema of " + name);
  while (query.step()) {
    out[{std::string(query.text(0)), std::string(query.text(1))}] = query.nullable_text(2);
  }
  return out;
}

// What the store creates, read back from a database made with it in memory: compared object by
// object, so an edit to k_schema_sql needs no second copy here. Version 1, 2 or 3 (the newest for
// any later one).
const std::map<std::pair<std::string, std::string>, std::optional<std::string>>& expected_schema(
    std::int64_t version) {
  const auto make = [](std::int64_t made) {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
      sqlite3_close_v2(db);
      throw Error("cannot open an in-memory SQLite database");
    }
    try {
      exec(db, k_schema_sql, "the ledger's schema");
      if (made >= 2) exec(db, k_views_sql, "the ledger's schema");
      if (made >= 3) exec(db, k_points_sql, "the ledger's schema");
      auto objects = schema_objects(db, "the ledger's schema");
      sqlite3_close_v2(db);
      return objects;
    } catch (...) {
      sqlite3_close_v2(db);
      throw;
    }
  };
  static const auto table_only = make(1);
  static const auto with_views = make(2);
  static const auto with_points = make(3);
  return version <= 1 ? table_only : version == 2 ? with_views : with_points;
}

}  // namespace

// The breaks of the file itself: SQLite's integrity check (every page, every index against its
// table: quick_check does not compare indexes with tables, and an index page copied from another
// copy of the ledger sends queries to the wrong rows), then the schema, object by object, against
// what the store creates: a trigger dropped or its SQL changed (PRAGMA writable_schema) no longer
// guards the table.
void verify_file(sqlite3* db, const std::string& name, ChainVerifier& verifier, bool pages) {
  if (pages) {
    Statement check(db, "PRAGMA integrity_check(100)", "cannot check " + name);
    while (check.step()) {
      if (check.text(0) == "ok") break;
      verifier.add_ledger_break("SQLite's integrity check: " + std::string(check.text(0)) +
                                " (the file was changed outside SQLite)");
    }
  }
  // A file of an older schema (written before the views or the points) gets what it lacks
  // with its next append.
  const auto& expected = expected_schema(schema_version(db, name));
  const auto found = schema_objects(db, name);
  for (const auto& [key, sql] : expected) {
    const auto it = found.find(key);
    if (it == found.end()) {
      verifier.add_ledger_break(fmt::format(
          "its {} {} is missing: the file was changed outside benchledger{}", key.first, key.second,
          key.first == "trigger" ? ", and the table is no longer append-only"
          : key.first == "view"  ? " (dashboards read the ledger through it)"
                                 : ""));
    } else if (it->second != sql) {
      verifier.add_ledger_break(fmt::format(
          "its {} {} is not the one benchledger creates (its SQL was changed, through PRAGMA "
          "writable_schema or by dropping and creating it again): {}",
          key.first, key.second, it->second.value_or("(no SQL)")));
    }
  }
  for (const auto& [key, sql] : found) {
    if (expected.count(key) == 0) {
      verifier.add_ledger_break(fmt::format("it holds a {} {} that benchledger does not create: {}",
                                            key.first, key.second, sql.value_or("(no SQL)")));
    }
  }
}

}  // namespace benchledger::ledger::sqlite
