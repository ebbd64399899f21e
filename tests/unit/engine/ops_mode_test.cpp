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

TEST_CASE(
    "per-operation latency is each operation's own: no sample shorter than the spin, and twice "
    "the spin twice the median") {
  // Load lengthens an operation, never shortens it (the spin ends at a deadline), so the lower
  // bounds hold on any machine. The median is compared with the median of a spin twice as long,
  // measured the same way in this test, not with a figure of microseconds: a preemption lands
  // in about one 20 µs operation of a hundred, which leaves the median alone, and whatever
  // constant the timing adds to each operation pulls the ratio towards 1 by the same amount.
  const auto spin = [](std::int64_t ns) {
    Registry registry;
    registry.ops("spin", [ns](State&) { return [ns] { test::spin_for(ns); }; });
    return engine::measure_case(test::cases_of(registry, 5, 1)[0], {});
  };
  const engine::CaseMeasurement m = spin(20'000);
  const engine::CaseMeasurement doubled = spin(40'000);
  REQUIRE(m.latency);
  REQUIRE(doubled.latency);
  CHECK(m.latency->min >= 20'000);
  CHECK(doubled.latency->min >= 40'000);
  CHECK(m.latency->max >= m.latency->p999);
  CHECK(m.latency->p999 >= m.latency->p99);
  CHECK(m.latency->p99 >= m.latency->p90);
  CHECK(m.latency->p90 >= m.latency->p50);
  for (double sample : m.time_ns) CHECK(sample >= 20'000);
  INFO("median latency: spin 20 µs " << m.latency->p50 << " ns, spin 40 µs " << doubled.latency->p50
                                     << " ns");
  CHECK(doubled.latency->p50 / m.latency->p50 > 1.7);
  CHECK(doubled.latency->p50 / m.latency->p50 < 2.3);
  // One worker: a repetition's throughput is the inverse of its time per operation, less the
  // gaps between operations. The repetition's wall time holds every operation's time, so the
  // product cannot pass 1 on any load; the gaps are a few clock reads, so it is near 1 in a
  // typical repetition (a preemption between operations, not inside one, is rare).
  REQUIRE(m.throughput.size() == m.time_ns.size());
  std::vector<double> products;
  for (std::size_t i = 0; i < m.time_ns.size(); ++i) {
    products.push_back(m.throughput[i] * m.time_ns[i] / 1e9);
    CHECK(products.back() <= 1 + 1e-9);
  }
  CHECK(test::median(products) > 0.95);
}

TEST_CASE("C concurrent OPS workers really run C operations at once and share the budget") {
  static std::atomic<int> in_flight{0}, most{0}, met{0}, workers{0};
  static std::mutex mutex;
  static std::set<std::thread::id> threads;
  Registry registry;
  registry
      .ops("sleepers",
           [](State&) {
             return [] {
               bool first = false;
               {
                 const std::lock_guard lock(mutex);
                 first = threads.insert(std::this_thread::get_id()).second;
               }
               const int now = ++in_flight;
               int seen = most.load();
               while (now > seen && !most.compare_exchange_weak(seen, now)) {
               }
               // Each worker's first operation waits for the others' to begin: proof by
               // meeting, not by a rate that load could bring down. (A worker holds one
               // operation of the budget while it waits, so a late one still gets its own.)
               if (first) test::meet(met, workers);
               std::this_thread::sleep_for(std::chrono::milliseconds(10));
               --in_flight;
             };
           })
      .concurrency({1, 4})
      .ops_per_repetition(40);
  const auto cases = test::cases_of(registry, 3, 0);
  REQUIRE(cases.size() == 2);
  REQUIRE(cases[1].params.at("concurrency") == ParamValue(std::int64_t{4}));
  const auto measure = [](const engine::NativeCase& c, int concurrency) {
    in_flight = 0;
    most = 0;
    met = 0;
    workers = concurrency;
    threads.clear();
    return engine::measure_case(c, {});
  };
  const auto one = measure(cases[0], 1);
  CHECK(most == 1);
  const auto m = measure(cases[1], 4);
  CHECK(met == 4);
  CHECK(m.errors == 0);  // a worker that gave up waiting for the others would count one
  CHECK(most == 4);
  CHECK(threads.size() == 4);
  CHECK(m.ops == 120);  // the budget is shared: 40 per repetition in all, not per worker
  // Four 10 ms sleepers at once cannot pass 400 operations a second: a law, which load only
  // moves further from. That they ran at once is proven above by their meeting, not by a rate:
  // on a loaded machine every wake-up waits for a CPU, so no ratio to one worker is a law.
  INFO("median throughput: 1 worker " << test::median(one.throughput) << " ops/s, 4 workers "
                                      << test::median(m.throughput) << " ops/s");
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
