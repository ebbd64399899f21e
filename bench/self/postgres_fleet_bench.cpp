// A fleet appending to one PostgreSQL ledger: 1, 8, 32 and 64 appender processes, each with its
// own connection, append runs of 100 and of 1,000 results at once, as CI runners sharing a ledger
// do. Each benchmark is one burst: every appender connects and makes its batches, then all start
// together and each appends k_runs runs one after another. Counters:
//   - runs/min: runs appended a minute by the whole fleet;
//   - p50_ms, p99_ms, max_ms: one append's time, over every appender's appends (most of it is
//     the wait for the ledger's lock once more than one appender runs);
//   - failed: appends that threw (a lock_timeout among them): must be 0;
//   - appender_max_rss_mib: the largest appender process's peak resident set (wait4), its
//     batches and connection included.
// BM_FleetRawInsert is the floor: the same records' canonical bytes sent by a bare client as
// multi-row INSERTs into a table with no index or trigger, one transaction a run, under the same
// transaction-scoped advisory lock the store takes. docs/postgres.md, "A fleet", compares the two.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <pqxx/pqxx>

#include <benchledger/ledger.hpp>

#include "ledger/chain.hpp"
#include "ledger/postgres/postgres_schema.hpp"
#include "postgres_bench_main.hpp"
#include "unit/ledger/ledger_support.hpp"

namespace {

namespace bl = benchledger;
using Clock = std::chrono::steady_clock;

constexpr int k_runs = 3;  // runs each appender appends

using bl::self_bench::fresh_database;

// One appender: connects and makes its batches, calls `ready` (which returns when the burst
// starts), then appends them; returns each append's time in ns, or -1 for one that threw.
using Appender = std::vector<double> (*)(const std::string& uri, int results,
                                         const std::function<void()>& ready);

std::vector<double> append_through_store(const std::string& uri, int results,
                                         const std::function<void()>& ready) {
  const auto store = bl::ledger::open_store(uri);
  std::vector<std::vector<bl::Record>> batches;
  for (int i = 0; i < k_runs; ++i) batches.push_back(bl::testing::fresh_batch("fleet", results));
  ready();
  std::vector<double> times;
  for (const auto& batch : batches) {
    const auto start = Clock::now();
    try {
      store->append(batch);
      times.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "append failed: %s\n", e.what());
      times.push_back(-1);
    }
  }
  return times;
}

std::vector<double> insert_under_lock(const std::string& uri, int results,
                                      const std::function<void()>& ready) {
  pqxx::connection connection(uri);
  std::vector<std::vector<std::string>> runs;
  for (int i = 0; i < k_runs; ++i) {
    runs.push_back(bl::self_bench::raw_inserts(
        connection, bl::ledger::serialize_batch(bl::testing::fresh_batch("fleet", results))));
  }
  ready();
  std::vector<double> times;
  for (const auto& statements : runs) {
    const auto start = Clock::now();
    try {
      pqxx::work txn(connection);
      txn.exec(std::string("SELECT pg_advisory_xact_lock(") + bl::ledger::postgres::k_lock_key +
               ")");
      for (const std::string& sql : statements) txn.exec(sql);
      txn.commit();
      times.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "insert failed: %s\n", e.what());
      times.push_back(-1);
    }
  }
  return times;
}

double percentile(std::vector<double> sorted, double p) {
  if (sorted.empty()) return 0;
  std::sort(sorted.begin(), sorted.end());
  const auto at = static_cast<std::size_t>(p * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[at];
}

// Forks `appenders` processes that get ready (connect, make their batches), waits until all are,
// starts them at once and times the burst; each child writes its times to a file of its own.
void burst(benchmark::State& state, const std::string& uri, Appender appender) {
  const int appenders = static_cast<int>(state.range(0));
  const int results = static_cast<int>(state.range(1));
  int ready[2], go[2];
  if (pipe(ready) != 0 || pipe(go) != 0) state.SkipWithError("pipe failed");
  char scratch[] = "/tmp/benchledger-fleet.XXXXXX";
  if (mkdtemp(scratch) == nullptr) state.SkipWithError("mkdtemp failed");
  std::vector<pid_t> children;
  for (int a = 0; a < appenders; ++a) {
    const pid_t pid = fork();
    if (pid == 0) {
      close(ready[0]);
      close(go[1]);
      try {
        const std::vector<double> times = appender(uri, results, [&] {
          char byte = 0;
          if (write(ready[1], &byte, 1) != 1) _exit(3);
          close(ready[1]);  // so that the parent sees EOF, not a hang, if another one dies
          if (read(go[0], &byte, 1) != 0) _exit(3);  // EOF: the parent closed `go`, all start
        });
        std::ofstream out(std::string(scratch) + "/" + std::to_string(a));
        for (double t : times) out << t << '\n';
        out.close();
        _exit(out ? 0 : 4);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "appender %d: %s\n", a, e.what());
        _exit(5);
      }
    }
    children.push_back(pid);
  }
  close(ready[1]);
  close(go[0]);
  for (int a = 0; a < appenders; ++a) {
    char byte;
    if (read(ready[0], &byte, 1) != 1) state.SkipWithError("an appender did not get ready");
  }
  const auto start = Clock::now();
  close(go[1]);
  int failed_children = 0;
  long max_rss_kib = 0;  // the largest appender's peak resident set
  for (pid_t pid : children) {
    int status = 0;
    rusage usage{};
    wait4(pid, &status, 0, &usage);
    max_rss_kib = std::max(max_rss_kib, usage.ru_maxrss);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed_children;
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  close(ready[0]);
  std::vector<double> times;
  int failed = failed_children;
  for (int a = 0; a < appenders; ++a) {
    std::ifstream in(std::string(scratch) + "/" + std::to_string(a));
    for (double t; in >> t;) {
      if (t < 0) {
        ++failed;
      } else {
        times.push_back(t / 1e6);
      }
    }
  }
  std::filesystem::remove_all(scratch);
  state.SetIterationTime(seconds);
  state.counters["runs/min"] = static_cast<double>(appenders * k_runs) / seconds * 60;
  state.counters["p50_ms"] = percentile(times, 0.5);
  state.counters["p99_ms"] = percentile(times, 0.99);
  state.counters["max_ms"] = times.empty() ? 0 : *std::max_element(times.begin(), times.end());
  state.counters["failed"] = failed;
  state.counters["appender_max_rss_mib"] = static_cast<double>(max_rss_kib) / 1024;
}

void BM_FleetAppend(benchmark::State& state) {
  const std::string uri = fresh_database("bl_bench_fleet");
  bl::ledger::open_store(uri);  // the schema made once, before the appenders race for it
  for (auto _ : state) burst(state, uri, append_through_store);
}

void BM_FleetRawInsert(benchmark::State& state) {
  const std::string uri = fresh_database("bl_bench_fleet_raw");
  {
    pqxx::connection connection(uri);
    pqxx::work txn(connection);
    txn.exec("CREATE TABLE raw (seq bigint, bytes text)");
    txn.commit();
  }
  for (auto _ : state) burst(state, uri, insert_under_lock);
}

void fleet_sizes(benchmark::internal::Benchmark* b) {
  for (int results : {100, 1000}) {
    for (int appenders : {1, 8, 32, 64}) b->Args({appenders, results});
  }
  b->ArgNames({"appenders", "results"})
      ->Iterations(1)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}
BENCHMARK(BM_FleetAppend)->Apply(fleet_sizes);
BENCHMARK(BM_FleetRawInsert)->Apply(fleet_sizes);

}  // namespace

int main(int argc, char** argv) {
  return benchledger::self_bench::postgres_bench_main("postgres_fleet_bench", argc, argv);
}
