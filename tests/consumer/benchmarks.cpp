// A user's benchmark program built against the installed package: one BENCH and one OPS
// benchmark (its setup kept by the case for the operation's [&] capture) and the generated
// main, which run.sh runs into a ledger of its own.
#include <numeric>
#include <vector>

#include <benchledger/benchledger.hpp>

BENCHLEDGER_BENCH("consumer/sum", [](benchledger::State& state) {
  const std::vector<int> input(static_cast<std::size_t>(state.int_param("n")), 1);
  for (auto _ : state) {
    int sum = std::accumulate(input.begin(), input.end(), 0);
    benchledger::do_not_optimize(sum);
  }
}).param("n", {100, 1000});

BENCHLEDGER_OPS("consumer/lookup", [](benchledger::State& state) {
  auto& table = state.keep(std::vector<int>(256));
  std::iota(table.begin(), table.end(), 0);
  auto& next = state.make_kept<std::size_t>(0);
  return [&] {
    int value = table[next++ % table.size()];
    benchledger::do_not_optimize(value);
  };
});

BENCHLEDGER_MAIN()
