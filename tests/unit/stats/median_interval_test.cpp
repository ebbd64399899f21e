// median_interval gives the order statistics and exact coverage of the binomial table.
#include <numeric>
#include <vector>

#include <catch2/catch.hpp>

#include "stats/median_interval.hpp"

namespace st = benchledger::stats;

namespace {
std::vector<double> one_to(std::size_t n) {
  std::vector<double> v(n);
  std::iota(v.begin(), v.end(), 1.0);
  return v;
}
}  // namespace

// Coverage 1 - 2 P(Binomial(n, 1/2) < k), from scipy.stats.binom.cdf (Conover, table A3).
TEST_CASE("median_interval picks the order statistics of the binomial table") {
  SECTION("n = 5 cannot reach 95%: min and max, covering 1 - 2^-4") {
    const auto i = st::median_interval(one_to(5), 0.95);
    CHECK(i.low == 1);
    CHECK(i.high == 5);
    CHECK(i.coverage == Approx(0.9375));
  }
  SECTION("n = 10: x(2) and x(9), 97.85%") {
    const auto i = st::median_interval(one_to(10), 0.95);
    CHECK(i.low == 2);
    CHECK(i.high == 9);
    CHECK(i.coverage == Approx(0.978515625));
  }
  SECTION("n = 20: x(6) and x(15), 95.86%") {
    const auto i = st::median_interval(one_to(20), 0.95);
    CHECK(i.low == 6);
    CHECK(i.high == 15);
    CHECK(i.coverage == Approx(0.9586105346679688));
  }
  SECTION("n = 100: x(40) and x(61), 96.48%") {
    const auto i = st::median_interval(one_to(100), 0.95);
    CHECK(i.low == 40);
    CHECK(i.high == 61);
    CHECK(i.coverage == Approx(0.9647997997822952));
  }
}

TEST_CASE("median_interval refuses no values and a confidence outside (0, 1)") {
  CHECK_THROWS_WITH(st::median_interval({}, 0.95), Catch::Contains("no values"));
  CHECK_THROWS_WITH(st::median_interval(one_to(3), 1.0), Catch::Contains("(0, 1)"));
}
