// A SQLite connection that appends commits durably (WAL, synchronous=FULL), also one that was
// first opened for reading, whatever default the SQLite build gives new connections; and the
// query for one case's series goes through the index on bench.
#include <sqlite3.h>

#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "ledger/sqlite/sqlite_store.hpp"
#include "unit/ledger/ledger_support.hpp"

using namespace benchledger;
using namespace benchledger::testing;

namespace {

// Stands for a SQLite built with another default (SQLITE_DEFAULT_WAL_SYNCHRONOUS=1, say): while
// it lives, every connection this process opens starts with synchronous=OFF.
int start_unsynchronized(sqlite3* db, char**, const sqlite3_api_routines*) {
  return sqlite3_exec(db, "PRAGMA synchronous = OFF", nullptr, nullptr, nullptr);
}

class UnsynchronizedConnections {
 public:
  UnsynchronizedConnections() {
    REQUIRE(sqlite3_auto_extension(reinterpret_cast<void (*)()>(start_unsynchronized)) ==
            SQLITE_OK);
  }
  UnsynchronizedConnections(const UnsynchronizedConnections&) = delete;
  UnsynchronizedConnections& operator=(const UnsynchronizedConnections&) = delete;
  ~UnsynchronizedConnections() {
    sqlite3_cancel_auto_extension(reinterpret_cast<void (*)()>(start_unsynchronized));
  }
};

std::string pragma(sqlite3* db, const std::string& name) {
  REQUIRE(db != nullptr);
  sqlite3_stmt* statement = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, ("PRAGMA " + name).c_str(), -1, &statement, nullptr) == SQLITE_OK);
  std::string value;
  if (sqlite3_step(statement) == SQLITE_ROW) {
    value = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
  }
  sqlite3_finalize(statement);
  return value;
}

constexpr const char* k_full = "2";  // PRAGMA synchronous reads FULL as 2

}  // namespace

TEST_CASE("the SQLite connection that appends has synchronous=FULL, also after a read") {
  const UnsynchronizedConnections unsynchronized;
  ScratchDir dir;
  const auto path = dir / "ledger.db";
  {
    ledger::sqlite::SqliteStore creator("sqlite:" + path.string(), path);
    creator.append(fresh_batch("baseline", 1));
    CHECK(pragma(creator.connection(), "synchronous") == k_full);
    CHECK(pragma(creator.connection(), "journal_mode") == "wal");
  }
  // `ledger note` reads (to find its target) and then appends on the same store.
  ledger::sqlite::SqliteStore store("sqlite:" + path.string(), path);
  REQUIRE(store.log(0).size() == 1);
  REQUIRE(pragma(store.connection(), "synchronous") == "0");  // the reading connection
  store.append(fresh_batch("current", 1));
  CHECK(pragma(store.connection(), "synchronous") == k_full);
  CHECK(store.verify(std::nullopt).ok);
}

TEST_CASE("an empty SQLite file read first and then appended to is put in WAL mode") {
  ScratchDir dir;
  const auto path = dir / "ledger.db";
  write_file(path, "");  // `touch ledger.db`: an empty database, accepted as a new ledger
  ledger::sqlite::SqliteStore store("sqlite:" + path.string(), path);
  CHECK(store.log(0).empty());
  store.append(fresh_batch("baseline", 1));
  CHECK(pragma(store.connection(), "synchronous") == k_full);
  // journal_mode=WAL is kept in the file: another connection sees it.
  sqlite3* other = nullptr;
  REQUIRE(sqlite3_open_v2(path.c_str(), &other, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  CHECK(pragma(other, "journal_mode") == "wal");
  sqlite3_close_v2(other);
}

namespace {

// The query plan's lines (EXPLAIN QUERY PLAN's detail column) for one case's series.
std::vector<std::string> series_plan(const std::filesystem::path& file,
                                     const ledger::SeriesQuery& query) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  const auto statement = ledger::sqlite::series_statement(query);
  sqlite3_stmt* explain = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, ("EXPLAIN QUERY PLAN " + statement.sql).c_str(), -1, &explain,
                             nullptr) == SQLITE_OK);
  for (std::size_t i = 0; i < statement.bindings.size(); ++i) {
    sqlite3_bind_text(explain, static_cast<int>(i + 1), statement.bindings[i].c_str(), -1,
                      SQLITE_TRANSIENT);
  }
  std::vector<std::string> lines;
  while (sqlite3_step(explain) == SQLITE_ROW) {
    lines.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(explain, 3)));
  }
  sqlite3_finalize(explain);
  sqlite3_close(db);
  return lines;
}

}  // namespace

TEST_CASE("one case's series is read through the index on bench, not by walking every result") {
  const ScratchDir dir;
  const auto file = dir / "ledger.db";
  const auto store = ledger::open_store("sqlite:" + file.string());
  store->append(fresh_batch("nightly", 3));
  ledger::SeriesQuery query;
  query.cases = {"executors/sort"};
  for (const bool labelled : {false, true}) {
    if (labelled) query.label = "nightly";
    const auto plan = series_plan(file, query);
    std::string text;
    for (const auto& line : plan) text += line + '\n';
    INFO(text);
    CHECK(text.find("USING INDEX records_by_case (bench>? AND bench<?)") != std::string::npos);
    CHECK(text.find("records_by_type") == std::string::npos);
  }
}
