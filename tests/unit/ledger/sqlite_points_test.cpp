// The SQLite store's table of points: `history` read from it gives what the records give (the
// NDJSON store, which has no such table, is the reference), a file from before the table is read
// from its records and gets the table with its next append, the table is as append-only as the
// records, and `verify` finds a point changed, removed or added outside benchledger.
#include <sqlite3.h>

#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <catch2/catch.hpp>

#include "ledger/history.hpp"
#include "ledger/sqlite/sqlite_store.hpp"
#include "unit/ledger/ledger_support.hpp"
#include "unit/ledger/points_support.hpp"

using namespace benchledger;
using namespace benchledger::testing;

namespace {

// Runs SQL on the file through its own connection; returns SQLite's message, empty on success.
std::string sql(const std::filesystem::path& file, const std::string& statements) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK);
  char* message = nullptr;
  const int rc = sqlite3_exec(db, statements.c_str(), nullptr, nullptr, &message);
  std::string out = rc == SQLITE_OK ? "" : (message != nullptr ? message : "error");
  sqlite3_free(message);
  sqlite3_close(db);
  return out;
}

std::int64_t count(const std::filesystem::path& file, const std::string& query) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, query.c_str(), -1, &statement, nullptr) == SQLITE_OK);
  REQUIRE(sqlite3_step(statement) == SQLITE_ROW);
  const std::int64_t n = sqlite3_column_int64(statement, 0);
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return n;
}

}  // namespace

TEST_CASE("history read from SQLite's points is what the records give") {
  const ScratchDir dir;
  const auto ndjson = ledger::open_store((dir / "ledger.ndjson").string());
  const auto sqlite = ledger::open_store("sqlite:" + (dir / "ledger.db").string());
  for (const auto& batch : batches()) {
    ndjson->append(batch);
    sqlite->append(batch);
  }
  CHECK(count(dir / "ledger.db", "SELECT count(*) FROM points") == 6 * 3 * 3);
  CHECK(served_from_points(*sqlite));
  CHECK_FALSE(ledger::scan_points(*ndjson, {}, std::nullopt, [](ledger::StoredPoint&&) {}));
  check_history_as(*ndjson, *sqlite);
  CHECK(sqlite->verify(std::nullopt).ok);
}

TEST_CASE("a SQLite ledger from before the points is read from its records, then upgraded") {
  const ScratchDir dir;
  const auto file = dir / "ledger.db";
  const auto ndjson = ledger::open_store((dir / "ledger.ndjson").string());
  auto all = batches();
  {
    const auto store = ledger::open_store("sqlite:" + file.string());
    for (std::size_t i = 0; i + 1 < all.size(); ++i) {
      store->append(all[i]);
      ndjson->append(all[i]);
    }
  }
  // What a version-2 file is: the same without the table of points.
  REQUIRE(sql(file, "DROP TABLE points; PRAGMA user_version = 2;").empty());
  const auto store = ledger::open_store("sqlite:" + file.string());
  CHECK(store->verify(std::nullopt).ok);
  CHECK_FALSE(ledger::scan_points(*store, {}, std::nullopt, [](ledger::StoredPoint&&) {}));
  CHECK(comparable(ledger::collect_series(*store, {})) ==
        comparable(ledger::collect_series(*ndjson, {})));

  store->append(all.back());  // the notes: the upgrade fills the points from the records
  ndjson->append(all.back());
  CHECK(count(file, "PRAGMA user_version") == 3);
  CHECK(count(file, "SELECT count(*) FROM points") == 6 * 3 * 3);
  const auto reopened = ledger::open_store("sqlite:" + file.string());
  CHECK(reopened->verify(std::nullopt).ok);
  for (const auto& options : queries()) {
    CHECK(comparable(ledger::collect_series(*reopened, options)) ==
          comparable(ledger::collect_series(*ndjson, options)));
  }
}

TEST_CASE("the table of points is append-only, and verify finds what was done to it anyway") {
  const ScratchDir dir;
  const auto file = dir / "ledger.db";
  const auto store = ledger::open_store("sqlite:" + file.string());
  const auto batch = fresh_batch("nightly", 2);
  store->append(batch);
  const std::string result = header_of(batch[1]).id;

  CHECK_THAT(sql(file, "UPDATE points SET centre = 1"), Catch::Contains("append-only"));
  CHECK_THAT(sql(file, "DELETE FROM points"), Catch::Contains("append-only"));
  CHECK_THAT(sql(file,
                 "INSERT INTO points SELECT bench, params, 'forged', seq + 100, result, "
                 "is_primary, unit, better, run, time, label, branch, git_commit, dirty, "
                 "centre, low, high, min, max, samples FROM points LIMIT 1"),
             Catch::Contains("a point is refused unless it is new"));
  CHECK_THAT(sql(file,
                 "INSERT OR REPLACE INTO points SELECT bench, params, metric, seq, result, "
                 "is_primary, unit, better, run, time, label, branch, git_commit, dirty, 1, "
                 "low, high, min, max, samples FROM points LIMIT 1"),
             Catch::Contains("a point is refused unless it is new"));
  REQUIRE(store->verify(std::nullopt).ok);

  SECTION("a value changed") {
    REQUIRE(sql(file,
                "DROP TRIGGER points_refuse_update; UPDATE points SET centre = 1, low = 0 "
                "WHERE result = '" +
                    result + "' AND metric = 'time'")
                .empty());
    const auto report = store->verify(std::nullopt);
    CHECK_FALSE(report.ok);
    CHECK_THAT(breaks(report), Catch::Contains("trigger points_refuse_update is missing") &&
                                   Catch::Contains(result + "): its point for metric time "
                                                            "disagrees with its bytes (centre, "
                                                            "low)"));
  }
  SECTION("a point removed") {
    REQUIRE(sql(file, "DROP TRIGGER points_refuse_delete; DELETE FROM points WHERE result = '" +
                          result + "' AND metric = 'latency'")
                .empty());
    CHECK_THAT(breaks(store->verify(std::nullopt)),
               Catch::Contains("trigger points_refuse_delete is missing") &&
                   Catch::Contains("its point for metric latency is missing"));
  }
  SECTION("a point added") {
    REQUIRE(sql(file,
                "INSERT INTO points SELECT bench, params, 'forged', seq, result, 0, unit, "
                "better, run, time, label, branch, git_commit, dirty, centre, low, high, "
                "min, max, samples FROM points LIMIT 1")
                .empty());
    const auto report = store->verify(std::nullopt);
    CHECK_FALSE(report.ok);
    CHECK_THAT(breaks(report),
               Catch::Contains("holds a point (metric forged) that the records do not give"));
  }
}

TEST_CASE("one case's points are one range of the table, read in its order with nothing sorted") {
  const ScratchDir dir;
  const auto file = dir / "ledger.db";
  ledger::open_store("sqlite:" + file.string())->append(fresh_batch("nightly", 3));
  ledger::SeriesQuery query;
  query.cases = {"executors/sort"};
  query.label = "nightly";
  const auto statement = ledger::sqlite::points_statement(query, std::nullopt);
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* explain = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, ("EXPLAIN QUERY PLAN " + statement.sql).c_str(), -1, &explain,
                             nullptr) == SQLITE_OK);
  std::string plan;
  while (sqlite3_step(explain) == SQLITE_ROW) {
    plan += reinterpret_cast<const char*>(sqlite3_column_text(explain, 3)) + std::string("\n");
  }
  sqlite3_finalize(explain);
  sqlite3_close(db);
  INFO(plan);
  CHECK_THAT(plan, Catch::Contains("SEARCH points USING PRIMARY KEY (bench>? AND bench<?)"));
  CHECK_THAT(plan, !Catch::Contains("TEMP B-TREE"));
}

TEST_CASE("a result appended before its run is in no series, from the points or the records") {
  const ScratchDir dir;
  const auto ndjson = ledger::open_store((dir / "ledger.ndjson").string());
  const auto sqlite = ledger::open_store("sqlite:" + (dir / "ledger.db").string());
  auto batch = fresh_batch("nightly", 2);
  std::swap(batch[0], batch[1]);  // result 0, its run, result 1
  ndjson->import(batch);
  sqlite->import(batch);
  for (const bool samples : {false, true}) {
    ledger::HistoryOptions options;
    options.samples = samples;
    const auto series = ledger::collect_series(*sqlite, options);
    REQUIRE(series.size() == 1);
    CHECK(series[0].params.at("i") == ParamValue{std::int64_t{1}});
    CHECK(comparable(series) == comparable(ledger::collect_series(*ndjson, options)));
  }
  CHECK(sqlite->verify(std::nullopt).ok);
}

TEST_CASE("results appended without their points are read from the records, then filled in") {
  const ScratchDir dir;
  const auto file = dir / "ledger.db";
  const auto ndjson = ledger::open_store((dir / "ledger.ndjson").string());
  const auto store = ledger::open_store("sqlite:" + file.string());
  auto all = batches();
  for (std::size_t i = 0; i + 1 < all.size(); ++i) {
    store->append(all[i]);
    ndjson->append(all[i]);
  }
  // What an older benchledger leaves: the newest run's results without points.
  const std::string newest = header_of(all[all.size() - 2][0]).id;
  REQUIRE(sql(file,
              "DROP TRIGGER points_refuse_delete; DELETE FROM points WHERE run = '" + newest + "'")
              .empty());
  CHECK(count(file, "SELECT count(*) FROM points") == 5 * 3 * 3);
  CHECK_FALSE(ledger::scan_points(*store, {}, std::nullopt, [](ledger::StoredPoint&&) {}));
  CHECK(comparable(ledger::collect_series(*store, {})) ==
        comparable(ledger::collect_series(*ndjson, {})));

  store->append(all.back());
  ndjson->append(all.back());
  CHECK(count(file, "SELECT count(*) FROM points") == 6 * 3 * 3);
  CHECK(ledger::scan_points(*store, {}, std::nullopt, [](ledger::StoredPoint&&) {}));
  for (const auto& options : queries()) {
    CHECK(comparable(ledger::collect_series(*store, options)) ==
          comparable(ledger::collect_series(*ndjson, options)));
  }
  const auto report = store->verify(std::nullopt);
  CHECK(breaks(report) == fmt::format("{}: its trigger points_refuse_delete is missing: the file "
                                      "was changed outside benchledger, and the table is no "
                                      "longer append-only\n",
                                      file.string()));
}

TEST_CASE("verify reports a table of points made over with other columns, and goes on") {
  const ScratchDir dir;
  const auto file = dir / "ledger.db";
  const auto store = ledger::open_store("sqlite:" + file.string());
  store->append(fresh_batch("nightly", 2));
  REQUIRE(sql(file, "DROP TABLE points; CREATE TABLE points (x)").empty());
  const auto report = store->verify(std::nullopt);
  CHECK_FALSE(report.ok);
  CHECK_THAT(breaks(report), Catch::Contains("its table of points cannot be read") &&
                                 Catch::Contains("its table points is not the one benchledger "
                                                 "creates"));
}
