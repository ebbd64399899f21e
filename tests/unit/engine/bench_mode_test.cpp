// BENCH mode measures what the loop body takes: a spin of known duration within 2%, paused
// time left out, C worker threads running at once, and a body that throws failing the case.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>

#include "engine_test_support.hpp"

using namespace benchledger;
namespace test = benchledger::test;

namespace {

// The median time per iteration of a one-case registry, measured in this process.
engine::CaseMeasurement measure_only_case(const Registry& registry, int repetitions = 10,
                                          int warmup = 1) {
  const auto cases = test::cases_of(registry, repetitions, warmup);
  REQUIRE(cases.size() == 1);
  return engine::measure_case(cases[0], {});
}

}  // namespace

TEST_CASE("a spin of 100 microseconds per iteration is measured within 2%") {
  Registry registry;
  registry.bench("spin", [](State& state) {
    for (auto _ : state) test::spin_for(100'000);
  });
  // The spin ends at a deadline, so no repetition can honestly measure less than 100 µs, and
  // one that ran without being preempted measures 100 µs plus a clock read. This machine is
  // shared: short repetitions (2 ms) make an unpreempted one likely, and the best of them is
  // held to 2%; one retry.
  std::vector<double> samples;
  for (int attempt = 0; attempt < 2; ++attempt) {
    const auto m = engine::measure_case(test::cases_of(registry, 20, 1, 0.002)[0], {});
    REQUIRE(m.time_ns.size() == 20);
    samples = m.time_ns;
    if (*std::min_element(samples.begin(), samples.end()) <= 102'000) break;
  }
  for (double sample : samples) CHECK(sample >= 100'000 * 0.98);
  CHECK(*std::min_element(samples.begin(), samples.end()) == Approx(100'000).epsilon(0.02));
}

TEST_CASE("calibration makes each repetition last 1,000 clock reads and about min_time") {
  Registry registry;
  registry.bench("spin", [](State& state) {
    for (auto _ : state) test::spin_for(1'000);
  });
  const auto cases = test::cases_of(registry, 3, 1, 0.02);
  const auto m = engine::measure_case(cases[0], {});
  // Calibration sizes the batch once, on a batch of at least 20 ms; a later repetition of the
  // same size may run faster if the machine got quieter, so hold it to half of that. The
  // clock's 0.1% rule must hold for every repetition.
  for (double throughput : m.throughput) {
    const double wall_s = static_cast<double>(m.ops_per_repetition) / throughput;
    CHECK(wall_s >= 0.5 * 0.02);
    CHECK(wall_s * 1e9 >= 1000 * engine::clock_read_ns());
  }
  CHECK(m.ops == 3 * m.ops_per_repetition);
  CHECK(m.warnings.empty());
}

TEST_CASE("time spent between pause_timing and resume_timing is not measured") {
  Registry registry;
  registry.bench("half paused", [](State& state) {
    for (auto _ : state) {
      test::spin_for(50'000);
      state.pause_timing();
      test::spin_for(50'000);
      state.resume_timing();
    }
  });
  // As for the spin above: the best of short repetitions, each no less than the timed half.
  std::vector<double> samples;
  for (int attempt = 0; attempt < 2; ++attempt) {
    samples = engine::measure_case(test::cases_of(registry, 20, 1, 0.002)[0], {}).time_ns;
    if (*std::min_element(samples.begin(), samples.end()) <= 51'500) break;
  }
  for (double sample : samples) CHECK(sample >= 50'000 * 0.98);
  CHECK(*std::min_element(samples.begin(), samples.end()) == Approx(50'000).epsilon(0.03));
}

TEST_CASE("setup before the loop runs once per case, not once per repetition") {
  static std::atomic<int> setups{0};
  setups = 0;
  Registry registry;
  registry.bench("setup once", [](State& state) {
    ++setups;
    for (auto _ : state) do_not_optimize(setups);
  });
  measure_only_case(registry, 5, 2);
  CHECK(setups == 1);
}

TEST_CASE("C worker threads of a BENCH case really run at once") {
  static std::atomic<int> in_flight{0}, most{0};
  in_flight = 0;
  most = 0;
  Registry registry;
  registry
      .bench("sleepers",
             [](State& state) {
               for (auto _ : state) {
                 const int now = ++in_flight;
                 int seen = most.load();
                 while (now > seen && !most.compare_exchange_weak(seen, now)) {
                 }
                 std::this_thread::sleep_for(std::chrono::milliseconds(2));
                 --in_flight;
               }
             })
      .concurrency({1, 3});
  const auto cases = test::cases_of(registry, 2, 0, 0.02);
  REQUIRE(cases.size() == 2);
  CHECK(cases[1].params.at("concurrency") == ParamValue(std::int64_t{3}));
  const auto one = engine::measure_case(cases[0], {});
  const auto m = engine::measure_case(cases[1], {});
  CHECK(most == 3);
  // Each batch is n iterations on each of the 3 threads.
  CHECK(m.ops_per_repetition % 3 == 0);
  // Three sleepers at once do more operations than one, measured side by side (a ratio, not a
  // rate). About three times on a quiet machine; on a loaded one each wake-up waits for a CPU,
  // which costs three threads more than one, so the bound is what one thread alone cannot reach.
  CHECK(test::median(m.throughput) > 1.3 * test::median(one.throughput));
}

TEST_CASE("a throw from a BENCH function fails the case with its message") {
  Registry registry;
  registry.bench("thrower", [](State& state) {
    int n = 0;
    for (auto _ : state) {
      if (++n == 50) throw std::runtime_error("disk on fire");
    }
  });
  const auto cases = test::cases_of(registry, 3, 0);
  CHECK_THROWS_WITH(engine::measure_case(cases[0], {}), "disk on fire");
}

TEST_CASE("a throw from one of several workers ends the case instead of hanging it") {
  Registry registry;
  registry
      .bench("one bad worker",
             [](State& state) {
               if (state.thread_index() == 1) throw std::runtime_error("worker 1 refused");
               for (auto _ : state) test::spin_for(1'000);
             })
      .concurrency({4});
  const auto cases = test::cases_of(registry, 3, 0);
  CHECK_THROWS_WITH(engine::measure_case(cases[0], {}), "worker 1 refused");
}

TEST_CASE("a BENCH function that never loops, or loops twice, is an error that says so") {
  Registry registry;
  registry.bench("no loop", [](State&) {});
  registry.bench("early exit", [](State& state) {
    for (auto _ : state) break;
  });
  const auto cases = test::cases_of(registry, 3, 0);
  CHECK_THROWS_WITH(engine::measure_case(cases[0], {}), Catch::Contains("without looping"));
  CHECK_THROWS_WITH(engine::measure_case(cases[1], {}), Catch::Contains("left its loop"));
}

TEST_CASE("each combination of params is one case, the first declared varying slowest") {
  Registry registry;
  registry
      .bench("grid",
             [](State& state) {
               for (auto _ : state) do_not_optimize(state.int_param("n"));
             })
      .param("n", {1, 2})
      .param("mode", {"a", "b", "c"})
      .concurrency({1, 4});
  const auto cases = test::cases_of(registry, 1, 0);
  REQUIRE(cases.size() == 12);
  CHECK(cases[0].display_name() == "grid concurrency=1 mode=a n=1");
  CHECK(cases[1].display_name() == "grid concurrency=4 mode=a n=1");
  CHECK(cases[2].display_name() == "grid concurrency=1 mode=b n=1");
  CHECK(cases[11].display_name() == "grid concurrency=4 mode=c n=2");

  engine::RunSettings settings;
  const engine::ParamOverrides overrides = {{"n", {"7"}}, {"concurrency", {"2"}}};
  const auto overridden =
      engine::expand_cases(registry, "", settings, overrides, std::regex("mode=b"));
  REQUIRE(overridden.size() == 1);
  CHECK(overridden[0].display_name() == "grid concurrency=2 mode=b n=7");
  CHECK_THROWS_WITH(engine::expand_cases(registry, "", settings, {{"size", {"1"}}}, std::nullopt),
                    Catch::Contains("no benchmark of this run declares a param \"size\""));

  // Concurrency is overridden only where levels were declared: an operation written for one
  // thread is never run on several.
  Registry single;
  single.bench("one thread", [](State& state) {
    for (auto _ : state) {
    }
  });
  CHECK_THROWS_WITH(
      engine::expand_cases(single, "", settings, {{"concurrency", {"4"}}}, std::nullopt),
      Catch::Contains("declares a param \"concurrency\""));
}

TEST_CASE(
    "benchmarks may share a name when their params tell the cases apart; a case declared twice "
    "is an error") {
  const auto body = [](State& state) {
    for (auto _ : state) do_not_optimize(state.params().size());
  };
  Registry registry;
  registry.bench("executors", body).param("executor", {"sequential"});
  registry.bench("executors", body).param("executor", {"pool"}).param("limit", {50});
  engine::RunSettings settings;
  const auto cases =
      engine::expand_cases(registry, "", settings, {{"limit", {"10"}}}, std::nullopt);
  REQUIRE(cases.size() == 2);
  CHECK(cases[0].display_name() == "executors executor=sequential");
  CHECK(cases[1].display_name() == "executors executor=pool limit=10");

  registry.bench("executors", body).param("executor", {"sequential"});
  CHECK_THROWS_WITH(
      engine::expand_cases(registry, "", settings, {}, std::regex("pool")),
      "case \"executors executor=sequential\" is declared twice: benchmarks that share a name "
      "need params that tell their cases apart");
}

TEST_CASE("params are read back with their types, and a wrong type is an error naming the param") {
  Registry registry;
  registry
      .bench("typed",
             [](State& state) {
               CHECK(state.int_param("n") == 3);
               CHECK(state.double_param("n") == 3.0);
               CHECK(state.double_param("x") == 0.5);
               CHECK(state.string_param("s") == "text");
               CHECK(state.bool_param("b"));
               CHECK_THROWS_WITH(state.int_param("x"),
                                 Catch::Contains("param \"x\" is not an integer"));
               CHECK_THROWS_WITH(state.param("missing"),
                                 Catch::Contains("param \"missing\" is not declared"));
               for (auto _ : state) {
               }
             })
      .param("n", {3})
      .param("x", {0.5})
      .param("s", {"text"})
      .param("b", {true});
  measure_only_case(registry, 1, 0);
}
