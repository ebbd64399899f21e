// The SQLite file under the SQLite store (see sqlite_store.hpp): prepared statements, the schema
// that makes the table append-only, opening a file the reader may not write, and checking a
// file's pages and schema for verify.
#pragma once

#include <sqlite3.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include <benchledger/error.hpp>

namespace benchledger::ledger {
class ChainVerifier;
}

namespace benchledger::ledger::sqlite {

// Every connection is used by one thread at a time (a Store is not shared between threads), so
// SQLite's own mutexes, taken on every call such as each column read, are left out.
constexpr int k_one_thread = SQLITE_OPEN_NOMUTEX;

constexpr int k_application_id = 0x42454e43;  // "BENC"
constexpr int k_busy_timeout_ms = 60'000;

// A prepared statement; every failure throws Error prefixed with `name`.
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
  // A double; NaN, which SQLite would store as NULL anyway, as NULL.
  Statement& bind_real(int index, double value) {
    check(std::isnan(value) ? sqlite3_bind_null(m_statement, index)
                            : sqlite3_bind_double(m_statement, index, value));
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
  // A REAL column; NULL reads as NaN (bind_real's inverse).
  double real(int column) const {
    return is_null(column) ? std::numeric_limits<double>::quiet_NaN()
                           : sqlite3_column_double(m_statement, column);
  }
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

// Runs `sql` (several statements may follow each other). Throws Error prefixed with `name`.
void exec(sqlite3* db, const char* sql, const std::string& name);

// Whether the table of records exists.
bool table_exists(sqlite3* db, const std::string& name);

// Refuses a database that is neither a benchledger ledger (its application_id) nor new and empty.
void check_ours(sqlite3* db, const std::string& name);

// Creates the table, its indexes, triggers and views and marks the file as a ledger, in the
// transaction that appends the first records. Throws Error prefixed with `context`.
void create_schema(sqlite3* db, const std::string& context);

// Brings the schema of a file made by an older version up to date (the views for dashboards, the
// table of points), inside the transaction of an append; returns true when it made the table of
// points, which the caller then fills from the records. Throws Error prefixed with `context`.
bool upgrade_schema(sqlite3* db, const std::string& context);

// Whether the file has the table of points (version 3 and later, unless it was dropped).
bool has_points(sqlite3* db, const std::string& name);

// Puts the database in WAL mode, retrying while another process creates the same ledger.
void enter_wal_mode(sqlite3* db, const std::string& name);

// A connection that can read `path` (see the definition); throws Error.
sqlite3* readable(sqlite3* db, const std::filesystem::path& path, bool& writable);

// Adds to `verifier` the breaks of the file itself: SQLite's integrity check (unless `pages` is
// false: it reads every page of the file, which `verify --since` does not), and every schema
// object that differs from what create_schema() makes.
void verify_file(sqlite3* db, const std::string& name, ChainVerifier& verifier, bool pages);

}  // namespace benchledger::ledger::sqlite
