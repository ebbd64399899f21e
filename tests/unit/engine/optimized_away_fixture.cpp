// Two BENCH loops compiled with optimization and without sanitizers whatever the build type
// (CMakeLists.txt), for optimized_away_test.cpp: one whose body the compiler deletes, one it
// must keep.
#include "optimized_away_fixture.hpp"

namespace benchledger::test {

void register_optimized_loops(Registry& registry) {
  registry.bench("deleted", [](State& state) {
    [[maybe_unused]] int sum = 0;
    for (auto _ : state) sum += 1;  // never read: the loop has no effect left
  });
  registry.bench("kept", [](State& state) {
    int value = 1;
    for (auto _ : state) do_not_optimize(value);
  });
}

}  // namespace benchledger::test
