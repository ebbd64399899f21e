// What the postgres suite adds to a query: its pooled SELECT 1 (borrow a warmed connection,
// a libpqxx nontransaction running the prepared statement, give the connection back) against
// raw libpq's PQexecPrepared of the same statement on one warmed connection, in the same run on
// the same server. The target (docs/postgres.md) is a ratio of at most 1.2. Both run one
// client: the pool's lock is uncontended, as for each worker of a case that does not wait.
// BENCHLEDGER_BENCH_PG names the server (tools/self-bench starts one); without it the program
// says so and exits 2.
#include <libpq-fe.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include <benchmark/benchmark.h>

#include "postgres_bench_main.hpp"

#include "suites/postgres_pool.hpp"

namespace {

std::string server() {
  return benchledger::self_bench::postgres_server();
}

void BM_Select1Libpq(benchmark::State& state) {
  PGconn* connection = PQconnectdb(server().c_str());
  if (PQstatus(connection) != CONNECTION_OK) {
    state.SkipWithError(PQerrorMessage(connection));
    PQfinish(connection);
    return;
  }
  PQclear(PQprepare(connection, "select1", "SELECT 1", 0, nullptr));
  PQclear(PQexecPrepared(connection, "select1", 0, nullptr, nullptr, nullptr, 0));  // warm
  for (auto _ : state) {
    PGresult* result = PQexecPrepared(connection, "select1", 0, nullptr, nullptr, nullptr, 0);
    if (PQresultStatus(result) != PGRES_TUPLES_OK)
      state.SkipWithError(PQresultErrorMessage(result));
    benchmark::DoNotOptimize(PQgetvalue(result, 0, 0));
    PQclear(result);
  }
  PQfinish(connection);
}
BENCHMARK(BM_Select1Libpq)->UseRealTime();

void BM_Select1Suite(benchmark::State& state) {
  namespace pg = benchledger::suites::postgres;
  pg::Pool pool(server(), "", 11);  // the suite's pool for one client: min(1 + 10, 100)
  pool.warm(1);
  for (auto _ : state) pg::select1(pool);
}
BENCHMARK(BM_Select1Suite)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  return benchledger::self_bench::postgres_bench_main("postgres_suite_bench", argc, argv);
}
