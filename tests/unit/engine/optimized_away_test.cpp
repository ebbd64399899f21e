// A loop whose body the compiler deleted is reported as such (with the remedy,
// do_not_optimize), not as repetitions too short for the clock; a loop it kept is not.
#include <catch2/catch.hpp>

#include <algorithm>

#include "engine_test_support.hpp"
#include "optimized_away_fixture.hpp"

using namespace benchledger;
namespace test = benchledger::test;

TEST_CASE("a deleted loop body gets a warning that it was optimized away, a kept one does not") {
  Registry registry;
  test::register_optimized_loops(registry);
  const auto cases = test::cases_of(registry, 3, 0, 0.001);
  REQUIRE(cases.size() == 2);

  const auto deleted = engine::measure_case(cases[0], {});
  INFO("deleted: " << test::median(deleted.time_ns) << " ns per iteration");
  CHECK(test::median(deleted.time_ns) < 0.05);
  REQUIRE(deleted.warnings.size() == 1);
  CHECK_THAT(deleted.warnings[0],
             Catch::Contains("the compiler probably deleted the loop's body") &&
                 Catch::Contains("benchledger::do_not_optimize") &&
                 !Catch::Contains("raise ops_per_repetition"));

  const auto kept = engine::measure_case(cases[1], {});
  INFO("kept: " << test::median(kept.time_ns) << " ns per iteration");
  CHECK(test::median(kept.time_ns) >= 0.05);
  CHECK(std::none_of(kept.warnings.begin(), kept.warnings.end(), [](const std::string& w) {
    return w.find("optimized") != std::string::npos || w.find("deleted") != std::string::npos;
  }));
}
