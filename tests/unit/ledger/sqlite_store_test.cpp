// A SQLite connection that appends commits durably (WAL, synchronous=FULL), also one that was
// first opened for reading, whatever default the SQLite build gives new connections.
#include <sqlite3.h>

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
