// BENCH mode measures what the loop body takes: never less than a spin and twice as much for
// a spin twice as long, paused time left out, C worker threads running at once, and a body that
// throws failing the case.
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

// The time per iteration of each of 20 short (2 ms) repetitions of `body`.
std::vector<double> short_repetitions(const std::function<void(State&)>& body) {
  Registry registry;
  registry.bench("body", body);
  const auto m = engine::measure_case(test::cases_of(registry, 20, 1, 0.002)[0], {});
  REQUIRE(m.time_ns.size() == 20);
  return m.time_ns;
}

double least(const std::vector<double>& samples) {
  return *std::min_element(samples.begin(), samples.end());
}

}  // namespace

TEST_CASE("a spin's time per iteration is never less than the spin, and twice for twice the spin") {
  // The spin ends at a deadline, so load can lengthen a repetition but never shorten it below
  // the spin: the lower bounds hold on any machine. The spins are compared with each other, not
  // with a figure of microseconds: the least disturbed of 20 short repetitions of each (a 2 ms
  // repetition fits in a time slice even on a loaded machine), whose ratio is 2 but for a clock
  // read an iteration.
  const auto spin = [](std::int64_t ns) {
    return [ns](State& state) {
      for (auto _ : state) test::spin_for(ns);
    };
  };
  const std::vector<double> once = short_repetitions(spin(50'000));
  const std::vector<double> twice = short_repetitions(spin(100'000));
  for (double sample : once) CHECK(sample >= 50'000 * 0.98);
  for (double sample : twice) CHECK(sample >= 100'000 * 0.98);
  INFO("least time per iteration: spin 50 µs " << least(once) << " ns, spin 100 µs " << least(twice)
                                               << " ns");
  CHECK(least(twice) / least(once) > 1.7);
  CHECK(least(twice) / least(once) < 2.3);
}

TEST_CASE("calibration sizes repetitions to about min_time and no less than 1,000 clock reads") {
  Registry registry;
  registry.bench("spin", [](State& state) {
    for (auto _ : state) test::spin_for(1'000);
  });
  const auto cases = test::cases_of(registry, 3, 1, 0.02);
  const auto m = engine::measure_case(cases[0], {});
  // Calibration grows the batch until one lasts 20 ms, by at most 1.4 times the target over the
  // last batch's time: since an iteration lasts at least its 1 µs spin, a batch never passes
  // 1.4 * 20 ms / 1 µs iterations, whatever the load (which only makes batches slower, so
  // calibration stops sooner). How far short of 20 ms a later repetition falls depends on what
  // preempted calibration's last batch, so the lower bound is the clock's 0.1% rule, which
  // calibration's target is 400 times or more.
  CHECK(static_cast<double>(m.ops_per_repetition) <= 1.4 * 0.02 / 1e-6 + 1);
  for (double throughput : m.throughput) {
    const double wall_s = static_cast<double>(m.ops_per_repetition) / throughput;
    CHECK(wall_s >= static_cast<double>(m.ops_per_repetition) * 1e-6);
    CHECK(wall_s * 1e9 >= 1000 * engine::clock_read_ns());
  }
  CHECK(m.ops == 3 * m.ops_per_repetition);
  CHECK(m.warnings.empty());
}

TEST_CASE("time spent between pause_timing and resume_timing is not measured") {
  // As for the spin above: each repetition no less than the timed half, and the least
  // disturbed one compared with the same body never paused, measured in this test.
  const std::vector<double> paused = short_repetitions([](State& state) {
    for (auto _ : state) {
      test::spin_for(50'000);
      state.pause_timing();
      test::spin_for(50'000);
      state.resume_timing();
    }
  });
  const std::vector<double> unpaused = short_repetitions([](State& state) {
    for (auto _ : state) {
      test::spin_for(50'000);
      test::spin_for(50'000);
    }
  });
  for (double sample : paused) CHECK(sample >= 50'000 * 0.98);
  INFO("least time per iteration: paused half " << least(paused) << " ns, never paused "
                                                << least(unpaused) << " ns");
  CHECK(least(paused) / least(unpaused) > 0.4);
  CHECK(least(paused) / least(unpaused) < 0.6);
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
  static std::atomic<int> in_flight{0}, most{0}, met{0};
  in_flight = 0;
  most = 0;
  met = 0;
  Registry registry;
  registry
      .bench("sleepers",
             [](State& state) {
               bool first = true;
               for (auto _ : state) {
                 const int now = ++in_flight;
                 int seen = most.load();
                 while (now > seen && !most.compare_exchange_weak(seen, now)) {
                 }
                 // Each worker's first iteration waits for the others' to begin: proof by
                 // meeting, not by a rate that load could bring down.
                 if (first) test::meet(met, state.concurrency());
                 first = false;
                 std::this_thread::sleep_for(std::chrono::milliseconds(2));
                 --in_flight;
               }
             })
      .concurrency({1, 3});
  const auto cases = test::cases_of(registry, 2, 0, 0.02);
  REQUIRE(cases.size() == 2);
  CHECK(cases[1].params.at("concurrency") == ParamValue(std::int64_t{3}));
  const auto m = engine::measure_case(cases[1], {});
  CHECK(met == 3);
  CHECK(most == 3);
  // Each batch is n iterations on each of the 3 threads, every one counted once: the busy time
  // is summed over the threads and the batch lasts at least a third of that sum, so the
  // throughput cannot pass three threads' worth on any load. An iteration counted once per
  // thread, or not at all, would not divide or would pass it.
  CHECK(m.ops_per_repetition % 3 == 0);
  CHECK(m.ops == 2 * m.ops_per_repetition);
  REQUIRE(m.throughput.size() == m.time_ns.size());
  for (std::size_t i = 0; i < m.time_ns.size(); ++i)
    CHECK(m.throughput[i] * m.time_ns[i] / 1e9 <= 3 * (1 + 1e-9));
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
