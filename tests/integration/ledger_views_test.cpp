// The SQLite and PostgreSQL stores make the benchledger_results view that dashboards read (one row
// per run, case and metric), every query of the Grafana dashboard in ci/grafana runs on both, and
// the view neither breaks verify nor lets a tampered schema through.
#include <cmath>
#include <set>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "integration/ledger_process.hpp"
#include "unit/ledger/ledger_support.hpp"

using namespace benchledger;
using namespace benchledger::ledger;
using namespace benchledger::testing;

namespace {

// Rows of tab-separated cells, as the two shells print a query's answer.
using Rows = std::vector<std::vector<std::string>>;

Rows parse_rows(const std::string& out) {
  Rows rows;
  for (const std::string& line : split_lines(out)) {
    std::vector<std::string> cells;
    std::size_t start = 0;
    for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1) {
      cells.push_back(line.substr(start, tab - start));
    }
    cells.push_back(line.substr(start));
    rows.push_back(std::move(cells));
  }
  return rows;
}

// A query's rows from the sqlite3 shell or psql; fails the test (with the error) when it fails.
Rows query_sqlite(const std::string& db, const std::string& sql) {
  const ProcessResult result =
      run_process({"/usr/bin/sqlite3", "-bail", "-noheader", "-separator", "\t", db, sql});
  INFO(sql << "\n" << result.err);
  REQUIRE(result.exit_code == 0);
  return parse_rows(result.out);
}

Rows query_postgres(const std::string& uri, const std::string& sql) {
  const ProcessResult result = run_process({"/usr/bin/psql", "-X", "-q", "-A", "-t", "-F", "\t",
                                            "-v", "ON_ERROR_STOP=1", "-d", uri, "-c", sql});
  INFO(sql << "\n" << result.err);
  REQUIRE(result.exit_code == 0);
  return parse_rows(result.out);
}

// Three nightly runs of two results each (three metrics a result, one with p50 and p99), the last
// run invalidated: what the view must show is the first two.
struct Ledger {
  std::vector<std::vector<Record>> batches;
  explicit Ledger(Store& store) {
    for (int i = 0; i < 3; ++i) {
      batches.push_back(fresh_batch("nightly", 2, "c0ffee" + std::to_string(i)));
      store.append(batches.back());
    }
    NoteRecord note = fresh_note(std::get<RunRecord>(batches[2][0]).header.id);
    note.kind = NoteKind::invalidate;
    note.bench.reset();
    store.append({note});
  }
};

// The dashboard's SQL as Grafana's PostgreSQL data source sends it: the time filter macro
// expanded to a range over the run times, and the variables to one value each.
std::string expand(std::string sql) {
  const auto replace = [&](const std::string& from, const std::string& to) {
    for (std::size_t at = sql.find(from); at != std::string::npos;
         at = sql.find(from, at + to.size())) {
      sql.replace(at, from.size(), to);
    }
  };
  replace("$__timeFilter(time)", "time BETWEEN '2000-01-01T00:00:00Z' AND '2100-01-01T00:00:00Z'");
  replace("$label", "'nightly'");
  replace("$bench", "'executors/sort'");
  replace("$metric", "latency");
  CHECK(sql.find('$') == std::string::npos);
  return sql;
}

struct DashboardQuery {
  std::string where;  // "panel NAME" or "variable NAME"
  std::string sql;
};

std::vector<DashboardQuery> dashboard_queries() {
  const char* source = std::getenv("BENCHLEDGER_SOURCE_DIR");
  REQUIRE(source != nullptr);
  const nlohmann::json dashboard =
      nlohmann::json::parse(read_file(std::string(source) + "/ci/grafana/benchledger.json"));
  std::vector<DashboardQuery> queries;
  for (const nlohmann::json& variable : dashboard.at("templating").at("list")) {
    queries.push_back({"variable " + variable.at("name").get<std::string>(),
                       variable.at("query").get<std::string>()});
  }
  for (const nlohmann::json& panel : dashboard.at("panels")) {
    for (const nlohmann::json& target : panel.at("targets")) {
      queries.push_back({"panel " + panel.at("title").get<std::string>(),
                         target.at("rawSql").get<std::string>()});
    }
  }
  return queries;
}

// What every store's view must answer for the ledger above, through `query`.
void check_view(const Ledger& ledger, const std::function<Rows(const std::string&)>& query,
                const std::string& params_executor) {
  // Two runs × two results × three metrics; the invalidated run is left out.
  CHECK(query("SELECT count(*) FROM benchledger_results") == Rows{{"12"}});
  const auto& run = std::get<RunRecord>(ledger.batches[0][0]);
  const auto& result = std::get<ResultRecord>(ledger.batches[0][1]);
  const Rows rows =
      query("SELECT time, run, label, git_commit, host, fingerprint, bench, " + params_executor +
            ", unit, better, centre, p50, p95, p99, samples FROM benchledger_results WHERE "
            "result = '" +
            result.header.id + "' AND metric = 'latency'");
  REQUIRE(rows.size() == 1);
  const std::vector<std::string>& row = rows[0];
  REQUIRE(row.size() == 15);
  CHECK(row[1] == run.header.id);
  CHECK(row[2] == "nightly");
  CHECK(row[3] == *run.git.commit);
  CHECK(row[4] == *run.env.host);
  CHECK(row[5] == run.env.fingerprint);
  CHECK(row[6] == result.bench);
  CHECK(row[7] == "pool");
  CHECK(row[8] == "ns");
  CHECK(row[9] == "lower");
  const Metric& latency = result.metrics.at("latency");
  CHECK(std::stod(row[10]) == latency.value);
  CHECK(std::stod(row[11]) == *latency.summary.p50);
  CHECK(row[12].empty());  // no p95 recorded: NULL
  CHECK(std::stod(row[13]) == *latency.summary.p99);
  CHECK(std::stoll(row[14]) == latency.summary.n);
  // One primary metric per result.
  CHECK(query("SELECT count(*) FROM benchledger_results WHERE is_primary AND metric = 'time'") ==
        Rows{{"4"}});
}

void check_dashboard(const std::function<Rows(const std::string&)>& query) {
  const std::vector<DashboardQuery> queries = dashboard_queries();
  REQUIRE(queries.size() >= 7);
  for (const DashboardQuery& q : queries) {
    INFO(q.where);
    const Rows rows = query(expand(q.sql));
    CHECK_FALSE(rows.empty());
    if (q.where == "panel $metric by case") {
      // Each latency of the two valid runs' results, oldest first.
      REQUIRE(rows.size() == 4);
      for (const auto& row : rows) CHECK(std::stod(row.at(1)) == 950);
      CHECK(rows[0][0] <= rows[3][0]);
    }
    if (q.where == "variable metric") {
      CHECK(rows == Rows{{"latency"}, {"throughput"}, {"time"}});
    }
    if (q.where == "variable label") CHECK(rows == Rows{{"nightly"}});
  }
}

}  // namespace

TEST_CASE("a SQLite ledger has the results view, and the dashboard's queries run on it") {
  ScratchDir dir;
  const std::string db = (dir / "ledger.db").string();
  const auto store = open_store("sqlite:" + db);
  const Ledger ledger(*store);
  const auto query = [&](const std::string& sql) { return query_sqlite(db, sql); };
  check_view(ledger, query, "json_extract(params, '$.executor')");
  check_dashboard(query);
  CHECK(run_ledger({"verify", "--ledger", "sqlite:" + db}).exit_code == 0);
}

TEST_CASE("a PostgreSQL ledger has the results view, and the dashboard's queries run on it") {
  ScratchDir dir;
  const std::string uri = dir.pg_uri();
  const auto store = open_store(uri);
  const Ledger ledger(*store);
  const auto query = [&](const std::string& sql) { return query_postgres(uri, sql); };
  check_view(ledger, query, "params ->> 'executor'");
  check_dashboard(query);
  // The view's time is what casting the points' text gives, for every row.
  CHECK(query("SELECT count(*), count(*) FILTER (WHERE v.time IS DISTINCT FROM "
              "p.time::timestamptz) FROM benchledger_results v JOIN benchledger_points p ON "
              "p.result = v.result AND p.metric = v.metric") == Rows{{"12", "0"}});
  // Every query of the dashboard can find its points through the index of labels and times (a
  // view whose time the index cannot hold reads every point), whatever the table's size.
  for (const DashboardQuery& q : dashboard_queries()) {
    INFO(q.where);
    const Rows plan = query("SET enable_seqscan = off; EXPLAIN " + expand(q.sql));
    std::string text;
    for (const auto& row : plan) text += row.at(0) + "\n";
    INFO(text);
    CHECK(text.find("benchledger_points_by_label") != std::string::npos);
    CHECK(text.find("Seq Scan on benchledger_points") == std::string::npos);
  }
  CHECK(run_ledger({"verify", "--ledger", uri}).exit_code == 0);
}

TEST_CASE("verify refuses a SQLite ledger whose view was dropped or changed") {
  ScratchDir dir;
  const auto fresh = [&](const std::string& name) {
    const std::string db = (dir / name).string();
    const auto store = open_store("sqlite:" + db);
    store->append(fresh_batch("nightly", 2));
    REQUIRE(run_ledger({"verify", "--ledger", "sqlite:" + db}).exit_code == 0);
    return db;
  };
  const std::string dropped = fresh("dropped.db");
  query_sqlite(dropped, "DROP VIEW benchledger_results");
  ProcessResult result = run_ledger({"verify", "--ledger", "sqlite:" + dropped});
  INFO(result.err);
  CHECK(result.exit_code == 1);
  CHECK_THAT(result.err, Catch::Contains("its view benchledger_results is missing"));

  // A view that shows other numbers would mislead every dashboard that reads it.
  const std::string changed = fresh("changed.db");
  query_sqlite(changed,
               "DROP VIEW benchledger_results; CREATE VIEW benchledger_results AS SELECT time, "
               "2 * 1 AS centre FROM records");
  result = run_ledger({"verify", "--ledger", "sqlite:" + changed});
  INFO(result.err);
  CHECK(result.exit_code == 1);
  CHECK_THAT(result.err,
             Catch::Contains("its view benchledger_results is not the one benchledger creates"));
}

TEST_CASE(
    "a SQLite ledger made before the view verifies, and gets the view and the points with its next "
    "append") {
  ScratchDir dir;
  const std::string db = (dir / "old.db").string();
  const std::string uri = "sqlite:" + db;
  open_store(uri)->append(fresh_batch("nightly", 2));
  // As the first version left it: schema version 1, no view and no table of points.
  query_sqlite(db, "DROP VIEW benchledger_results; DROP TABLE points; PRAGMA user_version = 1");
  CHECK(run_ledger({"verify", "--ledger", uri}).exit_code == 0);
  CHECK(query_sqlite(db, "SELECT count(*) FROM sqlite_master WHERE type = 'view'") == Rows{{"0"}});

  open_store(uri)->append(fresh_batch("nightly", 1));
  CHECK(query_sqlite(db, "PRAGMA user_version") == Rows{{"3"}});
  CHECK(query_sqlite(db, "SELECT count(*) FROM points WHERE metric = 'time'") == Rows{{"3"}});
  CHECK(query_sqlite(db, "SELECT count(*) FROM benchledger_results WHERE metric = 'time'") ==
        Rows{{"3"}});
  CHECK(run_ledger({"verify", "--ledger", uri}).exit_code == 0);
}

TEST_CASE("an append-only CI role may read the PostgreSQL view and not change it") {
  ScratchDir dir;
  const std::string uri = dir.pg_uri();
  open_store(uri)->append(fresh_batch("nightly", 2));
  const std::string role = "ci_views_" + dir.suffix();
  struct DropRole {
    std::string name;
    ~DropRole() { run_pg_admin_sql("DROP ROLE IF EXISTS \"" + name + "\""); }
  } drop_role{role};
  const ProcessResult grant = run_ledger({"grant", role, "--ledger", uri});
  INFO(grant.err);
  REQUIRE(grant.exit_code == 0);
  const std::string ci = "postgresql://" + role + "@" + uri.substr(uri.find('@') + 1);
  CHECK(query_postgres(ci, "SELECT count(*) FROM benchledger_results WHERE metric = 'time'") ==
        Rows{{"2"}});
  for (const std::string sql : {"DROP VIEW benchledger_results",
                                "CREATE OR REPLACE VIEW benchledger_results AS SELECT 1 AS x"}) {
    INFO(sql);
    const ProcessResult result =
        run_process({"/usr/bin/psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", ci, "-c", sql});
    CHECK(result.exit_code != 0);
    CHECK_THAT(result.err,
               Catch::Contains("must be owner") || Catch::Contains("permission denied"));
  }
  // Appending as the role works and shows through the view.
  open_store(ci)->append(fresh_batch("nightly", 1));
  CHECK(query_postgres(ci, "SELECT count(*) FROM benchledger_results WHERE metric = 'time'") ==
        Rows{{"3"}});
}

TEST_CASE("a PostgreSQL ledger made before the view gets it from its owner's next append") {
  ScratchDir dir;
  const std::string uri = dir.pg_uri();
  open_store(uri)->append(fresh_batch("nightly", 2));
  // As the previous version left it: the table alone.
  query_postgres(uri, "DROP VIEW benchledger_results");
  CHECK(query_postgres(uri, "SELECT to_regclass('benchledger_results') IS NULL") == Rows{{"t"}});
  open_store(uri)->append(fresh_batch("nightly", 1));
  CHECK(query_postgres(uri, "SELECT count(*) FROM benchledger_results WHERE metric = 'time'") ==
        Rows{{"3"}});
  CHECK(run_ledger({"verify", "--ledger", uri}).exit_code == 0);
}
