// What one `benchledger compare` costs on a large suite: 1,000 cases x 30 samples a side
// (the target in docs/statistics.md: <= 0.2 s).
// Cases: matching + statistics + Benjamini-Hochberg (compare_sides), the same plus the JSON
// output, and the statistics alone (assess on spans).
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "compare/comparison.hpp"
#include "compare/verdict.hpp"
#include "report/compare_render.hpp"
#include "unit/compare/noise_corpus.hpp"

namespace {

using benchledger::Better;
using benchledger::ResultRecord;
using benchledger::RunRecord;
namespace cmp = benchledger::compare;
namespace bt = benchledger::testing;

constexpr std::size_t k_cases = 1000;
constexpr std::size_t k_samples = 30;

struct Input {
  cmp::Side base, current;
};

// 1,000 cases of mixed noise shapes with 0-20% changes, fixed seed.
const Input& input() {
  static const Input data = [] {
    Input in;
    bt::Rng rng(1000);
    RunRecord base_run, current_run;
    base_run.header.id = "01JDQ8Z6X00000000000000BAS";
    current_run.header.id = "01JDQ8Z6X00000000000000CXR";
    base_run.env.fingerprint = current_run.env.fingerprint = std::string(64, 'a');
    in.base.runs.push_back(base_run);
    in.current.runs.push_back(current_run);
    for (std::size_t i = 0; i < k_cases; ++i) {
      const bt::Shape shape = bt::k_shapes[i % bt::k_shapes.size()];
      const double shift = i % 10 == 0 ? 0.1 * rng.uniform() : 0.0;
      const double center = 1e3 * (1.0 + static_cast<double>(i));
      for (auto* side : {&in.base, &in.current}) {
        ResultRecord r;
        r.header.id = std::to_string(i) + (side == &in.base ? "b" : "c");
        r.run = side->runs.front().header.id;
        r.bench = "suite/case_" + std::to_string(i / 10);
        r.params = {{"n", std::int64_t(i % 10)}};
        const double scale = side == &in.base ? 1.0 : 1.0 + shift;
        r.metrics = {{"time", benchledger::metric_from_samples(
                                  "ns", Better::lower,
                                  bt::draw(rng, shape, k_samples, 0.03, center * scale))}};
        r.primary = "time";
        side->results.push_back(std::move(r));
      }
    }
    return in;
  }();
  return data;
}

void compare_1000_cases(benchmark::State& state) {
  const Input& in = input();
  for (auto _ : state) {
    auto report = cmp::compare_sides(in.base, in.current, {}, {});
    benchmark::DoNotOptimize(report);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * k_cases));
}
BENCHMARK(compare_1000_cases)->Unit(benchmark::kMillisecond);

void compare_1000_cases_to_json(benchmark::State& state) {
  const Input& in = input();
  for (auto _ : state) {
    std::string json = benchledger::report::render_comparison_json(
        cmp::compare_sides(in.base, in.current, {}, {}));
    benchmark::DoNotOptimize(json);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * k_cases));
}
BENCHMARK(compare_1000_cases_to_json)->Unit(benchmark::kMillisecond);

void assess_1000_metrics(benchmark::State& state) {
  const Input& in = input();
  std::vector<cmp::MetricInput> inputs;
  for (std::size_t i = 0; i < k_cases; ++i) {
    inputs.push_back({*in.base.results[i].metrics.at("time").samples,
                      *in.current.results[i].metrics.at("time").samples, Better::lower, 0.05});
  }
  for (auto _ : state) {
    auto assessed = cmp::assess(inputs, {});
    benchmark::DoNotOptimize(assessed);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * k_cases));
}
BENCHMARK(assess_1000_metrics)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
