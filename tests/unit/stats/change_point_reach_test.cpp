// unreachable_change_point says a series is too short for the test between segments exactly when
// no split of its values can get below the significance level, with scipy's p-values.
#include <vector>

#include <catch2/catch.hpp>

#include "stats/change_points.hpp"

namespace st = benchledger::stats;

namespace {

std::vector<double> step(std::size_t low, std::size_t high, bool distinct) {
  std::vector<double> out;
  for (std::size_t i = 0; i < low + high; ++i) {
    out.push_back((i < low ? 50.0 : 60.0) + (distinct ? 0.01 * static_cast<double>(i) : 0.0));
  }
  return out;
}

}  // namespace

TEST_CASE("12 runs cannot reach p 0.001 with the rank test; 14 distinct ones can") {
  const st::ChangePointOptions options;  // rank test, p 0.001
  const auto distinct = st::unreachable_change_point(step(6, 6, true), options);
  REQUIRE(distinct.has_value());
  // scipy.stats.mannwhitneyu(range(6), range(6, 12)).pvalue, the exact 2 / C(12, 6).
  CHECK(distinct->smallest_p == Approx(0.0021645021645021645).epsilon(1e-12));
  CHECK(distinct->before == 6);
  CHECK(distinct->after == 6);
  // 2 / C(13, 6) = 0.00117 is not below 0.001; 2 / C(14, 7) = 0.00058 is.
  CHECK(distinct->points_needed == 14);
  CHECK(st::e_divisive_change_points(step(6, 6, true), options).empty());
  CHECK_FALSE(st::unreachable_change_point(step(7, 7, true), options).has_value());
  CHECK(st::e_divisive_change_points(step(7, 7, true), options).size() == 1);
  // The split of the smallest p is found wherever the step is: it is a property of the values.
  CHECK(st::unreachable_change_point(step(2, 10, true), options)->before == 6);
}

TEST_CASE("tied values are judged by the p the test gives them, which may reach further") {
  const st::ChangePointOptions options;
  // scipy.stats.mannwhitneyu([50] * 6, [60] * 6).pvalue: the normal approximation with ties.
  const auto tied = st::unreachable_change_point(step(6, 6, false), options);
  REQUIRE(tied.has_value());
  CHECK(tied->smallest_p == Approx(0.0012619447673879731).epsilon(1e-9));
  // scipy.stats.mannwhitneyu([50] * 6, [60] * 7).pvalue = 0.00072: 13 tied runs suffice.
  CHECK_FALSE(st::unreachable_change_point(step(6, 7, false), options).has_value());
  CHECK(st::e_divisive_change_points(step(6, 7, false), options).size() == 1);
  // Identical values: a flat series of enough runs holds no change point and needs no remark.
  CHECK_FALSE(st::unreachable_change_point(std::vector<double>(20, 5.0), options).has_value());
}

TEST_CASE("the runs needed follow the level and the test, and one run has no split at all") {
  st::ChangePointOptions options;
  options.max_p = 0.05;  // 2 / C(7, 3) = 0.057, 2 / C(8, 4) = 0.029
  CHECK(st::unreachable_change_point(step(3, 3, true), options)->points_needed == 8);
  const auto one = st::unreachable_change_point(std::vector<double>{1.0}, options);
  REQUIRE(one.has_value());
  CHECK(one->smallest_p == 1);
  CHECK(one->after == 0);
  options.test = st::SegmentTest::student;
  CHECK(st::unreachable_change_point(std::vector<double>{1.0, 2.0}, options)->points_needed == 3);
  CHECK_FALSE(st::unreachable_change_point(std::vector<double>{1.0, 2.0, 2.0}, options));
  options.max_p = 0;
  CHECK_THROWS(st::unreachable_change_point(std::vector<double>{1.0}, options));
}
