// The ledger of `history`'s benchmarks (history_bench from the file stores, postgres_bench from
// PostgreSQL): 100,000 runs of 5 cases each, and one `benchledger history [CASE]` call's reading
// of it.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <benchledger/ledger.hpp>
#include <benchledger/record.hpp>

#include "ledger/history.hpp"
#include "model_fixtures.hpp"

namespace benchledger::self_bench {

namespace bl = benchledger;

inline constexpr std::size_t k_runs = 100'000;
inline constexpr std::array<const char*, 5> k_benches = {
    "sort/uniform", "sort/sorted", "hash/insert", "hash/lookup", "parse/json"};

// The ledger's records, made the same on every pass (import() reads its source twice): run i at
// 2016-01-01 plus i hours, labelled nightly, with 5 results of 10 samples each.
class HundredThousandRuns final : public bl::ledger::ImportSource {
 public:
  HundredThousandRuns() {
    m_ids.reserve(k_runs * (1 + k_benches.size()));
    for (std::size_t i = 0; i < m_ids.capacity(); ++i) m_ids.push_back(bl::new_ulid());
  }

  void each(
      const std::function<void(bl::Record&& record, std::size_t index)>& visit) const override {
    std::mt19937_64 rng(20261124);
    std::normal_distribution<double> noise(0, 0.01);
    std::size_t index = 0;
    for (std::size_t i = 0; i < k_runs; ++i) {
      const std::string time =
          fmt::format("{:04}-{:02}-{:02}T{:02}:00:00.000000Z", 2016 + i / (24 * 360),
                      1 + i / (24 * 30) % 12, 1 + i / 24 % 30, i % 24);
      bl::RunRecord run = bl::testing::sample_run(m_ids[index], "nightly");
      run.header.time = time;
      visit(std::move(run), index);
      const std::string run_id = m_ids[index++];
      for (std::size_t b = 0; b < k_benches.size(); ++b) {
        bl::ResultRecord result = bl::testing::sample_result(run_id, m_ids[index]);
        result.header.time = time;
        result.bench = k_benches[b];
        result.params = {{"n", std::int64_t{2000}}};
        std::vector<double> samples(10);
        for (double& s : samples) s = 1000.0 * (1 + static_cast<double>(b)) * (1 + noise(rng));
        result.metrics = {{"time", bl::metric_from_samples("ns", bl::Better::lower, samples)}};
        result.primary = "time";
        visit(std::move(result), index++);
      }
    }
  }

 private:
  std::vector<std::string> m_ids;
};

// One `benchledger history [CASE]` call's reading: open the store, collect the series. A series
// count or length other than expected fails the benchmark instead of timing the wrong work.
inline void history(benchmark::State& state, const std::string& uri,
                    const std::vector<std::string>& cases, bool samples = false) {
  bl::ledger::HistoryOptions options;
  options.query.cases = cases;
  options.samples = samples;
  const std::size_t expected_series = cases.empty() ? k_benches.size() : cases.size();
  std::size_t points = 0;
  for (auto _ : state) {
    const auto store = bl::ledger::open_store(uri);
    const auto series = bl::ledger::collect_series(*store, options);
    if (series.size() != expected_series) {
      state.SkipWithError("wrong number of series");
      return;
    }
    points = 0;
    for (const auto& s : series) points += s.points.size();
  }
  if (points != k_runs * expected_series) state.SkipWithError("wrong number of points");
  state.counters["points"] = static_cast<double>(points);
}

}  // namespace benchledger::self_bench
