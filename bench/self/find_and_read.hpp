// What one CLI call that shows a run does, as a benchmark body: open the store at `uri`, find
// the run `selector` names and read its results. Shared by the ledger and PostgreSQL
// self-benchmarks; a run that is missing, or that has other than `results` results, fails the
// benchmark instead of timing the wrong work.
#pragma once

#include <cstddef>
#include <string>

#include <benchmark/benchmark.h>

#include <benchledger/ledger.hpp>

namespace benchledger::self_bench {

inline void find_and_read(benchmark::State& state, const std::string& uri,
                          const std::string& selector, std::size_t results) {
  std::size_t read = 0;
  for (auto _ : state) {
    const auto store = ledger::open_store(uri);  // as one CLI call does: connect, open included
    const auto run = store->find_run(ledger::parse_run_selector(selector));
    if (!run) {
      state.SkipWithError("run not found");
      return;
    }
    read = store->results_of(run->header.id).size();
  }
  if (read != results) state.SkipWithError("wrong number of results");
}

}  // namespace benchledger::self_bench
