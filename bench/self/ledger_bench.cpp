// What the ledger costs (the targets in docs/ledger.md, "Performance"), each measured next to its
// raw baseline in the same run:
//   - appending 1,000-record batches (a run and 999 results) to NDJSON and to SQLite, against a
//     raw write+fdatasync loop of the same bytes (target: NDJSON at >= 50% of the raw rate);
//   - finding one run and reading its 999 results in a 1,000,000-record ledger, against a raw
//     read of the whole NDJSON file (targets: <= 1 s from NDJSON, <= 50 ms from SQLite).
// The 1,000,000-record ledgers are built once (about a minute) and kept in
// $TMPDIR/benchledger-bench/ for later runs; delete that folder to rebuild them.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <benchledger/ledger.hpp>

#include "find_and_read.hpp"
#include "kept_ledgers.hpp"
#include "ledger/chain.hpp"
#include "unit/ledger/ledger_support.hpp"

namespace {

namespace bl = benchledger;
namespace fs = std::filesystem;
using bl::testing::fresh_batch;
using bl::testing::ScratchDir;

constexpr int k_batch_records = 1000;
constexpr int k_million_runs = 1000;  // x (1 run + 999 results) = 1,000,000 records

std::vector<bl::Record> batch_of_1000() {
  return fresh_batch("bench", k_batch_records - 1);
}

void append_benchmark(benchmark::State& state, const std::string& scheme) {
  const ScratchDir dir;
  const std::string path = (dir / "ledger").string();
  const auto store =
      bl::ledger::open_store(scheme == "sqlite" ? "sqlite:" + path + ".db" : path + ".ndjson");
  std::int64_t bytes = 0;
  std::vector<bl::Record> batch;
  for (auto _ : state) {
    state.PauseTiming();
    batch = batch_of_1000();  // fresh ids for every batch, the old one freed untimed
    state.ResumeTiming();
    store->append(batch);
  }
  if (scheme == "ndjson") bytes = static_cast<std::int64_t>(fs::file_size(path + ".ndjson"));
  state.counters["records/s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * k_batch_records), benchmark::Counter::kIsRate);
  if (bytes > 0) state.SetBytesProcessed(bytes);
}

void BM_NdjsonAppendBatch1000(benchmark::State& state) {
  append_benchmark(state, "ndjson");
}
BENCHMARK(BM_NdjsonAppendBatch1000)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SqliteAppendBatch1000(benchmark::State& state) {
  append_benchmark(state, "sqlite");
}
BENCHMARK(BM_SqliteAppendBatch1000)->Unit(benchmark::kMillisecond)->UseRealTime();

// The floor: the exact bytes of one such batch, one write() and one fdatasync() a batch.
void BM_RawWriteFdatasyncBatch1000(benchmark::State& state) {
  const ScratchDir dir;
  const auto sample = dir / "sample.ndjson";
  bl::ledger::open_store(sample.string())->append(batch_of_1000());
  const std::string bytes = bl::testing::read_file(sample);
  const auto path = dir / "raw.ndjson";
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    state.SkipWithError("cannot open the raw file");
    return;
  }
  for (auto _ : state) {
    if (::write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size()) ||
        ::fdatasync(fd) != 0) {
      state.SkipWithError("raw write failed");
      break;
    }
  }
  ::close(fd);
  state.counters["records/s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * k_batch_records), benchmark::Counter::kIsRate);
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(bytes.size()));
}
BENCHMARK(BM_RawWriteFdatasyncBatch1000)->Unit(benchmark::kMillisecond)->UseRealTime();

// Where an append's CPU time goes: checking and serializing 1,000 records.
void BM_SerializeBatch1000(benchmark::State& state) {
  const auto batch = batch_of_1000();
  for (auto _ : state) benchmark::DoNotOptimize(bl::ledger::serialize_batch(batch));
}
BENCHMARK(BM_SerializeBatch1000)->Unit(benchmark::kMillisecond);

// The hash chain's share of an append: SHA-256 of each record's bytes in order (each `prev`
// needs the hash before it, so this part cannot be spread over threads).
void BM_ChainBatch1000(benchmark::State& state) {
  const auto serialized = bl::ledger::serialize_batch(batch_of_1000());
  std::vector<bl::ledger::PendingRecord> pending;
  for (auto _ : state) {
    state.PauseTiming();
    pending = serialized;
    state.ResumeTiming();
    benchmark::DoNotOptimize(bl::ledger::chain_onto(pending, std::string(bl::k_zero_hash)));
  }
}
BENCHMARK(BM_ChainBatch1000)->Unit(benchmark::kMillisecond);

// The 1,000,000-record ledgers, built once: runs labelled run-0000 ... run-0999.
const fs::path& million() {
  static const fs::path dir =
      bl::self_bench::kept_ledgers("million-v1", [](const fs::path& building) {
        const auto ndjson = bl::ledger::open_store((building / "ledger.ndjson").string());
        const auto sqlite = bl::ledger::open_store("sqlite:" + (building / "ledger.db").string());
        for (int run = 0; run < k_million_runs; ++run) {
          char label[16];
          std::snprintf(label, sizeof label, "run-%04d", run);
          const auto batch = fresh_batch(label, k_batch_records - 1);
          ndjson->append(batch);
          sqlite->append(batch);
        }
      });
  return dir;
}

void find_and_read(benchmark::State& state, const std::string& uri, const std::string& selector) {
  bl::self_bench::warm_page_cache(uri.rfind("sqlite:", 0) == 0 ? uri.substr(7) : uri);
  bl::self_bench::find_and_read(state, uri, selector, k_batch_records - 1);
}

void BM_NdjsonFindRunByLabel1M(benchmark::State& state) {
  find_and_read(state, (million() / "ledger.ndjson").string(), "run-0500");
}
BENCHMARK(BM_NdjsonFindRunByLabel1M)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_NdjsonFindLatestRun1M(benchmark::State& state) {
  find_and_read(state, (million() / "ledger.ndjson").string(), "latest");
}
BENCHMARK(BM_NdjsonFindLatestRun1M)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SqliteFindRunByLabel1M(benchmark::State& state) {
  find_and_read(state, "sqlite:" + (million() / "ledger.db").string(), "run-0500");
}
BENCHMARK(BM_SqliteFindRunByLabel1M)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SqliteFindLatestRun1M(benchmark::State& state) {
  find_and_read(state, "sqlite:" + (million() / "ledger.db").string(), "latest");
}
BENCHMARK(BM_SqliteFindLatestRun1M)->Unit(benchmark::kMillisecond)->UseRealTime();

// The floor for NDJSON: read() every byte of the file once (from the page cache).
void BM_RawReadWholeFile1M(benchmark::State& state) {
  const auto path = million() / "ledger.ndjson";
  bl::self_bench::warm_page_cache(path);
  std::vector<char> buffer(1 << 20);
  std::int64_t total = 0;
  for (auto _ : state) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    for (ssize_t got; (got = ::read(fd, buffer.data(), buffer.size())) > 0;) total += got;
    ::close(fd);
    benchmark::DoNotOptimize(buffer.data());
  }
  state.SetBytesProcessed(total);
}
BENCHMARK(BM_RawReadWholeFile1M)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
