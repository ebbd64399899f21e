// The SQLite store (see sqlite_store.hpp).
#include "ledger/sqlite/sqlite_store.hpp"

#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include <benchledger/error.hpp>

#include "ledger/chain.hpp"
#include "ledger/columns.hpp"
#include "ledger/import_plan.hpp"
#include "ledger/ledger_file.hpp"

namespace benchledger::ledger::sqlite {

namespace {

constexpr int k_application_id = 0x42454e43;  // "BENC"
constexpr int k_busy_timeout_ms = 60'000;

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

class Statement {
 public:
  Statement(sqlite3* db, const char* sql, const std::string& name) : m_db(db), m_name(name) {
    if (sqlite3_prepare_v2(db, sql, -1, &m_statement, nullptr) != SQLITE_OK) {
      throw Error(fmt::format("{}: {}", m_name, sqlite3_errmsg(db)));
    }
  }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement() { sqlite3_finalize(m_statement); }

  Statement& bind(int index, std::string_view text) {
    check(sqlite3_bind_text(m_statement, index, text.data(), static_cast<int>(text.size()),
                            SQLITE_TRANSIENT));
    return *this;
  }
  Statement& bind(int index, const std::optional<std::string>& text) {
    if (!text) {
      check(sqlite3_bind_null(m_statement, index));
      return *this;
    }
    return bind(index, std::string_view(*text));
  }
  Statement& bind(int index, std::int64_t value) {
    check(sqlite3_bind_int64(m_statement, index, value));
    return *this;
  }

  // True while there is a row.
  bool step() {
    const int rc = step_code();
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw Error(fmt::format("{}: {}", m_name, sqlite3_errmsg(m_db)));
  }
  // sqlite3_step's own result, for callers that handle some errors themselves.
  int step_code() { return sqlite3_step(m_statement); }

  // Ready to run again with new bindings.
  void reset() {
    sqlite3_reset(m_statement);
    sqlite3_clear_bindings(m_statement);
  }

  std::int64_t integer(int column) const { return sqlite3_column_int64(m_statement, column); }
  bool is_null(int column) const { return sqlite3_column_type(m_statement, column) == SQLITE_NULL; }
  std::string_view text(int column) const {
    const auto* data = reinterpret_cast<const char*>(sqlite3_column_text(m_statement, column));
    const int size = sqlite3_column_bytes(m_statement, column);
    return data == nullptr ? std::string_view()
                           : std::string_view(data, static_cast<std::size_t>(size));
  }
  std::optional<std::string> nullable_text(int column) const {
    if (is_null(column)) return std::nullopt;
    return std::string(text(column));
  }

 private:
  void check(int rc) {
    if (rc != SQLITE_OK) throw Error(fmt::format("{}: {}", m_name, sqlite3_errmsg(m_db)));
  }

  sqlite3* m_db;
  sqlite3_stmt* m_statement = nullptr;
  std::string m_name;
};

void exec(sqlite3* db, const char* sql, const std::string& name) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string text = message != nullptr ? message : sqlite3_errmsg(db);
    sqlite3_free(message);
    throw Error(fmt::format("{}: {}", name, text));
  }
}

std::int64_t sql_limit(std::size_t limit) {
  return limit > static_cast<std::size_t>(INT64_MAX) ? -1 : static_cast<std::int64_t>(limit);
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
  if (sqlite3_open_v2(uri.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) !=
      SQLITE_OK) {
    const std::string message = db != nullptr ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close_v2(db);
    throw Error(fmt::format("cannot open {} read-only: {}", name, message));
  }
  return db;
}

}  // namespace

SqliteStore::SqliteStore(std::string uri, std::filesystem::path path)
    : m_uri(std::move(uri)), m_path(std::move(path)) {}

SqliteStore::~SqliteStore() {
  sqlite3_close_v2(m_db);
}

sqlite3* SqliteStore::reader() const {
  if (m_db != nullptr) return m_db;
  const std::string name = m_path.string();
  // The resolved file, as writer() opens it: SQLite names its journal, WAL and shared-memory
  // files after the path it is given, and refusing a device here keeps them from being made.
  const std::filesystem::path file = ledger_file(m_path);
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) {
    if (errno == ENOENT) {
      m_warnings.push_back(fmt::format("{} does not exist yet: read as an empty ledger", name));
      return nullptr;
    }
    throw Error(fmt::format("cannot open {}: {}", name, std::strerror(errno)));
  }
  check_ledger_kind(m_path, file, st.st_mode);
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_close_v2(db);
    db = nullptr;
    rc = sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  }
  if (rc != SQLITE_OK) {
    const std::string message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    throw Error(fmt::format("cannot open {}: {}", name, message));
  }
  // SQLite opens a file it may not write read-only, even when asked for read-write.
  m_writable = sqlite3_db_readonly(db, "main") == 0;
  db = readable(db, file, m_writable);
  sqlite3_busy_timeout(db, k_busy_timeout_ms);
  m_db = db;
  check_ours(m_db, name);
  return m_db;
}

sqlite3* SqliteStore::writer() {
  const std::string name = m_path.string();
  if (m_db != nullptr && m_ready_to_append) return m_db;
  if (m_db == nullptr || !m_writable) {
    // No connection yet, or a read-only one: open (and create) the file for writing.
    sqlite3_close_v2(m_db);
    m_db = nullptr;
    m_writable = false;
    // Resolved and checked before anything is created: a device or FIFO is refused before
    // SQLite could make a journal next to it.
    const std::filesystem::path file = ledger_file(m_path);
    if (const auto parent = file.parent_path(); !parent.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(parent, ec);
      if (ec)
        throw Error(fmt::format("cannot create directory {}: {}", parent.string(), ec.message()));
    }
    sqlite3* db = nullptr;
    const int rc =
        sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    if (rc != SQLITE_OK) {
      const std::string message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
      sqlite3_close_v2(db);
      throw Error(
          fmt::format("cannot open {} for appending: {} (nothing was written)", name, message));
    }
    m_db = db;
    m_writable = true;
    sqlite3_busy_timeout(m_db, k_busy_timeout_ms);
    check_ours(m_db, name);
  }
  // Whichever way the connection was opened (a read-write one reader() opened serves appends
  // too), it appends only once set up for it. WAL: readers never block the writer.
  // synchronous=FULL: COMMIT returns once the WAL is fsynced, so a batch is durable when
  // append() returns; it is a setting of the connection, not of the file, so every connection
  // that appends sets it.
  enter_wal_mode(m_db, name);
  exec(m_db, "PRAGMA synchronous = FULL", name);
  m_ready_to_append = true;
  return m_db;
}

AppendResult SqliteStore::append(const std::vector<Record>& batch) {
  // Everything that can refuse the batch by itself is checked before the database is opened
  // (or created) for writing: a refused batch leaves no trace.
  std::vector<PendingRecord> pending = serialize_batch(batch);
  return write_batch(pending.empty(),
                     [&](Inserter& insert, std::string head, AppendResult& result) {
                       head = chain_onto(pending, head);
                       for (const auto& record : pending) insert(batch[record.index], record.bytes);
                       result.appended = static_cast<std::int64_t>(pending.size());
                       return head;
                     });
}

AppendResult SqliteStore::import(const ImportSource& records) {
  // The first pass checks every record before the database is opened (or created) for writing.
  ImportPlan plan(records);
  const std::string name = m_path.string();
  return write_batch(plan.distinct_ids() == 0, [&](Inserter& insert, std::string head,
                                                   AppendResult& result) {
    // Idempotent by id: the same content (prev aside) is skipped, other content refused.
    {
      Statement existing(writer(), "SELECT seq, bytes FROM records WHERE id = ?1",
                         "cannot append to " + name);
      for (std::size_t from = 0; from < plan.distinct_ids(); from += ImportPlan::k_chunk) {
        for (const std::string& id : plan.ids(from, ImportPlan::k_chunk)) {
          existing.bind(1, std::string_view(id));
          if (existing.step()) {
            plan.present(id, existing.text(1), name, fmt::format("record {}", existing.integer(0)));
          }
          existing.reset();
        }
      }
    }
    result.skipped = plan.skipped();
    head = plan.append_chunks(
        records, head, [&](std::vector<PendingRecord>& pending, const std::vector<Record>& from) {
          for (const auto& record : pending) insert(from[record.index], record.bytes);
        });
    result.appended = plan.kept();
    return head;
  });
}

AppendResult SqliteStore::write_batch(
    bool empty,
    const std::function<std::string(Inserter& insert, std::string head, AppendResult& result)>&
        body) {
  const std::string name = m_path.string();
  m_warnings.clear();
  sqlite3* db = writer();
  const std::string context = "cannot append to " + name;
  // BEGIN IMMEDIATE takes the write lock now, so reading the head and inserting after it happen
  // under one lock; other writers wait up to the busy timeout. One transaction, however many
  // records: all or nothing.
  exec(db, "BEGIN IMMEDIATE", context);
  try {
    AppendResult result;
    if (!table_exists(db, name)) {
      // The table and the file's application_id come with the first records, never without:
      // so a file marked as a ledger has records, and verify refuses one whose table is gone
      // or empty.
      if (empty) {
        exec(db, "ROLLBACK", context);
        result.head = std::string(k_zero_hash);
        return result;
      }
      exec(db, k_schema_sql, context);
      exec(db, fmt::format("PRAGMA application_id = {}", k_application_id).c_str(), context);
      exec(db, "PRAGMA user_version = 1", context);
    }
    std::string head(k_zero_hash);
    std::int64_t seq = 0;
    {
      // The last two records: a tail that does not verify refuses the batch (checked_tail).
      Statement last(db, "SELECT seq, bytes FROM records ORDER BY seq DESC LIMIT 2", context);
      if (last.step()) {
        seq = last.integer(0);
        const std::string bytes(last.text(1));
        std::optional<std::string> before;
        if (last.step()) before = std::string(last.text(1));
        head = checked_tail(name, fmt::format("its last record (record {})", seq), bytes,
                            before ? std::optional<std::string_view>(*before) : std::nullopt);
      }
    }
    Statement statement(
        db,
        "INSERT INTO records (seq, id, type, time, run, label, bench, params, "
        "git_commit, target, bytes) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        context);
    Inserter insert = [&](const Record& record, std::string_view bytes) {
      const Columns columns = columns_of(record);
      statement.bind(1, ++seq)
          .bind(2, std::string_view(columns.id))
          .bind(3, std::string_view(columns.type))
          .bind(4, std::string_view(columns.time))
          .bind(5, columns.run)
          .bind(6, columns.label)
          .bind(7, columns.bench)
          .bind(8, columns.params)
          .bind(9, columns.git_commit)
          .bind(10, columns.target)
          .bind(11, bytes);
      statement.step();
      statement.reset();
    };
    result.head = body(insert, head, result);
    exec(db, "COMMIT", context);
    return result;
  } catch (const ConflictError&) {
    exec(db, "ROLLBACK", context);
    throw;
  } catch (const IntegrityError&) {  // checked_tail's message says nothing was written
    exec(db, "ROLLBACK", context);
    throw;
  } catch (const Error& e) {
    // A failed COMMIT may already have rolled back; ROLLBACK then has nothing to do.
    std::ignore = sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw Error(std::string(e.what()) + " (nothing was written)");
  }
}

Record SqliteStore::parse_row(std::int64_t seq, std::string_view bytes) const {
  try {
    return parse_record(bytes);
  } catch (const Error& e) {
    throw IntegrityError(fmt::format("{} record {}: {} (run `benchledger ledger verify`)",
                                     m_path.string(), seq, e.what()));
  }
}

namespace {

// Runs a query over records unless the ledger does not exist yet (or has no table yet).
template <class Bind, class Row>
void query_rows(sqlite3* db, const char* sql, const std::string& name, Bind&& bind, Row&& row) {
  if (db == nullptr || !table_exists(db, name)) return;
  Statement query(db, sql, "cannot read " + name);
  bind(query);
  while (query.step()) {
    if (!row(query)) return;
  }
}

const auto k_no_binding = [](Statement&) {};

}  // namespace

void SqliteStore::scan(const std::function<bool(const StoredRecord&)>& visit) const {
  m_warnings.clear();
  query_rows(reader(), "SELECT seq, bytes FROM records ORDER BY seq", m_path.string(), k_no_binding,
             [&](Statement& row) {
               const StoredRecord stored{row.integer(0), std::string(row.text(1)),
                                         parse_row(row.integer(0), row.text(1))};
               return visit(stored);
             });
}

void SqliteStore::scan_bytes(
    const std::function<bool(std::int64_t position, std::string_view bytes)>& visit) const {
  m_warnings.clear();
  query_rows(reader(), "SELECT seq, bytes FROM records ORDER BY seq", m_path.string(), k_no_binding,
             [&](Statement& row) { return visit(row.integer(0), row.text(1)); });
}

std::vector<RunRecord> SqliteStore::find_runs(const RunSelector& selector,
                                              std::size_t limit) const {
  m_warnings.clear();
  std::vector<RunRecord> out;
  if (limit == 0) return out;
  const auto collect = [&](Statement& row) {
    out.push_back(std::get<RunRecord>(parse_row(row.integer(0), row.text(1))));
    return true;
  };
  const auto page = [&](int first) {
    return [&, first](Statement& query) {
      query.bind(first, sql_limit(limit)).bind(first + 1, selector.back);
    };
  };
  const std::string name = m_path.string();
  switch (selector.kind) {
    case RunSelector::Kind::id:
      query_rows(
          reader(), "SELECT seq, bytes FROM records WHERE id = ?1 AND type = 'run'", name,
          [&](Statement& query) { query.bind(1, std::string_view(selector.value)); }, collect);
      break;
    case RunSelector::Kind::label:
      query_rows(
          reader(),
          "SELECT seq, bytes FROM records WHERE label = ?1 AND type = 'run' "
          "ORDER BY seq DESC LIMIT ?2 OFFSET ?3",
          name,
          [&](Statement& query) {
            query.bind(1, std::string_view(selector.value));
            page(2)(query);
          },
          collect);
      break;
    case RunSelector::Kind::git:
      // GLOB is case-sensitive and can use the index; the selector holds only hex digits.
      query_rows(
          reader(),
          "SELECT seq, bytes FROM records WHERE git_commit GLOB ?1 AND type = 'run' "
          "ORDER BY seq DESC LIMIT ?2 OFFSET ?3",
          name,
          [&](Statement& query) {
            query.bind(1, std::string_view(selector.value + "*"));
            page(2)(query);
          },
          collect);
      break;
    case RunSelector::Kind::latest:
      query_rows(reader(),
                 "SELECT seq, bytes FROM records WHERE type = 'run' ORDER BY seq DESC "
                 "LIMIT ?1 OFFSET ?2",
                 name, page(1), collect);
      break;
  }
  return out;
}

void SqliteStore::scan_results(const std::string& run_id,
                               const std::function<bool(ResultRecord&& result)>& visit) const {
  m_warnings.clear();
  query_rows(
      reader(), "SELECT seq, bytes FROM records WHERE run = ?1 AND type = 'result' ORDER BY seq",
      m_path.string(), [&](Statement& query) { query.bind(1, std::string_view(run_id)); },
      [&](Statement& row) {
        return visit(std::get<ResultRecord>(parse_row(row.integer(0), row.text(1))));
      });
}

std::vector<NoteRecord> SqliteStore::notes() const {
  m_warnings.clear();
  std::vector<NoteRecord> out;
  query_rows(reader(), "SELECT seq, bytes FROM records WHERE type = 'note' ORDER BY seq",
             m_path.string(), k_no_binding, [&](Statement& row) {
               out.push_back(std::get<NoteRecord>(parse_row(row.integer(0), row.text(1))));
               return true;
             });
  return out;
}

std::optional<StoredRecord> SqliteStore::find_record(const std::string& id) const {
  m_warnings.clear();
  std::optional<StoredRecord> found;
  query_rows(
      reader(), "SELECT seq, bytes FROM records WHERE id = ?1", m_path.string(),
      [&](Statement& query) { query.bind(1, std::string_view(id)); },
      [&](Statement& row) {
        found = StoredRecord{row.integer(0), std::string(row.text(1)),
                             parse_row(row.integer(0), row.text(1))};
        return false;
      });
  return found;
}

std::vector<RunListing> SqliteStore::log(std::size_t limit) const {
  m_warnings.clear();
  std::vector<RunListing> out;
  query_rows(
      reader(),
      "SELECT r.seq, r.bytes, (SELECT count(*) FROM records x WHERE x.run = r.id AND "
      "x.type = 'result') FROM records r WHERE r.type = 'run' ORDER BY r.seq DESC LIMIT ?1",
      m_path.string(), [&](Statement& query) { query.bind(1, limit == 0 ? -1 : sql_limit(limit)); },
      [&](Statement& row) {
        RunListing listing;
        listing.run = std::get<RunRecord>(parse_row(row.integer(0), row.text(1)));
        listing.results = row.integer(2);
        out.push_back(std::move(listing));
        return true;
      });
  return out;
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
// object, so an edit to k_schema_sql needs no second copy here.
const std::map<std::pair<std::string, std::string>, std::optional<std::string>>& expected_schema() {
  static const auto expected = [] {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
      sqlite3_close_v2(db);
      throw Error("cannot open an in-memory SQLite database");
    }
    try {
      exec(db, k_schema_sql, "the ledger's schema");
      auto objects = schema_objects(db, "the ledger's schema");
      sqlite3_close_v2(db);
      return objects;
    } catch (...) {
      sqlite3_close_v2(db);
      throw;
    }
  }();
  return expected;
}

// The breaks of the file itself: SQLite's integrity check (every page, every index against its
// table: quick_check does not compare indexes with tables, and an index page copied from another
// copy of the ledger sends queries to the wrong rows), then the schema, object by object, against
// what the store creates: a trigger dropped or its SQL changed (PRAGMA writable_schema) no longer
// guards the table.
void verify_file(sqlite3* db, const std::string& name, ChainVerifier& verifier) {
  {
    Statement check(db, "PRAGMA integrity_check(100)", "cannot check " + name);
    while (check.step()) {
      if (check.text(0) == "ok") break;
      verifier.add_ledger_break("SQLite's integrity check: " + std::string(check.text(0)) +
                                " (the file was changed outside SQLite)");
    }
  }
  const auto found = schema_objects(db, name);
  for (const auto& [key, sql] : expected_schema()) {
    const auto it = found.find(key);
    if (it == found.end()) {
      verifier.add_ledger_break(fmt::format(
          "its {} {} is missing: the file was changed outside benchledger{}", key.first, key.second,
          key.first == "trigger" ? ", and the table is no longer append-only" : ""));
    } else if (it->second != sql) {
      verifier.add_ledger_break(fmt::format(
          "its {} {} is not the one benchledger creates (its SQL was changed, through PRAGMA "
          "writable_schema or by dropping and creating it again): {}",
          key.first, key.second, it->second.value_or("(no SQL)")));
    }
  }
  for (const auto& [key, sql] : found) {
    if (expected_schema().count(key) == 0) {
      verifier.add_ledger_break(fmt::format("it holds a {} {} that benchledger does not create: {}",
                                            key.first, key.second, sql.value_or("(no SQL)")));
    }
  }
}

}  // namespace

VerifyReport SqliteStore::verify(const std::optional<std::string>& head) const {
  m_warnings.clear();
  const std::string name = m_path.string();
  sqlite3* db = reader();
  if (db == nullptr) throw Error(fmt::format("cannot verify {}: it does not exist", name));
  ChainVerifier verifier(name, "record", head);
  // A ledger is expected where the file carries the ledger's application_id, which is written
  // with the table and the first records in one transaction (append_records): its table must be
  // there and hold records. A database with neither is not a ledger yet (nothing was ever
  // appended), which verify refuses as it refuses a file that does not exist.
  bool marked = false;
  {
    Statement query(db, "PRAGMA application_id", "cannot read " + name);
    marked = query.step() && query.integer(0) == k_application_id;
  }
  if (!table_exists(db, name)) {
    if (!marked) {
      throw Error(fmt::format(
          "cannot verify {}: it holds no ledger yet (an empty database: nothing was appended)",
          name));
    }
    verifier.add_ledger_break(
        "its table of records is missing, but the file is marked as a ledger (its "
        "application_id): the table was dropped");
    return verifier.finish();
  }
  bool any = false;
  try {
    verify_file(db, name, verifier);
    query_rows(
        db,
        "SELECT seq, id, type, time, run, label, bench, params, git_commit, target, bytes "
        "FROM records ORDER BY seq",
        name, k_no_binding, [&](Statement& row) {
          any = true;
          verify_row(
              verifier, row.integer(0), row.text(10),
              Columns{std::string(row.text(1)), std::string(row.text(2)), std::string(row.text(3)),
                      row.nullable_text(4), row.nullable_text(5), row.nullable_text(6),
                      row.nullable_text(7), row.nullable_text(8), row.nullable_text(9)});
          return true;  // on past a bad record: nothing after it may go unchecked
        });
  } catch (const Error& e) {
    // A file too damaged to read on is a break like the others; anything else (a lock held
    // past the busy timeout, say) says nothing about the ledger's integrity.
    const int code = sqlite3_errcode(db);
    if (code != SQLITE_CORRUPT && code != SQLITE_NOTADB) throw;
    verifier.add_ledger_break(std::string("SQLite cannot read on: ") + e.what());
    return verifier.finish();
  }
  if (!any) {
    verifier.add_ledger_break(
        "its table of records is empty, but a ledger's table is created with its first "
        "records: its rows were removed");
  }
  return verifier.finish();
}

}  // namespace benchledger::ledger::sqlite
