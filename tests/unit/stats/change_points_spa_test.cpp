// e_divisive_change_points finds the change points MongoDB's signal-processing-algorithms finds on
// the generated series of otava_oracle.py (spa_oracle.py, run under the project's .venv-spa).
#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "stats/change_points.hpp"
#include "unit/stats/change_point_oracles.hpp"

namespace st = benchledger::stats;
namespace bt = benchledger::test;
using nlohmann::json;

namespace {

// The generated series (otava_oracle.py under .venv-otava) and the change points
// signal-processing-algorithms finds in them, once per process. Files of their own, apart from
// change_points_tests' otava_oracle.json, so that ctest may run both tests at once.
struct Oracles {
  json generated;
  json spa;
};

const Oracles& oracles() {
  static const Oracles answers = [] {
    Oracles o;
    o.generated = bt::run_change_point_oracle(".venv-otava", "otava_oracle.py", {},
                                              "spa_series.json", "apache-otava");
    const std::string series = (std::filesystem::current_path() / "spa_series.json").string();
    o.spa = bt::run_change_point_oracle(".venv-spa", "spa_oracle.py", {series}, "spa_oracle.json",
                                        "signal-processing-algorithms");
    return o;
  }();
  return answers;
}

TEST_CASE("signal-processing-algorithms answers every generated series with its permutation test") {
  const Oracles& o = oracles();
  CHECK(o.spa["found"].size() == o.generated["cases"].size());
  CHECK(o.spa["pvalue"].get<double>() == 0.01);
  CHECK(o.spa["permutations"].get<int>() == 100);
}

// detect's change points and signal-processing-algorithms' on every generated series, counted.
struct Tally {
  std::size_t spa_true = 0, spa_false = 0, spa_on_outlier = 0;
  std::size_t found = 0;  // of spa_true, the steps detect also finds
  std::size_t ours_true = 0, ours_false = 0, ours_on_outlier = 0;
  std::string details;  // where the two differ, for a failure's message
};

Tally tally(const Oracles& o, const st::ChangePointOptions& options) {
  Tally t;
  std::ostringstream details;
  const json& cases = o.generated["cases"];
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const json& c = cases[i];
    const auto values = c["values"].get<std::vector<double>>();
    const auto steps = c["steps"].get<std::vector<std::size_t>>();
    const auto outliers = c["outliers"].get<std::vector<std::size_t>>();
    const auto ours = bt::indices(st::e_divisive_change_points(values, options));
    const std::string where = "series " + std::to_string(i) + " (" + c["noise"].get<std::string>() +
                              ", " + std::to_string(values.size()) + " points, steps " +
                              c["steps"].dump() + ")";
    for (const std::size_t index : o.spa["found"][i].get<std::vector<std::size_t>>()) {
      t.spa_on_outlier += bt::on_outlier(index, outliers) ? 1 : 0;
      if (!bt::near_step(index, steps)) {
        ++t.spa_false;
        details << "false in signal-processing-algorithms: " << where << ": " << index << '\n';
        continue;
      }
      ++t.spa_true;
      // The same step: ours at most 2 points from theirs or from the real step they found (the two
      // can stand either side of it, 3 or 4 points apart).
      const std::size_t step =
          *std::min_element(steps.begin(), steps.end(), [&](std::size_t a, std::size_t b) {
            return bt::distance(a, index) < bt::distance(b, index);
          });
      const bool same = std::any_of(ours.begin(), ours.end(), [&](std::size_t at) {
        return bt::distance(at, index) <= 2 || bt::distance(at, step) <= 2;
      });
      t.found += same ? 1 : 0;
      if (!same) {
        details << "missed: " << where << ": signal-processing-algorithms' " << index << ", ours "
                << json(ours).dump() << '\n';
      }
    }
    for (const std::size_t index : ours) {
      const bool real = bt::near_step(index, steps);
      t.ours_true += real ? 1 : 0;
      t.ours_false += real ? 0 : 1;
      if (bt::on_outlier(index, outliers)) {
        ++t.ours_on_outlier;
        details << "ours on an outlier: " << where << ": " << index << '\n';
      }
      if (!real) details << "false in ours: " << where << ": " << index << '\n';
    }
  }
  details << "signal-processing-algorithms: " << t.spa_true << " real (ours found " << t.found
          << "), " << t.spa_false << " false, " << t.spa_on_outlier << " on an outlier; ours "
          << t.ours_true << " real, " << t.ours_false << " false, " << t.ours_on_outlier
          << " on an outlier";
  t.details = details.str();
  return t;
}

}  // namespace

// The bounds below are the figures docs/history.md gives ("Against signal-processing-algorithms"),
// which also says where detect falls short of the oracle.
TEST_CASE(
    "with no minimum change, 98% of the real changes signal-processing-algorithms finds are "
    "found, with at most 4 times its false ones") {
  const Tally t = tally(oracles(), bt::oracle_options(oracles().generated));
  INFO(t.details);
  CHECK(t.spa_true >= 150);
  CHECK(t.found * 100 >= t.spa_true * 98);
  CHECK(t.ours_false <= 4 * t.spa_false);
  CHECK(t.ours_on_outlier <= 2);
}

TEST_CASE(
    "with --min-change 2, 98% of the real changes signal-processing-algorithms finds are found, "
    "with no more false ones") {
  auto options = bt::oracle_options(oracles().generated);
  options.min_magnitude = 0.02;  // the smallest generated step
  const Tally t = tally(oracles(), options);
  INFO(t.details);
  CHECK(t.found * 100 >= t.spa_true * 98);
  CHECK(t.ours_false <= t.spa_false);
  CHECK(t.ours_on_outlier <= 2);
}
