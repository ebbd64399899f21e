// OPS mode times every operation on its own, counts the ones that throw as errors without
// stopping, and shares each repetition's budget among C workers that really run at once.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "engine_test_support.hpp"

using namespace benchledger;
namespace test = benchledger::test;

TEST_CASE("an operation that throws on every 10th call gives errors = ops / 10") {
  Registry registry;
  registry
      .ops("every tenth throws",
           [](State&) {
             return [calls = std::int64_t{0}]() mutable {
               if (++calls % 10 == 0) throw std::runtime_error("tenth call");
               test::spin_for(2'000);
             };
           })
      .ops_per_repetition(1000);
  const auto cases = test::cases_of(registry, 5, 1);
  const auto m = engine::measure_case(cases[0], {});
  CHECK(m.ops == 5000);
  CHECK(m.errors == m.ops / 10);
  REQUIRE(m.latency);
  CHECK(m.latency->n == 5000);
}

TEST_CASE("per-operation latency of a 20 microsecond spin is right at the median and the tail") {
  Registry registry;
  registry.ops("spin", [](State&) { return [] { test::spin_for(20'000); }; });
  double p50 = 0;
  engine::CaseMeasurement m;
  for (int attempt = 0; attempt < 2; ++attempt) {
    m = engine::measure_case(test::cases_of(registry, 5, 1)[0], {});
    p50 = m.latency->p50;
    if (std::fabs(p50 - 20'000) <= 400) break;
  }
  CHECK(p50 == Approx(20'000).epsilon(0.02));
  CHECK(m.latency->min >= 20'000);
  CHECK(m.latency->max >= m.latency->p999);
  CHECK(m.latency->p999 >= m.latency->p99);
  CHECK(m.latency->p99 >= m.latency->p90);
  for (double sample : m.time_ns) CHECK(sample >= 20'000);
  // One worker: throughput is the inverse of the time per operation (the best repetition of
  // each, the one least disturbed on a shared machine), less the per-operation timing's cost.
  const double best_time = *std::min_element(m.time_ns.begin(), m.time_ns.end());
  const double best_throughput = *std::max_element(m.throughput.begin(), m.throughput.end());
  CHECK(best_throughput == Approx(1e9 / best_time).epsilon(0.05));
}

TEST_CASE("C concurrent OPS workers really run C operations at once and share the budget") {
  static std::atomic<int> in_flight{0}, most{0};
  static std::mutex mutex;
  static std::set<std::thread::id> threads;
  in_flight = 0;
  most = 0;
  threads.clear();
  Registry registry;
  registry
      .ops("sleepers",
           [](State&) {
             return [] {
               {
                 const std::lock_guard lock(mutex);
                 threads.insert(std::this_thread::get_id());
               }
               const int now = ++in_flight;
               int seen = most.load();
               while (now > seen && !most.compare_exchange_weak(seen, now)) {
               }
               std::this_thread::sleep_for(std::chrono::milliseconds(10));
               --in_flight;
             };
           })
      .concurrency({4})
      .ops_per_repetition(40);
  const auto cases = test::cases_of(registry, 3, 0);
  const auto m = engine::measure_case(cases[0], {});
  CHECK(most == 4);
  CHECK(threads.size() == 4);
  CHECK(m.ops == 120);  // the budget is shared: 40 per repetition in all, not per worker
  // Four 10 ms sleepers at once: close to 400 operations a second. One worker at a time could
  // not pass 100, however quiet the machine; a loaded one wakes sleepers late, so the bound
  // asks for half again one worker's rate, not for the ideal.
  CHECK(test::median(m.throughput) > 150);
  CHECK(test::median(m.throughput) < 410);
}

TEST_CASE("the factory of an OPS case runs once per case and its instance is reused") {
  static std::atomic<int> factories{0};
  factories = 0;
  Registry registry;
  registry.ops("one instance", [](State&) {
    ++factories;
    auto counter = std::make_shared<std::int64_t>(0);
    return [counter] { ++*counter; };
  });
  engine::measure_case(test::cases_of(registry, 5, 2)[0], {});
  CHECK(factories == 1);
}

TEST_CASE("State::fail inside an operation fails the case; other exceptions only count") {
  Registry registry;
  registry.ops("gives up", [](State& state) {
    return [&state, calls = 0]() mutable {
      if (++calls == 100) state.fail("the server went away");
    };
  });
  CHECK_THROWS_WITH(engine::measure_case(test::cases_of(registry, 3, 0)[0], {}),
                    "the server went away");
}

TEST_CASE("items per operation turn throughput into items per second") {
  Registry registry;
  registry.ops("pages", [](State& state) {
    state.set_items_per_op(100);
    return [] { test::spin_for(10'000); };
  });
  const auto m = engine::measure_case(test::cases_of(registry, 3, 0)[0], {});
  CHECK(m.items_per_op == 100);
}

TEST_CASE("an OPS function that loops over State is told how OPS mode works") {
  Registry registry;
  registry.ops("confused", [](State& state) {
    for (auto _ : state) {
    }
    return [] {};
  });
  CHECK_THROWS_WITH(engine::measure_case(test::cases_of(registry, 1, 0)[0], {}),
                    Catch::Contains("returns its operation"));
}

TEST_CASE(
    "ops_per_case spreads a param's total over the repetitions, whatever their number, and the "
    "total must cover them") {
  Registry registry;
  registry.ops("inserts", [](State&) { return [] { test::spin_for(1'000); }; })
      .param("rows", {1000})
      .ops_per_case("rows");
  for (const int repetitions : {1, 3, 10}) {
    INFO(repetitions << " repetitions");
    const auto m = engine::measure_case(test::cases_of(registry, repetitions, 1)[0], {});
    CHECK(m.ops == 1000);
    CHECK(m.time_ns.size() == static_cast<std::size_t>(repetitions));
    REQUIRE(m.latency);
    CHECK(m.latency->n == 1000);
  }
  CHECK_THROWS_WITH(test::cases_of(registry, 2000, 0),
                    "case \"inserts rows=1000\": rows=1000 operations in all are fewer than the "
                    "2000 repetitions");

  Registry misnamed;
  misnamed.ops("inserts", [](State&) { return [] {}; })
      .param("rows", {"many"})
      .ops_per_case("rows");
  CHECK_THROWS_WITH(test::cases_of(misnamed, 1, 0),
                    Catch::Contains("ops_per_case names param \"rows\", which is not an integer"));
  CHECK_THROWS_WITH(Registry()
                        .ops("both", [](State&) { return [] {}; })
                        .ops_per_repetition(10)
                        .ops_per_case("rows"),
                    Catch::Contains("exclude each other"));
}

TEST_CASE(
    "objects kept with State::keep outlive the operation that captures them by reference, and "
    "go after it, newest first") {
  static std::vector<std::string> log;
  static bool kept_alive = false;
  log.clear();
  struct Tracked {
    std::string name;
    explicit Tracked(std::string n) : name(std::move(n)) {}
    Tracked(Tracked&& other) noexcept : name(std::move(other.name)) { other.name.clear(); }
    ~Tracked() {
      if (!name.empty()) log.push_back(name);
    }
  };
  struct OperationEnd {
    ~OperationEnd() { log.push_back("operation"); }
  };
  Registry registry;
  registry
      .ops("kept",
           [](State& state) {
             auto& first = state.keep(Tracked("first"));
             auto& second = state.make_kept<Tracked>("second");
             kept_alive = true;
             auto end = std::make_shared<OperationEnd>();
             return [&, end] {
               if (first.name != "first" || second.name != "second")
                 state.fail("a kept object was dead while the operation ran");
             };
           })
      .ops_per_repetition(100);
  const auto m = engine::measure_case(test::cases_of(registry, 3, 0)[0], {});
  CHECK(kept_alive);
  CHECK(m.ops == 300);
  CHECK(m.errors == 0);
  CHECK(log == std::vector<std::string>{"operation", "second", "first"});
}
