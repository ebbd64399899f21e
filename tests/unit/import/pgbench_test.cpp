// The pgbench importer reads pgbench 15's real output (summary, --progress, --report-per-command,
// -l logs) into results and refuses a bad file whole, naming its line.
//
// The fixtures in tests/unit/import/pgbench/ were captured from Debian's pgbench 15.18 against
// a tools/pg-local server initialised with `pgbench -i -s 1`:
//   pgbench -c 4 -j 2 -T 4 -P 1 -r -l --log-prefix=pgbench_log DSN > out 2> err
//   (tpcb_output.txt is err then out; pgbench_log.8595 and pgbench_log.8595.1 the -l logs)
//   pgbench -c 2 -j 1 -t 200 -S -M prepared --max-tries=2 DSN > select_only_retries.txt
#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <benchledger/error.hpp>

#include "import/pgbench.hpp"
#include "unit/ledger/ledger_support.hpp"

using namespace benchledger;
using benchledger::testing::ScratchDir;
using benchledger::testing::write_file;
using Catch::Matchers::Contains;
using std::string;
using std::vector;

namespace {

std::filesystem::path fixture(const string& name) {
  return std::filesystem::path(BENCHLEDGER_PGBENCH_FIXTURES) / name;
}

}  // namespace

TEST_CASE("pgbench's summary, progress lines, statements and -l logs make one run's results") {
  const import::ImportedResults imported = import::import_pgbench(
      {fixture("pgbench_log.8595"), fixture("tpcb_output.txt"), fixture("pgbench_log.8595.1")});
  REQUIRE(imported.results.size() == 1 + 11);
  const ResultRecord& r = imported.results[0];
  CHECK(r.bench == "pgbench/tpcb-like");
  CHECK(r.params == Params{{"clients", std::int64_t{4}},
                           {"jobs", std::int64_t{2}},
                           {"scale", std::int64_t{1}},
                           {"query_mode", string("simple")}});
  CHECK(r.primary == "tps");
  CHECK(r.ops == 1028);
  CHECK(r.errors == 0);
  const Metric& tps = r.metrics.at("tps");
  CHECK(tps.unit == "ops/s");
  CHECK(tps.better == Better::higher);
  CHECK(tps.value == 255.278719);  // the summary's, without the initial connection time
  CHECK(*tps.samples == vector<double>{540.2, 93.4, 196.0, 182.3});
  const Metric& latency = r.metrics.at("latency");
  CHECK(latency.unit == "ms");
  CHECK(latency.value == 15.375);
  CHECK(latency.summary.mean == 15.375);
  CHECK(latency.summary.stddev == 29.962);
  CHECK(*latency.samples == vector<double>{7.193, 41.484, 20.306, 21.028});
  // From the 1,028 lines of the two -l logs; numpy.percentile (linear, its default) is the
  // oracle: numpy.percentile(times_us / 1000, [50, 90, 95, 99, 99.9]).
  CHECK(latency.summary.n == 1028);
  CHECK(latency.summary.min == Approx(0.001));
  CHECK(latency.summary.max == Approx(345.202));
  CHECK(*latency.summary.p50 == Approx(4.754));
  CHECK(*latency.summary.p90 == Approx(43.8389));
  CHECK(*latency.summary.p95 == Approx(70.2785));
  CHECK(*latency.summary.p99 == Approx(145.74649));
  CHECK(*latency.summary.p999 == Approx(289.6699));
  CHECK(r.metrics.at("connection_time").value == 19.068);
  CHECK(r.metrics.count("retried") == 0);  // pgbench did not retry (maximum number of tries: 1)
  CHECK(imported.warnings.empty());

  const ResultRecord& update = imported.results[6];  // the run, then statements 1 …
  CHECK(update.bench == "pgbench/tpcb-like/statement");
  CHECK(update.params.at("statement") == ParamValue(std::int64_t{6}));
  CHECK(update.params.at("command") ==
        ParamValue(string("UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = "
                          ":aid;")));
  CHECK(update.params.at("clients") == ParamValue(std::int64_t{4}));
  CHECK(update.metrics.at("latency").value == 1.216);
  CHECK(update.primary == "latency");
  CHECK(update.errors == 0);
  CHECK(imported.results[1].params.at("command") ==
        ParamValue(string("\\set aid random(1, 100000 * :scale)")));
}

TEST_CASE("a pgbench run with --max-tries records its retries and its transactions") {
  const import::ImportedResults imported =
      import::import_pgbench({fixture("select_only_retries.txt")});
  REQUIRE(imported.results.size() == 1);
  const ResultRecord& r = imported.results[0];
  CHECK(r.bench == "pgbench/select-only");
  CHECK(r.params.at("query_mode") == ParamValue(string("prepared")));
  CHECK(r.ops == 400);  // "400/400"
  CHECK(r.metrics.at("tps").value == 2492.879712);
  CHECK(!r.metrics.at("tps").samples);  // no --progress: a single value
  CHECK(r.metrics.at("latency").value == 0.802);
  CHECK(!r.metrics.at("latency").summary.p99);  // no -l logs: no percentiles
  CHECK(r.metrics.at("retried").value == 0);
  CHECK(r.metrics.at("retries").value == 0);
}

TEST_CASE("a bad pgbench file is refused with its line named") {
  ScratchDir dir;
  const auto refusal = [&](const string& name, const string& text) {
    const auto path = dir.path() / name;
    write_file(path, text);
    try {
      import::import_pgbench({path});
    } catch (const Error& e) {
      return string(e.what());
    }
    return string();
  };
  const string header = "transaction type: <builtin: TPC-B (sort of)>\nscaling factor: 1\n";
  CHECK_THAT(refusal("a.txt", header + "tps = fast (without initial connection time)\n"),
             Contains("a.txt: line 3: tps: \"fast\" is not a number"));
  CHECK_THAT(refusal("b.txt", header + "progress: 1.0 s, lots of tps\n"),
             Contains("b.txt: line 3: a progress line pgbench does not write"));
  CHECK_THAT(refusal("c.txt", header + "hello world\n"),
             Contains("c.txt: line 3: not a line pgbench writes: \"hello world\""));
  CHECK_THAT(refusal("d.txt", header + "number of clients: four\n"),
             Contains("d.txt: line 3: number of clients: expected a count"));
  CHECK_THAT(refusal("e.log", "0 1 10223 0 1795513606 29227\n0 2 oops\n"),
             Contains("e.log: line 2: not a line of pgbench's -l log: \"0 2 oops\""));
  CHECK_THAT(refusal("g.log", "0 1 10223 0 1795513606 29227\n0 2 " + string(400, '9') +
                                 " 0 1795513606 29227\n"),
             Contains("g.log: line 2: transaction time: \"999"));
  CHECK_THAT(refusal("f.txt", header),
             Contains("f.txt: no pgbench summary (tps = …) or --progress line"));
}
