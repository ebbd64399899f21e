// e_divisive_change_points finds the change points Apache Otava finds on generated series
// (otava_oracle.py, run under the project's .venv), and fewer false ones.
#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "stats/change_points.hpp"
#include "unit/stats/change_point_oracles.hpp"

namespace st = benchledger::stats;
using benchledger::test::indices;
using benchledger::test::near_step;
using benchledger::test::on_outlier;
using nlohmann::json;

namespace {

// Runs tests/unit/stats/otava_oracle.py once per process and returns its answers.
const json& oracle() {
  static const json answers = benchledger::test::run_change_point_oracle(
      ".venv-otava", "otava_oracle.py", {}, "otava_oracle.json", "apache-otava");
  return answers;
}

}  // namespace

TEST_CASE("the Otava oracle covers 50 to 1,000 points, three noises and outliers") {
  const json& cases = oracle()["cases"];
  REQUIRE(cases.size() >= 100);
  std::size_t with_steps = 0, with_outliers = 0, longest = 0;
  for (const json& c : cases) {
    with_steps += c["steps"].empty() ? 0 : 1;
    with_outliers += c["outliers"].empty() ? 0 : 1;
    longest = std::max(longest, c["values"].size());
  }
  CHECK(with_steps >= 60);
  CHECK(with_outliers >= 40);
  CHECK(longest == 1000);
}

TEST_CASE("with Otava's test and merge, the change points are Otava's on every series") {
  const json& o = oracle();
  auto options = benchledger::test::oracle_options(o);
  options.test = st::SegmentTest::student;
  options.retest_both_neighbours = false;
  std::size_t differ = 0;
  for (const json& c : o["cases"]) {
    const auto values = c["values"].get<std::vector<double>>();
    const auto ours = indices(st::e_divisive_change_points(values, options));
    const auto otava = c["otava"].get<std::vector<std::size_t>>();
    if (ours != otava) {
      ++differ;
      UNSCOPED_INFO(c["noise"].get<std::string>()
                    << " n=" << values.size() << " steps " << c["steps"].dump() << ": ours "
                    << json(ours).dump() << ", Otava's " << c["otava"].dump());
    }
  }
  CHECK(differ == 0);
}

TEST_CASE(
    "by default, 98% of the real changes Otava finds are found, with a fifth of its false ones") {
  const json& o = oracle();
  const auto options = benchledger::test::oracle_options(o);
  std::size_t otava_true = 0, otava_false = 0, otava_on_outlier = 0;
  std::size_t found = 0, ours_false = 0, ours_on_outlier = 0;
  for (const json& c : o["cases"]) {
    const auto values = c["values"].get<std::vector<double>>();
    const auto steps = c["steps"].get<std::vector<std::size_t>>();
    const auto outliers = c["outliers"].get<std::vector<std::size_t>>();
    const auto ours = indices(st::e_divisive_change_points(values, options));
    for (const std::size_t index : c["otava"].get<std::vector<std::size_t>>()) {
      otava_on_outlier += on_outlier(index, outliers) ? 1 : 0;
      if (!near_step(index, steps)) {
        ++otava_false;
        continue;
      }
      ++otava_true;
      // The same step, found at most 2 points away (the two tests can place it a point apart).
      const bool same = std::any_of(ours.begin(), ours.end(), [&](std::size_t i) {
        return (i > index ? i - index : index - i) <= 2;
      });
      found += same ? 1 : 0;
      if (!same) {
        UNSCOPED_INFO("missed: " << c["noise"].get<std::string>() << " n=" << values.size()
                                 << " steps " << c["steps"] << ": Otava's " << index << ", ours "
                                 << json(ours));
      }
    }
    for (const std::size_t index : ours) {
      ours_false += near_step(index, steps) ? 0 : 1;
      ours_on_outlier += on_outlier(index, outliers) ? 1 : 0;
    }
  }
  INFO("Otava: " << otava_true << " real (ours found " << found << "), " << otava_false
                 << " false, " << otava_on_outlier << " on an outlier; ours " << ours_false
                 << " false, " << ours_on_outlier << " on an outlier");
  CHECK(otava_true >= 150);
  CHECK(found * 100 >= otava_true * 98);
  CHECK(ours_false * 5 <= otava_false);
  CHECK(ours_on_outlier * 5 <= otava_on_outlier);
}

TEST_CASE("a window beyond the largest is refused before its table of distances is made") {
  const std::vector<double> series(5000, 1.0);
  benchledger::stats::ChangePointOptions options;
  options.window = benchledger::stats::k_max_change_point_window + 1;
  CHECK_THROWS_WITH(benchledger::stats::e_divisive_change_points(series, options),
                    Catch::Contains("the window must hold 2 to 2000 points"));
  options.window = benchledger::stats::k_max_change_point_window;
  CHECK(benchledger::stats::e_divisive_change_points(series, options).empty());
}
