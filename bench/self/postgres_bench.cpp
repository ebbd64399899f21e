// What the PostgreSQL store costs, each figure next to a baseline measured in the same run on
// the same server:
//   - appending 1,000-record batches (a run and 999 results), against the same bytes sent as
//     plain multi-row INSERTs into a table with no index, trigger or lock, one transaction a
//     batch (what any client pays to make those bytes durable on that server), and against
//     appends with the trigger that derives the points switched off (what the points cost);
//   - finding one run and reading its 999 results in a 1,000,000-record ledger (by label, and
//     `latest`), against the SQLite figures of ledger_bench;
//   - `history` of one case out of history_bench's 100,000 runs, from the table of points,
//     against the same read from the records (with samples, as `history` read before the points
//     and `detect` reads now).
// BENCHLEDGER_BENCH_PG names the server's maintenance database (tools/self-bench starts a
// throwaway server with fsync on); each benchmark makes a database of its own there. Without
// it the program says so and exits 2.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <pqxx/pqxx>

#include <benchledger/ledger.hpp>

#include "find_and_read.hpp"
#include "hundred_thousand_runs.hpp"
#include "ledger/chain.hpp"
#include "postgres_bench_main.hpp"
#include "unit/ledger/ledger_support.hpp"

namespace {

namespace bl = benchledger;
using bl::testing::fresh_batch;

constexpr int k_batch_records = 1000;
constexpr int k_million_runs = 1000;  // x (1 run + 999 results) = 1,000,000 records

using bl::self_bench::fresh_database;

// Appends a fresh 1,000-record batch to `store` an iteration.
void append_batches(benchmark::State& state, bl::ledger::Store& store) {
  std::vector<bl::Record> batch;
  for (auto _ : state) {
    state.PauseTiming();
    batch = fresh_batch("bench", k_batch_records - 1);
    state.ResumeTiming();
    store.append(batch);
  }
  state.counters["records/s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * k_batch_records), benchmark::Counter::kIsRate);
}

void BM_PostgresAppendBatch1000(benchmark::State& state) {
  append_batches(state, *bl::ledger::open_store(fresh_database("bl_bench_append")));
}
BENCHMARK(BM_PostgresAppendBatch1000)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same with the trigger of appends switched off: the records' insert into their table and
// indexes alone, without the database's check of each record and its points (a scratch ledger:
// one left so would fail verify).
void BM_PostgresAppendBatch1000WithoutTrigger(benchmark::State& state) {
  const std::string uri = fresh_database("bl_bench_append_without_trigger");
  const auto store = bl::ledger::open_store(uri);
  store->append(fresh_batch("bench", 1));  // the table, made by the store
  {
    pqxx::connection connection(uri);
    pqxx::nontransaction(connection)
        .exec("ALTER TABLE benchledger_records DISABLE TRIGGER benchledger_append_on");
  }
  append_batches(state, *store);
}
BENCHMARK(BM_PostgresAppendBatch1000WithoutTrigger)->Unit(benchmark::kMillisecond)->UseRealTime();

// The floor: one batch's canonical bytes as plain INSERTs, quoted once before timing.
void BM_PostgresRawInsertBatch1000(benchmark::State& state) {
  pqxx::connection connection(fresh_database("bl_bench_raw"));
  {
    pqxx::work txn(connection);
    txn.exec("CREATE TABLE raw (seq bigint, bytes text)");
    txn.commit();
  }
  const std::vector<std::string> statements = bl::self_bench::raw_inserts(
      connection, bl::ledger::serialize_batch(fresh_batch("bench", k_batch_records - 1)));
  for (auto _ : state) {
    pqxx::work txn(connection);
    for (const std::string& sql : statements) txn.exec(sql);
    txn.commit();
  }
  state.counters["records/s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * k_batch_records), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PostgresRawInsertBatch1000)->Unit(benchmark::kMillisecond)->UseRealTime();

// The 1,000,000-record ledger, built once a run: runs labelled run-0000 ... run-0999.
const std::string& million() {
  static const std::string uri = [] {
    const std::string made = fresh_database("bl_bench_million");
    std::fprintf(stderr, "building a 1,000,000-record PostgreSQL ledger ...\n");
    const auto store = bl::ledger::open_store(made);
    for (int run = 0; run < k_million_runs; ++run) {
      char label[16];
      std::snprintf(label, sizeof label, "run-%04d", run);
      store->append(fresh_batch(label, k_batch_records - 1));
    }
    pqxx::connection connection(made);
    pqxx::nontransaction(connection).exec("VACUUM ANALYZE benchledger_records");
    return made;
  }();
  return uri;
}

void BM_PostgresFindRunByLabel1M(benchmark::State& state) {
  bl::self_bench::find_and_read(state, million(), "run-0500", k_batch_records - 1);
}
BENCHMARK(BM_PostgresFindRunByLabel1M)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_PostgresFindLatestRun1M(benchmark::State& state) {
  bl::self_bench::find_and_read(state, million(), "latest", k_batch_records - 1);
}
BENCHMARK(BM_PostgresFindLatestRun1M)->Unit(benchmark::kMillisecond)->UseRealTime();

// history_bench's 600,000-record ledger, built once a run (a few minutes: the database derives
// each result's points as the import appends it).
const std::string& hundred_thousand_runs() {
  static const std::string uri = [] {
    const std::string made = fresh_database("bl_bench_history");
    std::fprintf(stderr, "building a 600,000-record PostgreSQL ledger ...\n");
    bl::ledger::open_store(made)->import(bl::self_bench::HundredThousandRuns());
    pqxx::connection connection(made);
    pqxx::nontransaction(connection).exec("VACUUM ANALYZE benchledger_records, benchledger_points");
    return made;
  }();
  return uri;
}

void BM_PostgresHistoryOneCase100k(benchmark::State& state) {
  bl::self_bench::history(state, hundred_thousand_runs(), {"sort/uniform"});
}
BENCHMARK(BM_PostgresHistoryOneCase100k)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_PostgresHistoryOneCase100kRecords(benchmark::State& state) {
  bl::self_bench::history(state, hundred_thousand_runs(), {"sort/uniform"}, true);
}
BENCHMARK(BM_PostgresHistoryOneCase100kRecords)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  return benchledger::self_bench::postgres_bench_main("postgres_bench", argc, argv);
}
