// The paired statistics give scipy's answers: the signed-rank test as scipy.stats.wilcoxon, the
// Hodges–Lehmann interval as the shifts that scipy's test keeps, on 360 generated difference
// vectors of 1 to 80 pairs, with and without ties and zeros.
#include <cmath>
#include <cstddef>
#include <iostream>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "stats/detectable_change.hpp"
#include "stats/sequential.hpp"
#include "stats/signed_rank.hpp"
#include "unit/stats/scipy_oracles.hpp"

namespace st = benchledger::stats;
using benchledger::test::close;
using benchledger::test::values;
using nlohmann::json;

namespace {

// Runs tests/unit/stats/signed_rank_oracle.py once per process and returns its answers.
const json& oracle() {
  static const json answers =
      benchledger::test::run_scipy_oracle("signed_rank_oracle.py", "signed_rank_oracle.json");
  return answers;
}

}  // namespace

TEST_CASE("the paired oracle covers exact and approximate cases, ties, zeros and 80 pairs") {
  std::size_t exact = 0, ties = 0, zeros = 0, large = 0;
  for (const json& v : oracle()["vectors"]) {
    const std::size_t n = v["d"].size();
    exact += v.contains("wilcoxon") && v["wilcoxon"]["exact"].get<bool>() ? 1 : 0;
    ties += v["ties"].get<bool>() ? 1 : 0;
    zeros += v["used"].get<std::size_t>() < n ? 1 : 0;
    large += n > st::k_signed_rank_exact_max ? 1 : 0;
  }
  CHECK(exact >= 100);
  CHECK(ties >= 100);
  CHECK(zeros >= 100);
  CHECK(large >= 50);
}

TEST_CASE("wilcoxon_signed_rank gives scipy's T+ and p, exact or approximate as scipy is asked") {
  std::size_t checked = 0;
  for (const json& v : oracle()["vectors"]) {
    if (!v.contains("wilcoxon")) continue;  // every difference zero: scipy refuses
    const auto d = values(v["d"]);
    const json& expected = v["wilcoxon"];
    const st::SignedRank got = st::wilcoxon_signed_rank(d);
    INFO("n=" << d.size() << " shape " << v["shape"].get<std::string>());
    CHECK(got.used == v["used"].get<std::size_t>());
    CHECK(got.statistic == expected["statistic"].get<double>());
    CHECK(got.exact == expected["exact"].get<bool>());
    CHECK(close(got.p, expected["p"].get<double>(), 1e-9, 1e-15));
    ++checked;
  }
  CHECK(checked >= 300);
}

TEST_CASE("the exact null distribution of T+ is scipy's") {
  for (const json& table : oracle()["null_cdf"]) {
    const auto n = table["n"].get<std::size_t>();
    const auto expected = values(table["cdf"]);
    const auto cdf = st::signed_rank_null_cdf(n);
    REQUIRE(cdf.size() == expected.size());
    for (std::size_t t = 0; t < expected.size(); ++t) {
      INFO("n=" << n << " t=" << t);
      CHECK(close(cdf[t], expected[t], 1e-12, 1e-17));
    }
  }
}

TEST_CASE("hodges_lehmann_paired is the interval of shifts the signed-rank test keeps") {
  for (const json& v : oracle()["vectors"]) {
    const auto d = values(v["d"]);
    for (const auto& [key, confidence] : {std::pair{"hl_95", 0.95}, std::pair{"hl_90", 0.90}}) {
      const json& expected = v[key];
      const st::PairedShift got = st::hodges_lehmann_paired(d, confidence);
      INFO("n=" << d.size() << " shape " << v["shape"].get<std::string>() << " " << key);
      CHECK(close(got.estimate, expected["estimate"].get<double>(), 1e-12, 1e-15));
      // Both sides compute each Walsh average as (d_i + d_j) / 2: the endpoints are equal.
      CHECK(got.low == expected["low"].get<double>());
      CHECK(got.high == expected["high"].get<double>());
      CHECK(close(got.coverage, expected["coverage"].get<double>(), 1e-9, 1e-12));
      CHECK(got.low <= got.estimate);
      CHECK(got.estimate <= got.high);
    }
  }
}

TEST_CASE("the smallest signed-rank p is scipy's exact p on all-positive differences") {
  for (const json& a : oracle()["attainable"]) {
    const auto n = a["n"].get<std::size_t>();
    INFO("n=" << n);
    CHECK(close(st::smallest_signed_rank_p(n), a["p"].get<double>(), 1e-12));
  }
  CHECK(st::smallest_signed_rank_p(5) == 0.0625);  // five pairs never reach 0.05
  CHECK(st::smallest_signed_rank_p(6) == 0.03125);
  CHECK(st::smallest_signed_rank_p(0) == 1.0);
  // Above 50 pairs the approximation's floor is far higher; the bound is for levels above it.
  CHECK(oracle()["attainable_approx_51"].get<double>() > st::smallest_signed_rank_p(51));
  CHECK(oracle()["attainable_approx_51"].get<double>() < 1e-9);
}

TEST_CASE(
    "pairs_to_reach is the smallest number of pairs whose scipy exact test reaches the "
    "level") {
  for (const json& r : oracle()["reach"]) {
    const double level = r["level"].get<double>();
    INFO("level " << level);
    CHECK(st::pairs_to_reach(level) == r["pairs"].get<std::size_t>());
  }
  CHECK(st::pairs_to_reach(1.0) == 1u);
  CHECK(st::pairs_to_reach(std::ldexp(1.0, -999)) == 1000u);
  CHECK_FALSE(st::pairs_to_reach(1e-305).has_value());
}

TEST_CASE("paired_detectable_change gives about 80% power in scipy simulations") {
  for (const json& c : oracle()["mdc"]) {
    const double got = st::paired_detectable_change(
        c["n"].get<std::size_t>(), c["sigma"].get<double>(), c["level"].get<double>());
    INFO("n=" << c["n"] << " level " << c["level"] << " simulated power " << c["simulated_power"]);
    CHECK(close(got, c["change"].get<double>(), 1e-9));
    CHECK(c["simulated_power"].get<double>() >= 0.72);
    CHECK(c["simulated_power"].get<double>() <= 0.88);
  }
  CHECK(std::isinf(st::paired_detectable_change(5, 0.01, 0.05)));
  CHECK(std::isfinite(st::paired_detectable_change(6, 0.01, 0.05)));
  CHECK(st::paired_detectable_change(20, 0.0, 0.05) == 0.0);
}

// Prints the tables of docs/statistics.md ("Paired rounds and repeated looks"): hidden, run it
// with `build/dev/bin/stats_tests "[paired-tables]"`.
TEST_CASE("the pairs each level needs, as docs/statistics.md shows them", "[.][paired-tables]") {
  std::cout << "| level | pairs needed | smallest p there |\n|---|---|---|\n";
  for (const double level : {0.1, 0.05, 0.025, 0.01, 0.005, 0.001, 0.0001}) {
    const std::size_t n = *st::pairs_to_reach(level);
    std::cout << "| " << level << " | " << n << " | " << st::smallest_signed_rank_p(n) << " |\n";
  }
  std::cout << "\n| look | level (alpha 0.05) | pairs needed | level (alpha 0.01) | pairs needed "
               "|\n|---|---|---|---|---|\n";
  for (const int look : {1, 2, 3, 4, 5, 10, 20, 50, 100}) {
    const double at_05 = st::look_level(0.05, look), at_01 = st::look_level(0.01, look);
    std::cout << "| " << look << " | " << at_05 << " | " << *st::pairs_to_reach(at_05) << " | "
              << at_01 << " | " << *st::pairs_to_reach(at_01) << " |\n";
  }
  SUCCEED();
}
