// A case's trends are the series of its primary metric that `benchledger history` follows, one
// per unit, over the last N runs of a real NDJSON or SQLite ledger that measured it, up to the
// reported run, without invalidated runs.
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include <benchledger/ledger.hpp>
#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "report/report.hpp"
#include "support/scratch_dir.hpp"

using namespace benchledger;
using namespace benchledger::report;

namespace {

struct Ledger {
  test_support::ScratchDir dir;
  std::unique_ptr<ledger::Store> store;
  Ledger(const std::vector<RunData>& runs, const std::string& file) {
    const std::string path = (dir / file).string();
    store = ledger::open_store(file.ends_with(".db") ? "sqlite:" + path : path);
    for (const RunData& data : runs) append(data);
  }
  void append(const RunData& data) {
    std::vector<Record> batch{data.run};
    for (const ResultRecord& r : data.results) batch.emplace_back(r);
    store->append(std::move(batch));
  }
};

const Trend& trend_of(const std::vector<Trend>& trends, const std::string& bench,
                      const std::string& params) {
  for (const Trend& t : trends) {
    if (t.series.bench == bench && case_key("", t.series.params) == params) return t;
  }
  FAIL("no trend for " << bench << " " << params);
  throw std::logic_error("unreachable");
}

std::vector<std::string> run_ids(const ledger::Series& series) {
  std::vector<std::string> ids;
  for (const ledger::SeriesPoint& p : series.points) ids.push_back(p.run_id);
  return ids;
}
std::vector<std::string> run_ids(const Trend& trend) {
  return run_ids(trend.series);
}

}  // namespace

TEST_CASE("a trend holds the last N runs that measured the case, oldest first, ending at the run") {
  const std::vector<RunData> history = fixtures::history_before(fixtures::current_run(), 10);
  const std::string file = GENERATE(as<std::string>{}, "ledger.ndjson", "ledger.db");
  Ledger ledger(history, file);
  const std::vector<Trend> trends = collect_trends(*ledger.store, {history.back()}, 4);
  REQUIRE(trends.size() == history.back().results.size());
  const Trend& t = trend_of(trends, "postgres/tpcb", R"({"clients":20,"scale":1})");
  CHECK(t.series.metric == "throughput");
  CHECK(t.series.unit == "ops/s");
  CHECK(t.series.better == Better::higher);
  CHECK(run_ids(t) == std::vector<std::string>{history[7].run.header.id, history[8].run.header.id,
                                               history[9].run.header.id,
                                               history[10].run.header.id});
  // Values are the metric's point estimate and its sample range in that run.
  const ResultRecord& r8 = *std::find_if(
      history[8].results.begin(), history[8].results.end(), [](const ResultRecord& r) {
        return r.bench == "postgres/tpcb" && to_string(r.params.at("clients")) == "20";
      });
  const Metric& m = r8.metrics.at("throughput");
  CHECK(t.series.points[1].centre == m.value);
  CHECK(t.series.points[1].min == m.summary.min);
  CHECK(t.series.points[1].max == m.summary.max);
  CHECK(t.series.points[1].time == history[8].run.header.time);
}

TEST_CASE("runs appended after the reported run are not part of its history") {
  const std::vector<RunData> history = fixtures::history_before(fixtures::current_run(), 6);
  const std::string file = GENERATE(as<std::string>{}, "ledger.ndjson", "ledger.db");
  Ledger ledger(history, file);
  const std::vector<Trend> trends = collect_trends(*ledger.store, {history[3]}, 20);
  const Trend& t =
      trend_of(trends, "executors/mixed", R"({"concurrency":50,"executor":"bounded_pool"})");
  CHECK(run_ids(t) == std::vector<std::string>{history[0].run.header.id, history[1].run.header.id,
                                               history[2].run.header.id, history[3].run.header.id});
}

TEST_CASE("invalidated runs and results are left out of trends") {
  const std::vector<RunData> history = fixtures::history_before(fixtures::current_run(), 4);
  const std::string file = GENERATE(as<std::string>{}, "ledger.ndjson", "ledger.db");
  Ledger ledger(history, file);
  NoteRecord whole;
  whole.header = {
      "01JD9000000000000000000001", "2026-11-22T05:00:00.000000Z", std::string(k_zero_hash), {}};
  whole.target = history[1].run.header.id;
  whole.kind = NoteKind::invalidate;
  whole.text = "thermal throttling";
  whole.author = "ci";
  NoteRecord one = whole;
  one.header.id = "01JD9000000000000000000002";
  one.target = history[2].run.header.id;
  one.bench = "pipeline/fetch_store";
  ledger.store->append({whole, one});
  const std::vector<Trend> trends = collect_trends(*ledger.store, {history.back()}, 20);
  const Trend& pipeline = trend_of(trends, "pipeline/fetch_store",
                                   R"({"latency_ms":20,"mode":"pipelined","pages":10})");
  CHECK(run_ids(pipeline) == std::vector<std::string>{history[0].run.header.id,
                                                      history[3].run.header.id,
                                                      history[4].run.header.id});
  const Trend& select = trend_of(trends, "postgres/select1", R"({"concurrency":10,"pool":"warm"})");
  CHECK(run_ids(select) ==
        std::vector<std::string>{history[0].run.header.id, history[2].run.header.id,
                                 history[3].run.header.id, history[4].run.header.id});
}

TEST_CASE("a reported run read from another file ends its cases' trends") {
  const std::vector<RunData> history = fixtures::history_before(fixtures::current_run(), 3);
  const std::string file = GENERATE(as<std::string>{}, "ledger.ndjson", "ledger.db");
  Ledger ledger({history[0], history[1], history[2]}, file);
  const RunData elsewhere = history[3];  // not in the ledger
  const std::vector<Trend> trends = collect_trends(*ledger.store, {elsewhere}, 20);
  const Trend& t =
      trend_of(trends, "executors/uniform", R"({"concurrency":50,"executor":"sequential"})");
  CHECK(run_ids(t) == std::vector<std::string>{history[0].run.header.id, history[1].run.header.id,
                                               history[2].run.header.id, elsewhere.run.header.id});
}

TEST_CASE(
    "a reported run older than a trend's last N runs is left out of it, not added at its end") {
  const std::vector<RunData> history = fixtures::history_before(fixtures::current_run(), 6);
  const std::string file = GENERATE(as<std::string>{}, "ledger.ndjson", "ledger.db");
  Ledger ledger(history, file);
  const std::vector<Trend> trends = collect_trends(*ledger.store, {history[0], history[6]}, 3);
  const Trend& t =
      trend_of(trends, "executors/mixed", R"({"concurrency":50,"executor":"bounded_pool"})");
  CHECK(run_ids(t) == std::vector<std::string>{history[4].run.header.id, history[5].run.header.id,
                                               history[6].run.header.id});
}

TEST_CASE("a case whose unit changed has a trend in each unit, the series that history follows") {
  // executors/mixed records its time in µs from the fourth run on.
  const std::vector<RunData> history = fixtures::unit_change_history();
  const std::string file = GENERATE(as<std::string>{}, "ledger.ndjson", "ledger.db");
  Ledger ledger(history, file);
  const std::vector<Trend> trends = collect_trends(*ledger.store, {history.back()}, 20);
  std::vector<const Trend*> mixed;
  for (const Trend& t : trends) {
    if (t.series.bench == "executors/mixed") mixed.push_back(&t);
  }
  REQUIRE(mixed.size() == 2);
  CHECK(mixed[0]->series.unit == "ns");
  CHECK(run_ids(*mixed[0]) == std::vector<std::string>{history[0].run.header.id,
                                                       history[1].run.header.id,
                                                       history[2].run.header.id});
  CHECK(mixed[1]->series.unit == "us");
  CHECK(run_ids(*mixed[1]) == std::vector<std::string>{history[3].run.header.id,
                                                       history[4].run.header.id,
                                                       history[5].run.header.id});
  // The same series, point for point, as `benchledger history` reads them.
  std::vector<const ledger::Series*> series;
  const std::vector<ledger::Series> all = ledger::collect_series(*ledger.store, {});
  for (const ledger::Series& s : all) {
    if (s.bench == "executors/mixed") series.push_back(&s);
  }
  REQUIRE(series.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(series[i]->unit == mixed[i]->series.unit);
    CHECK(run_ids(*series[i]) == run_ids(*mixed[i]));
  }
}
