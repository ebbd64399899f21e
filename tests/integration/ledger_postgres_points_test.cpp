// The PostgreSQL store's table of points: the database derives each point from the records
// (history read from the points is what the NDJSON store gives from its records, the interval of
// every sample count included), a ledger from before the table gets it filled with its owner's
// next append or with `ledger grant`, the dashboards' view shows exactly what `history` shows (a
// result appended before its run in neither), `verify` finds a point edited, removed or added by
// the owner and reads the records on past a table of points it cannot read, and one case is read
// from one range of the key's index, unsorted.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "integration/ledger_process.hpp"
#include "ledger/history.hpp"
#include "ledger/postgres/postgres_store.hpp"
#include "unit/ledger/ledger_support.hpp"
#include "unit/ledger/points_support.hpp"

using namespace benchledger;
using namespace benchledger::testing;

namespace {

// A statement's rows through psql, one a line with cells split by tabs; fails the test (with
// psql's message) when it fails. An unreachable server fails here too, saying so.
std::vector<std::string> query(const std::string& uri, const std::string& sql) {
  const ProcessResult result = run_process({"/usr/bin/psql", "-X", "-q", "-A", "-t", "-F", "\t",
                                            "-v", "ON_ERROR_STOP=1", "-d", uri, "-c", sql});
  INFO(sql << "\n" << result.err);
  REQUIRE(result.exit_code == 0);
  return split_lines(result.out);
}

// psql's answer to statements that may fail: its exit code and message.
ProcessResult psql(const std::string& uri, const std::string& sql) {
  return run_process({"/usr/bin/psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", uri, "-c", sql});
}

// A role a test grants, dropped after the database that holds its privileges (declared before
// the ScratchDir).
struct DropRole {
  std::string name;
  ~DropRole() { run_pg_admin_sql("DROP ROLE IF EXISTS \"" + name + "\""); }
};

// Every batch of `all` but the last, appended to the PostgreSQL ledger at `uri` (a store opened
// for each, as runners do) and to `ndjson`.
void append_all_but_last(const std::vector<std::vector<Record>>& all, const std::string& uri,
                         ledger::Store& ndjson) {
  for (std::size_t i = 0; i + 1 < all.size(); ++i) {
    ledger::open_store(uri)->append(all[i]);
    ndjson.append(all[i]);
  }
}

std::int64_t count_points(const std::string& uri) {
  return std::stoll(query(uri, "SELECT count(*) FROM benchledger_points").at(0));
}

// Checks `store`, at `uri`, holding the ledger of batches(): its points, history from them and
// from its records as the NDJSON store `ndjson` gives it, and verify.
void check_ledger_of_batches(const std::string& uri, const ledger::Store& ndjson,
                             const ledger::Store& store) {
  CHECK(count_points(uri) == 6 * 3 * 3);
  CHECK(served_from_points(store));
  check_history_as(ndjson, store);
  CHECK(store.verify(std::nullopt).ok);
}

}  // namespace

TEST_CASE("the PostgreSQL points tests have a server to run against") {
  // Never skipped: without BENCHLEDGER_TEST_PG this fails, naming what is missing.
  CHECK_FALSE(required_test_pg_server().empty());
}

TEST_CASE("history read from PostgreSQL's points is what the records give") {
  const ScratchDir dir;
  const std::string uri = dir.pg_uri();
  const auto ndjson = ledger::open_store((dir / "ledger.ndjson").string());
  const auto postgres = ledger::open_store(uri);
  for (const auto& batch : batches()) {
    ndjson->append(batch);
    postgres->append(batch);
  }
  check_ledger_of_batches(uri, *ndjson, *postgres);
}

TEST_CASE("the database gives each sample count the interval median_interval gives it") {
  const ScratchDir dir;
  const std::string uri = dir.pg_uri();
  const auto ndjson = ledger::open_store((dir / "ledger.ndjson").string());
  const auto postgres = ledger::open_store(uri);
  // One result a sample count, 1 to 300, of values drawn with ties, negative values and -0.
  std::mt19937_64 random(20261128);
  std::uniform_int_distribution<int> draw(-50, 200);
  auto batch = fresh_batch("nightly", 300);
  for (std::size_t r = 1; r < batch.size(); ++r) {
    std::vector<double> samples;
    for (std::size_t i = 0; i < r; ++i) samples.push_back(draw(random) * 0.25);
    if (r % 7 == 0) samples[0] = -0.0;
    auto& result = std::get<ResultRecord>(batch[r]);
    result.metrics["time"] = metric_from_samples("ns", Better::lower, samples);
  }
  ndjson->append(batch);
  postgres->append(batch);
  CHECK(count_points(uri) == 300 * 3);
  CHECK(served_from_points(*postgres));
  const auto reference = comparable(ledger::collect_series(*ndjson, {}));
  REQUIRE(reference.size() == 300);
  CHECK(comparable(ledger::collect_series(*postgres, {})) == reference);
  // And verify, which recomputes every point in C++, agrees with the database.
  const auto report = postgres->verify(std::nullopt);
  INFO(breaks(report));
  CHECK(report.ok);
}

TEST_CASE("a PostgreSQL ledger from before the points is read from its records, then upgraded") {
  DropRole role;  // the grant section's
  const ScratchDir dir;
  role.name = "ci_points_" + dir.suffix();
  const std::string uri = dir.pg_uri();
  const auto ndjson = ledger::open_store((dir / "ledger.ndjson").string());
  auto all = batches();
  append_all_but_last(all, uri, *ndjson);
  // As a version before the points left a ledger: the table of records and the triggers that
  // refuse changes (its chain check, a trigger of its own then, is not kept here).
  query(uri,
        "DROP VIEW benchledger_results; DROP TRIGGER benchledger_append_on ON "
        "benchledger_records; DROP TABLE benchledger_points; DROP FUNCTION "
        "benchledger_append_on(), benchledger_fill_points(bigint, bigint), "
        "benchledger_median_rank(integer)");
  const auto store = ledger::open_store(uri);
  CHECK(store->verify(std::nullopt).ok);
  CHECK_FALSE(ledger::scan_points(*store, {}, std::nullopt, [](ledger::StoredPoint&&) {}));
  CHECK(comparable(ledger::collect_series(*store, {})) ==
        comparable(ledger::collect_series(*ndjson, {})));

  SECTION("by its owner's next append") {
    store->append(all.back());  // the table is made and filled
    ndjson->append(all.back());
    check_ledger_of_batches(uri, *ndjson, *store);
  }
  SECTION("by ledger grant, after which the CI role reads the points and its appends add some") {
    const ProcessResult grant = run_ledger({"grant", role.name, "--ledger", uri});
    INFO(grant.err);
    REQUIRE(grant.exit_code == 0);
    CHECK(count_points(uri) == 6 * 3 * 3);  // all runs appended; the notes are left
    const auto ci =
        ledger::open_store("postgresql://" + role.name + "@" + uri.substr(uri.find('@') + 1));
    ci->append(all.back());
    ndjson->append(all.back());
    check_ledger_of_batches(uri, *ndjson, *ci);
  }
}

TEST_CASE("ledger grant gives a ledger of an earlier version one trigger and the label index") {
  DropRole role;
  const ScratchDir dir;
  role.name = "ci_one_trigger_" + dir.suffix();
  const std::string uri = dir.pg_uri();
  const auto ndjson = ledger::open_store((dir / "ledger.ndjson").string());
  auto all = batches();
  append_all_but_last(all, uri, *ndjson);
  // The earlier version's names: the chain check's trigger, and the points' with its function;
  // and no index of points for dashboards.
  query(uri,
        "DROP INDEX benchledger_points_by_label; "
        "ALTER TRIGGER benchledger_append_on ON benchledger_records RENAME TO "
        "benchledger_chain_on; CREATE FUNCTION benchledger_points_on() RETURNS trigger "
        "LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$; CREATE TRIGGER benchledger_points_on "
        "AFTER INSERT ON benchledger_records FOR EACH STATEMENT EXECUTE FUNCTION "
        "benchledger_points_on()");
  const ProcessResult grant = run_ledger({"grant", role.name, "--ledger", uri});
  INFO(grant.err);
  REQUIRE(grant.exit_code == 0);
  CHECK(grant.err.empty());  // no notice of a trigger or function that was not there
  CHECK(query(uri,
              "SELECT string_agg(tgname, ' ' ORDER BY tgname) FROM pg_trigger WHERE tgrelid = "
              "'benchledger_records'::regclass AND NOT tgisinternal") ==
        std::vector<std::string>{"benchledger_append_on benchledger_refuse_delete "
                                 "benchledger_refuse_truncate benchledger_refuse_update"});
  CHECK(query(uri,
              "SELECT count(*) FROM pg_proc WHERE proname IN ('benchledger_chain_on', "
              "'benchledger_points_on')") == std::vector<std::string>{"0"});
  CHECK(query(uri, "SELECT to_regclass('benchledger_points_by_label') IS NOT NULL") ==
        std::vector<std::string>{"t"});
  const auto ci =
      ledger::open_store("postgresql://" + role.name + "@" + uri.substr(uri.find('@') + 1));
  ci->append(all.back());  // checked and its points derived by the one trigger
  ndjson->append(all.back());
  check_ledger_of_batches(uri, *ndjson, *ci);
}

TEST_CASE("the view shows what history shows, and neither a result appended before its run") {
  const ScratchDir dir;
  const std::string uri = dir.pg_uri();
  const auto store = ledger::open_store(uri);
  for (const auto& batch : batches()) store->append(batch);
  auto early = fresh_batch("nightly", 2, "c0ffee9");
  std::swap(early[0], early[1]);  // result 0, its run, result 1
  store->import(early);
  const std::string before_run = header_of(early[0]).id;
  const std::string after_run = header_of(early[2]).id;

  // Every primary point of history, and every primary row of the view, as case, run, metric and
  // centre; the order of neither matters.
  std::vector<std::string> history;
  for (const bool samples : {false, true}) {  // from the points, and from the records
    ledger::HistoryOptions options;
    options.samples = samples;
    std::vector<std::string> points;
    for (const auto& s : ledger::collect_series(*store, options)) {
      for (const auto& p : s.points) {
        points.push_back(
            fmt::format("{} {} {} {}", case_key(s.bench, s.params), p.run_id, s.metric, p.centre));
      }
    }
    std::sort(points.begin(), points.end());
    if (samples) CHECK(points == history);
    history = std::move(points);
  }
  std::vector<std::string> view;
  for (const std::string& row :
       query(uri,
             "SELECT bench, params::text, run, metric, centre FROM benchledger_results "
             "WHERE is_primary")) {
    std::vector<std::string> cells;
    std::size_t start = 0;
    for (std::size_t tab; (tab = row.find('\t', start)) != std::string::npos; start = tab + 1) {
      cells.push_back(row.substr(start, tab - start));
    }
    cells.push_back(row.substr(start));
    REQUIRE(cells.size() == 5);
    const Params params = params_from_json(nlohmann::json::parse(cells[1]));
    view.push_back(fmt::format("{} {} {} {}", case_key(cells[0], params), cells[2], cells[3],
                               std::stod(cells[4])));
  }
  std::sort(view.begin(), view.end());
  CHECK_FALSE(history.empty());
  CHECK(view == history);
  CHECK(query(uri, "SELECT count(*) FROM benchledger_results WHERE result = '" + before_run +
                       "'") == std::vector<std::string>{"0"});
  CHECK(query(uri, "SELECT count(*) FROM benchledger_results WHERE result = '" + after_run + "'") ==
        std::vector<std::string>{"3"});
  CHECK(store->verify(std::nullopt).ok);
}

TEST_CASE("the points are append-only, and verify finds what their owner did to them anyway") {
  const ScratchDir dir;
  const std::string uri = dir.pg_uri();
  const auto store = ledger::open_store(uri);
  const auto batch = fresh_batch("nightly", 2);
  store->append(batch);
  const std::string result = header_of(batch[1]).id;
  const std::string which = " WHERE result = '" + result + "' AND metric = ";

  for (const std::string sql : {"UPDATE benchledger_points SET centre = 1",
                                "DELETE FROM benchledger_points", "TRUNCATE benchledger_points"}) {
    INFO(sql);
    const ProcessResult refused = psql(uri, sql);
    CHECK(refused.exit_code != 0);
    CHECK_THAT(refused.err, Catch::Contains("append-only"));
  }
  REQUIRE(store->verify(std::nullopt).ok);

  SECTION("a value edited") {
    query(uri,
          "ALTER TABLE benchledger_points DISABLE TRIGGER USER; UPDATE benchledger_points "
          "SET centre = 1, low = 0" +
              which + "'time'");
    const auto report = store->verify(std::nullopt);
    CHECK_FALSE(report.ok);
    CHECK_THAT(breaks(report),
               Catch::Contains(result + "): its point for metric time disagrees with its bytes "
                                        "(centre, low)"));
  }
  SECTION("a point removed") {
    query(uri,
          "ALTER TABLE benchledger_points DISABLE TRIGGER USER; DELETE FROM "
          "benchledger_points" +
              which + "'latency'");
    CHECK_THAT(breaks(store->verify(std::nullopt)),
               Catch::Contains("its point for metric latency is missing"));
  }
  SECTION("a point added") {
    query(uri,
          "INSERT INTO benchledger_points SELECT bench, params, 'forged', seq, result, false, "
          "unit, better, run, time, label, branch, git_commit, dirty, host, fingerprint, "
          "centre, low, high, min, max, p50, p95, p99, samples FROM benchledger_points LIMIT 1");
    const auto report = store->verify(std::nullopt);
    CHECK_FALSE(report.ok);
    CHECK_THAT(breaks(report),
               Catch::Contains("holds a point (metric forged) that the records do not give"));
  }
}

TEST_CASE("verify reports a table of points made over with other columns, and reads on") {
  const ScratchDir dir;
  const std::string uri = dir.pg_uri();
  const auto store = ledger::open_store(uri);
  store->append(fresh_batch("nightly", 2));
  query(uri, "DROP TABLE benchledger_points CASCADE; CREATE TABLE benchledger_points (x int)");
  const auto report = store->verify(std::nullopt);
  CHECK_FALSE(report.ok);
  CHECK(report.records == 3);
  CHECK(report.break_count == 1);
  CHECK_THAT(breaks(report), Catch::Contains("its table of points cannot be read"));
}

TEST_CASE("one case's points are one range of the key's index, read from it alone, unsorted") {
  const ScratchDir dir;
  const std::string uri = dir.pg_uri();
  for (const auto& batch : batches()) ledger::open_store(uri)->append(batch);
  ledger::SeriesQuery series;
  series.cases = {"executors/sort"};
  series.label = "nightly";
  // A table this small is read whole by choice; what is checked is that the index gives the rows
  // in the query's order, with every column, once vacuum has marked the pages visible.
  query(uri, "VACUUM ANALYZE benchledger_points");
  const auto plan = query(uri, "SET enable_seqscan = off; SET enable_bitmapscan = off; EXPLAIN " +
                                   ledger::postgres::points_query(series, std::nullopt));
  const std::string text = fmt::format("{}", fmt::join(plan, "\n"));
  INFO(text);
  CHECK_THAT(text, Catch::Contains("Index Only Scan using \"benchledger points: one a case, "
                                   "metric and result\"") &&
                       Catch::Contains("Index Cond: ((bench >= 'executors/sort'::text) AND "
                                       "(bench < 'executors/soru'::text)"));
  CHECK_THAT(text, !Catch::Contains("Sort"));

  // A whole case key reads that case's range alone, and finds the points its bench's read does.
  ledger::HistoryOptions options;
  options.query = series;
  const std::vector<ledger::Series> by_bench =
      ledger::collect_series(*ledger::open_store(uri), options);
  REQUIRE_FALSE(by_bench.empty());
  const ledger::Series& first = by_bench.front();
  series.cases = {case_key(first.bench, first.params)};
  const std::string exact = ledger::postgres::points_query(series, std::nullopt);
  const auto exact_plan =
      query(uri, "SET enable_seqscan = off; SET enable_bitmapscan = off; EXPLAIN " + exact);
  const std::string exact_text = fmt::format("{}", fmt::join(exact_plan, "\n"));
  INFO(exact_text);
  CHECK_THAT(exact_text, Catch::Contains("Index Cond: ((bench = 'executors/sort'::text) AND "
                                         "(params = "));
  options.query = series;
  const auto read = ledger::collect_series(*ledger::open_store(uri), options);
  std::vector<std::size_t> expected, got;  // each of the case's series (a unit each), its points
  for (const ledger::Series& s : by_bench) {
    if (s.params == first.params) expected.push_back(s.points.size());
  }
  for (const ledger::Series& s : read) {
    CHECK(s.params == first.params);
    got.push_back(s.points.size());
  }
  CHECK(got == expected);
}
