// The SQLite store (see sqlite_store.hpp): connections, the write transaction, and reading; the
// schema and the file's own checks are sqlite_file.hpp's.
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

#include "ledger/sqlite/sqlite_file.hpp"
#include "ledger/sqlite/sqlite_points.hpp"

namespace benchledger::ledger::sqlite {

namespace {

std::int64_t sql_limit(std::size_t limit) {
  return limit > static_cast<std::size_t>(INT64_MAX) ? -1 : static_cast<std::int64_t>(limit);
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
  int rc = sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE | k_one_thread, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_close_v2(db);
    db = nullptr;
    rc = sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY | k_one_thread, nullptr);
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
    const int rc = sqlite3_open_v2(
        file.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | k_one_thread, nullptr);
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

namespace {

// The rows of one append or import: one transaction, however many records, all or nothing.
class SqliteBatch final : public ChainedStore::Batch {
 public:
  SqliteBatch(sqlite3* db, std::string name, std::int64_t seq)
      : m_db(db),
        m_name(std::move(name)),
        m_context("cannot append to " + m_name),
        m_seq(seq),
        m_insert(db,
                 "INSERT INTO records (seq, id, type, time, run, label, bench, params, "
                 "git_commit, target, bytes) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                 m_context),
        m_points(db, m_context) {}

  void find_present(ImportPlan& plan) override {
    Statement existing(m_db, "SELECT seq, bytes FROM records WHERE id = ?1", m_context);
    for (std::size_t from = 0; from < plan.distinct_ids(); from += ImportPlan::k_chunk) {
      for (const std::string& id : plan.ids(from, ImportPlan::k_chunk)) {
        existing.bind(1, std::string_view(id));
        if (existing.step()) {
          plan.present(id, existing.text(1), m_name, fmt::format("record {}", existing.integer(0)));
        }
        existing.reset();
      }
    }
  }

  void write(std::vector<PendingRecord>& pending, const std::vector<Record>& records) override {
    for (const auto& record : pending) {
      const Columns columns = columns_of(records[record.index]);
      m_insert.bind(1, ++m_seq)
          .bind(2, std::string_view(columns.id))
          .bind(3, std::string_view(columns.type))
          .bind(4, std::string_view(columns.time))
          .bind(5, columns.run)
          .bind(6, columns.label)
          .bind(7, columns.bench)
          .bind(8, columns.params)
          .bind(9, columns.git_commit)
          .bind(10, columns.target)
          .bind(11, std::string_view(record.bytes));
      m_insert.step();
      m_insert.reset();
      const Record& written = records[record.index];
      if (const auto* run = std::get_if<RunRecord>(&written)) m_points.run(*run);
      if (const auto* result = std::get_if<ResultRecord>(&written)) m_points.result(m_seq, *result);
    }
  }

 private:
  sqlite3* m_db;
  std::string m_name;
  std::string m_context;
  std::int64_t m_seq;  // of the last row
  Statement m_insert;
  PointWriter m_points;
};

}  // namespace

std::string SqliteStore::write_batch(
    const BatchOutline& outline,
    const std::function<std::string(Batch& batch, std::string head)>& body) {
  const std::string name = m_path.string();
  m_warnings.clear();
  sqlite3* db = writer();
  const std::string context = "cannot append to " + name;
  // BEGIN IMMEDIATE takes the write lock now, so reading the head and inserting after it happen
  // under one lock; other writers wait up to the busy timeout. One transaction, however many
  // records: all or nothing.
  exec(db, "BEGIN IMMEDIATE", context);
  try {
    if (!table_exists(db, name)) {
      // The table and the file's application_id come with the first records, never without:
      // so a file marked as a ledger has records, and verify refuses one whose table is gone
      // or empty.
      if (outline.empty) {
        exec(db, "ROLLBACK", context);
        return std::string(k_zero_hash);
      }
      create_schema(db, context);
    } else if (!outline.empty && (upgrade_schema(db, context) || !points_current(db, context))) {
      fill_points(db, context);  // the records written before the table, or without it
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
    std::string new_head;
    {
      SqliteBatch batch(db, name, seq);
      new_head = body(batch, head);
    }  // the insert statement is finalized before COMMIT
    exec(db, "COMMIT", context);
    return new_head;
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
  return parse_stored(bytes, m_path.string(), "record", seq);
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

VerifyReport SqliteStore::verify(const std::optional<std::string>& head) const {
  return check(head, std::nullopt);
}

VerifyReport SqliteStore::verify_since(const std::string& saved_head) const {
  return check(std::nullopt, saved_head);
}

namespace {

// The position and id of the last record whose bytes hash to `saved_head`, looked for from the
// newest record back, so that a head saved a day ago costs a day's records; nullopt, with
// `records` the number of records, when none does.
std::optional<std::pair<std::int64_t, std::string>> find_saved_head(sqlite3* db,
                                                                    const std::string& name,
                                                                    const std::string& saved_head,
                                                                    std::int64_t& records) {
  if (saved_head == k_zero_hash) return std::pair<std::int64_t, std::string>(0, "");
  std::optional<std::pair<std::int64_t, std::string>> found;
  records = 0;
  query_rows(db, "SELECT seq, id, bytes FROM records ORDER BY seq DESC", name, k_no_binding,
             [&](Statement& row) {
               ++records;
               if (sha256_hex(row.text(2)) != saved_head) return true;
               found.emplace(row.integer(0), std::string(row.text(1)));
               return false;
             });
  return found;
}

}  // namespace

VerifyReport SqliteStore::check(const std::optional<std::string>& head,
                                const std::optional<std::string>& since) const {
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
  std::int64_t after = 0;  // the saved head's position: the records after it are checked
  try {
    verify_file(db, name, verifier, !since);
    if (since) {
      std::int64_t records = 0;
      const auto found = find_saved_head(db, name, *since, records);
      if (!found) {
        verifier.add_ledger_break(unknown_saved_head(*since, records));
        return verifier.finish();
      }
      after = found->first;
      verifier.start_after(after, found->second, *since);
    }
    // The table of points is checked in the same pass, each record parsed once. One made over
    // with other columns (verify_file has named it) or that cannot be read on is a break too,
    // after the records', not a reason to stop reporting.
    std::optional<PointsVerifier> points;
    std::string unreadable_points;
    const auto points_do = [&](const auto& step) {
      try {
        step();
      } catch (const Error& e) {
        if (sqlite3_errcode(db) != SQLITE_ERROR) throw;
        unreadable_points = e.what();
        points.reset();
      }
    };
    if (has_points(db, name)) points_do([&] { points.emplace(db, name, verifier, after); });
    query_rows(
        db,
        "SELECT seq, id, type, time, run, label, bench, params, git_commit, target, bytes "
        "FROM records WHERE seq > ?1 ORDER BY seq",
        name, [&](Statement& query) { query.bind(1, after); },
        [&](Statement& row) {
          any = true;
          const std::int64_t seq = row.integer(0);
          const std::optional<Record> record = verify_row(
              verifier, seq, row.text(10),
              Columns{std::string(row.text(1)), std::string(row.text(2)), std::string(row.text(3)),
                      row.nullable_text(4), row.nullable_text(5), row.nullable_text(6),
                      row.nullable_text(7), row.nullable_text(8), row.nullable_text(9)});
          if (points) points_do([&] { points->add(seq, record); });
          return true;  // on past a bad record: nothing after it may go unchecked
        });
    if (points) points_do([&] { points->finish(); });
    if (!unreadable_points.empty()) {
      verifier.add_ledger_break("its table of points cannot be read: " + unreadable_points);
    }
  } catch (const Error& e) {
    // A file too damaged to read on is a break like the others; anything else (a lock held
    // past the busy timeout, say) says nothing about the ledger's integrity.
    const int code = sqlite3_errcode(db);
    if (code != SQLITE_CORRUPT && code != SQLITE_NOTADB) throw;
    verifier.add_ledger_break(std::string("SQLite cannot read on: ") + e.what());
    return verifier.finish();
  }
  if (!any && after == 0) {
    verifier.add_ledger_break(
        "its table of records is empty, but a ledger's table is created with its first "
        "records: its rows were removed");
  }
  return verifier.finish();
}

}  // namespace benchledger::ledger::sqlite
