// Every statistic in src/stats gives scipy.stats' answer (numpy's, for Hodges–Lehmann and
// Benjamini–Hochberg, which scipy 1.10 lacks) on 600 generated sample pairs, ties included.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <benchledger/record.hpp>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "compare/verdict.hpp"
#include "stats/brunner_munzel.hpp"
#include "stats/detectable_change.hpp"
#include "stats/hodges_lehmann.hpp"
#include "stats/kolmogorov_smirnov.hpp"
#include "stats/mann_whitney.hpp"
#include "stats/multiple_testing.hpp"
#include "stats/order_statistics.hpp"
#include "unit/stats/scipy_oracles.hpp"

namespace st = benchledger::stats;
using benchledger::test::close;
using benchledger::test::values;
using nlohmann::json;

namespace {

// Runs tests/unit/stats/scipy_oracle.py once per process and returns its answers.
const json& oracle() {
  static const json answers =
      benchledger::test::run_scipy_oracle("scipy_oracle.py", "scipy_oracle.json");
  return answers;
}

}  // namespace

TEST_CASE("the oracle covers at least 500 pairs with ties among them") {
  const json& pairs = oracle()["pairs"];
  REQUIRE(pairs.size() >= 500);
  std::size_t with_ties = 0;
  for (const json& pair : pairs) with_ties += pair["ties"].get<bool>() ? 1 : 0;
  CHECK(with_ties >= 100);
}

TEST_CASE("mann_whitney_u matches scipy's normal approximation with and without continuity") {
  for (const json& pair : oracle()["pairs"]) {
    const auto x = values(pair["x"]), y = values(pair["y"]);
    for (const bool continuity : {true, false}) {
      const json& expected = pair[continuity ? "mwu_asymptotic_cc" : "mwu_asymptotic_nocc"];
      const auto got = st::mann_whitney_u(x, y, st::MannWhitneyMethod::asymptotic, continuity);
      INFO("m=" << x.size() << " n=" << y.size() << " continuity=" << continuity);
      CHECK(got.u == expected["u"].get<double>());
      CHECK(close(got.p, expected["p"].get<double>(), 1e-9, 1e-15));
      CHECK_FALSE(got.exact);
    }
  }
}

TEST_CASE("mann_whitney_u matches the exact distribution for small samples without ties") {
  std::size_t checked = 0;
  for (const json& pair : oracle()["pairs"]) {
    if (!pair.contains("mwu_exact")) continue;
    const auto x = values(pair["x"]), y = values(pair["y"]);
    const auto exact = st::mann_whitney_u(x, y, st::MannWhitneyMethod::exact);
    const auto automatic = st::mann_whitney_u(x, y);
    INFO("m=" << x.size() << " n=" << y.size());
    CHECK(exact.exact);
    CHECK(automatic.exact);  // no ties and both sizes <= 50
    CHECK(exact.u == pair["mwu_exact"]["u"].get<double>());
    CHECK(close(exact.p, pair["mwu_exact"]["p"].get<double>(), 1e-10, 1e-15));
    CHECK(automatic.p == exact.p);
    ++checked;
  }
  CHECK(checked >= 300);
}

TEST_CASE("mann_whitney_u uses the normal approximation when there are ties") {
  for (const json& pair : oracle()["pairs"]) {
    if (!pair["ties"].get<bool>()) continue;
    const auto got = st::mann_whitney_u(values(pair["x"]), values(pair["y"]));
    CHECK(got.ties);
    CHECK_FALSE(got.exact);
    CHECK(close(got.p, pair["mwu_asymptotic_cc"]["p"].get<double>(), 1e-9, 1e-15));
  }
}

TEST_CASE("the exact null distribution of U matches scipy's") {
  for (const json& table : oracle()["null_cdf"]) {
    const auto m = table["m"].get<std::size_t>(), n = table["n"].get<std::size_t>();
    const auto expected = values(table["cdf"]);
    const auto cdf = st::mann_whitney_null_cdf(m, n);
    REQUIRE(cdf->size() == expected.size());
    for (std::size_t k = 0; k < expected.size(); ++k) {
      INFO("m=" << m << " n=" << n << " k=" << k);
      CHECK(close((*cdf)[k], expected[k], 1e-11, 1e-17));
    }
    CHECK(st::mann_whitney_null_cdf(n, m)->size() == expected.size());
  }
}

TEST_CASE("the smallest exact p-value is 2 / binomial(m + n, m)") {
  CHECK(st::mann_whitney_min_p(3, 3) == Approx(0.1));
  CHECK(st::mann_whitney_min_p(5, 5) == Approx(2.0 / 252.0));
  CHECK(st::mann_whitney_min_p(1, 1) == 1.0);
}

TEST_CASE("hodges_lehmann_shift matches the numpy oracle's estimate and interval") {
  for (const json& pair : oracle()["pairs"]) {
    const auto x = values(pair["x"]), y = values(pair["y"]);
    for (const auto& [key, confidence] : {std::pair{"hl_95", 0.95}, std::pair{"hl_90", 0.90}}) {
      const json& expected = pair[key];
      const auto got = st::hodges_lehmann_shift(x, y, confidence);
      INFO("m=" << x.size() << " n=" << y.size() << " " << key);
      CHECK(got.k == expected["k"].get<std::size_t>());
      CHECK(close(got.estimate, expected["estimate"].get<double>(), 1e-12, 1e-12));
      CHECK(got.low == expected["low"].get<double>());
      CHECK(got.high == expected["high"].get<double>());
      CHECK(close(got.coverage, expected["coverage"].get<double>(), 1e-9, 1e-12));
      CHECK(got.low <= got.estimate);
      CHECK(got.estimate <= got.high);
    }
  }
}

TEST_CASE("hodges_lehmann_ratio is the shift of the logs, as a factor") {
  std::size_t checked = 0;
  for (const json& pair : oracle()["pairs"]) {
    if (!pair.contains("hl_ratio_95")) continue;
    const auto got = st::hodges_lehmann_ratio(values(pair["x"]), values(pair["y"]), 0.95);
    const json& expected = pair["hl_ratio_95"];
    CHECK(close(got.ratio, expected["ratio"].get<double>(), 1e-12));
    CHECK(close(got.low, expected["low"].get<double>(), 1e-12));
    CHECK(close(got.high, expected["high"].get<double>(), 1e-12));
    ++checked;
  }
  CHECK(checked >= 400);
  const std::vector<double> positive{1, 2, 3}, with_zero{0, 1, 2};
  CHECK_THROWS_WITH(st::hodges_lehmann_ratio(positive, with_zero, 0.95),
                    Catch::Contains("a ratio needs positive values"));
}

TEST_CASE("brunner_munzel matches scipy, NaN where scipy gives NaN") {
  std::size_t checked = 0;
  for (const json& pair : oracle()["pairs"]) {
    if (!pair.contains("brunner_munzel")) continue;
    const auto got = st::brunner_munzel(values(pair["x"]), values(pair["y"]));
    const json& expected = pair["brunner_munzel"];
    INFO("m=" << pair["x"].size() << " n=" << pair["y"].size());
    if (expected["p"].is_null()) {
      CHECK(std::isnan(got.p));
    } else {
      CHECK(close(got.p, expected["p"].get<double>(), 1e-8, 1e-14));
      CHECK(close(got.statistic, expected["statistic"].get<double>(), 1e-10, 1e-12));
    }
    ++checked;
  }
  CHECK(checked >= 500);
}

TEST_CASE("kolmogorov_smirnov matches scipy's exact two-sample test") {
  for (const json& pair : oracle()["pairs"]) {
    const auto got = st::kolmogorov_smirnov(values(pair["x"]), values(pair["y"]));
    const json& expected = pair["ks"];
    INFO("m=" << pair["x"].size() << " n=" << pair["y"].size());
    CHECK(close(got.d, expected["d"].get<double>(), 1e-12));
    // 1 - P(inside) loses relative precision below ~1e-10: an absolute bound there.
    CHECK(close(got.p, expected["p"].get<double>(), 1e-7, 1e-10));
  }
}

TEST_CASE("metric_from_samples and quantile_sorted match numpy's summary and percentiles") {
  for (const json& pair : oracle()["pairs"]) {
    auto all = values(pair["x"]);
    const auto y = values(pair["y"]);
    all.insert(all.end(), y.begin(), y.end());
    // The builder every record's summary comes from (engine, import, gate).
    const benchledger::Summary s =
        benchledger::metric_from_samples("ns", benchledger::Better::lower, all).summary;
    const json& expected = pair["summary"];
    CHECK(s.n == expected["n"].get<std::int64_t>());
    CHECK(close(s.mean, expected["mean"].get<double>(), 1e-13));
    CHECK(close(s.median, expected["median"].get<double>(), 1e-15));
    CHECK(close(s.stddev, expected["stddev"].get<double>(), 1e-10, 1e-14));
    CHECK(s.min == expected["min"].get<double>());
    CHECK(s.max == expected["max"].get<double>());
    std::sort(all.begin(), all.end());
    CHECK(close(st::quantile_sorted(all, 0.5), expected["median"].get<double>(), 1e-15));
    CHECK(close(st::quantile_sorted(all, 0.90), expected["p90"].get<double>(), 1e-13));
    CHECK(close(st::quantile_sorted(all, 0.95), expected["p95"].get<double>(), 1e-13));
    CHECK(close(st::quantile_sorted(all, 0.99), expected["p99"].get<double>(), 1e-13));
    CHECK(close(st::quantile_sorted(all, 0.999), expected["p999"].get<double>(), 1e-13));
  }
}

TEST_CASE("benjamini_hochberg matches the adjusted p-values and rejections of the definition") {
  for (const json& group : oracle()["bh"]) {
    const auto p = values(group["p"]);
    const auto adjusted = st::benjamini_hochberg(p);
    const auto expected = values(group["adjusted"]);
    const auto reject_05 = group["reject_05"].get<std::vector<bool>>();
    const auto reject_10 = group["reject_10"].get<std::vector<bool>>();
    REQUIRE(adjusted.size() == p.size());
    for (std::size_t i = 0; i < p.size(); ++i) {
      CHECK(close(adjusted[i], expected[i], 1e-12, 1e-300));
      CHECK((adjusted[i] <= 0.05) == reject_05[i]);
      CHECK((adjusted[i] <= 0.10) == reject_10[i]);
    }
  }
  const std::vector<double> bad{0.5, 1.5};
  CHECK_THROWS_WITH(st::benjamini_hochberg(bad), Catch::Contains("not a probability"));
}

TEST_CASE("benjamini_hochberg_levels is the largest p the step-up procedure still rejects") {
  std::size_t above_lone = 0;
  for (const json& group : oracle()["bh_levels"]) {
    const auto p = values(group["p"]);
    const double q = group["q"].get<double>();
    const auto got = st::benjamini_hochberg_levels(p, q);
    const auto expected = values(group["levels"]);
    REQUIRE(got.size() == p.size());
    for (std::size_t i = 0; i < p.size(); ++i) {
      INFO("m=" << p.size() << " i=" << i << " q=" << q);
      CHECK(close(got[i], expected[i], 1e-12));
      above_lone += got[i] > q / static_cast<double>(p.size()) * (1 + 1e-9) ? 1 : 0;
    }
  }
  CHECK(above_lone >= 100);  // the oracle also covers levels raised by other discoveries
  // Nothing else small: each would be a lone discovery, at q / m. One discovery elsewhere lets
  // the others be the second, at 2 q / m.
  const std::vector<double> none{0.3, 0.5, 0.7, 0.9}, one{0.001, 0.5, 0.7, 0.9};
  CHECK(st::benjamini_hochberg_levels(none, 0.05) == std::vector<double>(4, 0.05 / 4));
  CHECK(st::benjamini_hochberg_levels(one, 0.05) ==
        std::vector<double>{0.05 / 4, 0.1 / 4, 0.1 / 4, 0.1 / 4});
  CHECK_THROWS_WITH(st::benjamini_hochberg_levels(one, 0.0), Catch::Contains("outside (0, 1]"));
}

TEST_CASE("the smallest attainable p of the deciding test is scipy's on separated samples") {
  namespace cmp = benchledger::compare;
  for (const json& c : oracle()["attainable"]) {
    const auto m = c["m"].get<std::size_t>(), n = c["n"].get<std::size_t>();
    INFO("m=" << m << " n=" << n);
    CHECK(close(cmp::smallest_attainable_p(cmp::DecidingTest::mann_whitney, m, n),
                c["mann_whitney"].get<double>(), 1e-9));
    // The exact KS p is 1 - P(inside the band): absolutely, not relatively, accurate, which is
    // ample for levels far above 1e-12.
    CHECK(close(cmp::smallest_attainable_p(cmp::DecidingTest::kolmogorov_smirnov, m, n),
                c["kolmogorov_smirnov"].get<double>(), 1e-9, 1e-12));
    if (m <= st::k_exact_max_size && n <= st::k_exact_max_size) {
      CHECK(close(st::mann_whitney_min_p(m, n), c["mann_whitney"].get<double>(), 1e-12));
    }
  }
  for (const json& r : oracle()["reach"]) {
    const double level = r["level"].get<double>();
    INFO("level " << level);
    CHECK(cmp::samples_to_reach(cmp::DecidingTest::mann_whitney, level) ==
          r["size"].get<std::size_t>());
  }
  CHECK_THROWS_WITH(cmp::smallest_attainable_p(cmp::DecidingTest::mann_whitney, 1, 5),
                    Catch::Contains("2 samples a side"));
  // Brunner–Munzel has no bound from sizes: nearly separated samples of 5 reach 3.9e-5 in
  // scipy.stats.brunnermunzel, far below Mann–Whitney's 2 / C(10, 5).
  CHECK_THROWS_WITH(cmp::smallest_attainable_p(cmp::DecidingTest::brunner_munzel, 5, 5),
                    Catch::Contains("no smallest attainable p-value"));
}

TEST_CASE("minimal_detectable_change gives about 80% power in scipy simulations") {
  for (const json& c : oracle()["mdc"]) {
    const double got = st::minimal_detectable_change(
        c["m"].get<std::size_t>(), c["n"].get<std::size_t>(), c["sigma"].get<double>(),
        c["alpha"].get<double>(), c["power"].get<double>());
    INFO("m=" << c["m"] << " n=" << c["n"] << " simulated power " << c["simulated_power"]);
    CHECK(close(got, c["change"].get<double>(), 1e-9));
    CHECK(c["simulated_power"].get<double>() >= 0.72);
    CHECK(c["simulated_power"].get<double>() <= 0.88);
  }
  CHECK(std::isinf(st::minimal_detectable_change(3, 3, 0.01, 0.05)));
  CHECK(std::isfinite(st::minimal_detectable_change(4, 4, 0.01, 0.05)));
}
