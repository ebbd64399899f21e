// Each native case runs in a forked child: a case that crashes or outlives its time limit is
// recorded as failed, with the last lines it wrote to stderr, and the cases after it still run
// and are measured.
#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "engine/records.hpp"
#include "engine_test_support.hpp"

// Under AddressSanitizer (the asan preset), let SIGSEGV kill the process as it does in any
// other build, instead of ASan reporting it and exiting with status 1.
extern "C" const char* __asan_default_options() {
  return "handle_segv=0";
}

using namespace benchledger;
namespace test = benchledger::test;

TEST_CASE("a crashing and a hanging case fail while the cases around them complete") {
  Registry registry;
  registry.bench("before", [](State& state) {
    for (auto _ : state) test::spin_for(1'000);
  });
  registry.bench("segfault", [](State& state) {
    for (auto _ : state) ::raise(SIGSEGV);
  });
  registry.bench("abort", [](State& state) {
    for (auto _ : state) {
      std::fputs("checking the queue\nassertion failed: queue not empty\n", stderr);
      std::abort();
    }
  });
  registry.bench("hang", [](State& state) {
    for (auto _ : state) std::this_thread::sleep_for(std::chrono::seconds(30));
  });
  registry.bench("exit", [](State& state) {
    for (auto _ : state) std::exit(7);
  });
  registry.ops("after", [](State&) { return [] { test::spin_for(1'000); }; });
  auto cases = test::cases_of(registry, 3, 0);
  REQUIRE(cases.size() == 6);
  cases[3].timeout = 0.5;

  // The cases' stderr is passed on as it comes, here to a file.
  std::FILE* passed_on = std::tmpfile();
  REQUIRE(passed_on != nullptr);
  std::vector<engine::CaseOutcome> outcomes;
  for (const auto& c : cases) {
    outcomes.push_back(engine::run_case_isolated(c, {}, false, ::fileno(passed_on)));
  }
  std::rewind(passed_on);
  std::string text(4096, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), passed_on));
  std::fclose(passed_on);
  CHECK(text == "checking the queue\nassertion failed: queue not empty\n");

  REQUIRE(outcomes[0].measurement);
  CHECK(outcomes[0].measurement->time_ns.size() == 3);
  REQUIRE(outcomes[1].failure);
  CHECK(outcomes[1].failure->kind == "crashed");
  CHECK(outcomes[1].failure->message == "killed by signal 11 (SIGSEGV)");
  REQUIRE(outcomes[2].failure);
  CHECK(outcomes[2].failure->message == "killed by signal 6 (SIGABRT)");
  CHECK(outcomes[2].failure->output == "checking the queue\nassertion failed: queue not empty");
  CHECK(outcomes[1].failure->output.empty());
  REQUIRE(outcomes[3].failure);
  CHECK(outcomes[3].failure->kind == "timeout");
  CHECK(outcomes[3].seconds < 5);
  REQUIRE(outcomes[4].failure);
  CHECK(outcomes[4].failure->message == "exited with status 7 before reporting a measurement");
  REQUIRE(outcomes[5].measurement);
  CHECK(outcomes[5].measurement->latency);

  // Recorded: the failed ones as one failed operation with the reason, the others measured.
  const ResultRecord crashed = engine::native_result(new_ulid(), cases[1], outcomes[1]);
  CHECK(crashed.primary == "failed");
  CHECK(crashed.ops == 1);
  CHECK(crashed.errors == 1);
  CHECK(crashed.header.extra["failure"]["kind"] == "crashed");
  CHECK(!crashed.header.extra["failure"].contains("stderr"));  // it wrote none
  const ResultRecord aborted = engine::native_result(new_ulid(), cases[2], outcomes[2]);
  CHECK(aborted.header.extra["failure"]["stderr"] ==
        "checking the queue\nassertion failed: queue not empty");
  const ResultRecord measured = engine::native_result(new_ulid(), cases[5], outcomes[5]);
  CHECK(measured.primary == "time");
  CHECK(measured.metrics.count("latency") == 1);
  CHECK(measured.metrics.count("peak_rss") == 1);
}

TEST_CASE(
    "the child reports an error the case raised, and its measurement crosses the pipe intact") {
  Registry registry;
  registry.bench("refuses", [](State& state) { state.fail("needs --pg DSN"); });
  registry.ops("fine", [](State&) { return [] { test::spin_for(5'000); }; });
  const auto cases = test::cases_of(registry, 4, 1);
  const auto refused = engine::run_case_isolated(cases[0], {}, false, STDERR_FILENO);
  REQUIRE(refused.failure);
  CHECK(refused.failure->kind == "error");
  CHECK(refused.failure->message == "needs --pg DSN");

  std::vector<engine::CasePhase> phases;
  const auto fine = engine::run_case_isolated(
      cases[1], [&](const engine::CasePhase& p) { phases.push_back(p); }, false, STDERR_FILENO);
  REQUIRE(fine.measurement);
  CHECK(fine.measurement->time_ns.size() == 4);
  CHECK(fine.measurement->throughput.size() == 4);
  CHECK(fine.measurement->latency->p50 >= 5'000);
  REQUIRE(fine.measurement->peak_rss_bytes);
  CHECK(*fine.measurement->peak_rss_bytes > 0);
  REQUIRE(!phases.empty());
  CHECK(phases.front().phase == "setup");
  CHECK(phases.back().phase == "done");
  CHECK(phases.back().done == 4);
}

TEST_CASE(
    "peak RSS is the case's own: a case that allocates 64 MiB reports it, the next does not") {
  Registry registry;
  registry.bench("big", [](State& state) {
    std::vector<char> block(64u << 20);
    for (std::size_t i = 0; i < block.size(); i += 4096) block[i] = 1;
    for (auto _ : state) do_not_optimize(block.data());
  });
  registry.bench("small", [](State& state) {
    for (auto _ : state) test::spin_for(1'000);
  });
  const auto cases = test::cases_of(registry, 2, 0);
  const auto big = engine::run_case_isolated(cases[0], {}, false, STDERR_FILENO);
  const auto small = engine::run_case_isolated(cases[1], {}, false, STDERR_FILENO);
  REQUIRE(big.measurement);
  REQUIRE(small.measurement);
  CHECK(*big.measurement->peak_rss_bytes >= (64 << 20));
  CHECK(*small.measurement->peak_rss_bytes < *big.measurement->peak_rss_bytes - (48 << 20));
}

TEST_CASE(
    "the issue's OPS form, return [&] { ... }, is safe in a forked case when its setup is kept "
    "with State::keep") {
  Registry registry;
  registry
      .ops("kept setup",
           [](State& state) {
             // Setup as the issue writes it, with its data kept by the case so that the [&]
             // capture below refers to live objects on every worker thread.
             const auto n = static_cast<std::size_t>(state.int_param("n"));
             auto& data = state.keep(std::vector<std::int64_t>(n));
             for (std::size_t i = 0; i < n; ++i) data[i] = static_cast<std::int64_t>(i);
             const auto& expected = state.keep(static_cast<std::int64_t>(n * (n - 1) / 2));
             return [&] {
               std::int64_t sum = 0;
               for (std::int64_t v : data) sum += v;
               if (sum != expected) state.fail("the kept input changed under the operation");
             };
           })
      .param("n", {4096})
      .concurrency({1, 2})
      .ops_per_repetition(200);
  for (const auto& c : test::cases_of(registry, 3, 1)) {
    const auto outcome = engine::run_case_isolated(c, {}, false, STDERR_FILENO);
    INFO(c.display_name() << ": " << (outcome.failure ? outcome.failure->message : ""));
    REQUIRE(outcome.measurement);
    CHECK(outcome.measurement->ops == 600);
    CHECK(outcome.measurement->errors == 0);
  }
}
