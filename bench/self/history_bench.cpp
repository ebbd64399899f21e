// What `benchledger history CASE` costs on a long ledger (the target in docs/history.md, "Speed"):
// one case's series out of 100,000 runs of 5 cases each, read through collect_series as the CLI
// reads it, from SQLite's table of points (target: <= 50 ms) and, as baselines in the same run,
// from SQLite's records (with samples, as `detect` reads), from NDJSON (one streaming pass) and
// all 5 cases from SQLite (postgres_bench reads the same ledger from PostgreSQL).
// The 600,000-record ledgers are built once (a few minutes) and kept in
// $TMPDIR/benchledger-bench/ for later runs; delete that folder to rebuild them.
#include <filesystem>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <benchledger/ledger.hpp>

#include "hundred_thousand_runs.hpp"
#include "kept_ledgers.hpp"

namespace {

namespace bl = benchledger;
namespace fs = std::filesystem;

using bl::self_bench::HundredThousandRuns;

// The two ledgers, built once.
const fs::path& ledgers() {
  static const fs::path dir =
      bl::self_bench::kept_ledgers("history-100k-v2", [](const fs::path& building) {
        const HundredThousandRuns records;
        bl::ledger::open_store((building / "ledger.ndjson").string())->import(records);
        bl::ledger::open_store("sqlite:" + (building / "ledger.db").string())->import(records);
      });
  return dir;
}

// One `benchledger history [CASE]` call's reading of a file whose pages are in the cache.
void history(benchmark::State& state, const fs::path& file, const std::string& scheme,
             const std::vector<std::string>& cases, bool samples = false) {
  bl::self_bench::warm_page_cache(file);
  bl::self_bench::history(state, scheme + file.string(), cases, samples);
}

void BM_SqliteHistoryOneCase100k(benchmark::State& state) {
  history(state, ledgers() / "ledger.db", "sqlite:", {"sort/uniform"});
}
BENCHMARK(BM_SqliteHistoryOneCase100k)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same case with each point's samples, as `detect` reads it: from the records, not the points.
void BM_SqliteHistoryOneCase100kRecords(benchmark::State& state) {
  history(state, ledgers() / "ledger.db", "sqlite:", {"sort/uniform"}, true);
}
BENCHMARK(BM_SqliteHistoryOneCase100kRecords)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SqliteHistoryAllCases100k(benchmark::State& state) {
  history(state, ledgers() / "ledger.db", "sqlite:", {});
}
BENCHMARK(BM_SqliteHistoryAllCases100k)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_NdjsonHistoryOneCase100k(benchmark::State& state) {
  history(state, ledgers() / "ledger.ndjson", "", {"sort/uniform"});
}
BENCHMARK(BM_NdjsonHistoryOneCase100k)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
