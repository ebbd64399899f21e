// Registers the loops of optimized_away_fixture.cpp (compiled with -O2 in every build type).
#pragma once

#include <benchledger/benchledger.hpp>

namespace benchledger::test {

// "deleted": a body whose result is unused, which the optimizer removes; "kept": a body that
// do_not_optimize keeps.
void register_optimized_loops(Registry& registry);

}  // namespace benchledger::test
