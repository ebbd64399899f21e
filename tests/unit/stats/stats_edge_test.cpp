// The statistics refuse bad input with a clear message, agree with published Mann–Whitney
// tables, and handle the degenerate samples that benchmarks produce (one value, all equal).
#include <cmath>
#include <limits>
#include <vector>

#include <benchledger/error.hpp>
#include <catch2/catch.hpp>

#include "stats/brunner_munzel.hpp"
#include "stats/detectable_change.hpp"
#include "stats/hodges_lehmann.hpp"
#include "stats/kolmogorov_smirnov.hpp"
#include "stats/mann_whitney.hpp"
#include "stats/summary.hpp"

namespace st = benchledger::stats;

TEST_CASE("the exact distribution gives the critical values of published tables") {
  // Two-sided alpha = 0.05 critical values of U (the largest u with P(U <= u) <= 0.025), from
  // the standard Mann–Whitney table (e.g. Siegel & Castellan, table J).
  struct Row {
    std::size_t m, n, critical;
  };
  for (const Row row : {Row{5, 5, 2}, Row{8, 8, 13}, Row{10, 10, 23}, Row{20, 20, 127},
                        Row{6, 9, 10}, Row{12, 15, 49}}) {
    const auto cdf = st::mann_whitney_null_cdf(row.m, row.n);
    INFO("m=" << row.m << " n=" << row.n);
    CHECK((*cdf)[row.critical] <= 0.025);
    CHECK((*cdf)[row.critical + 1] > 0.025);
  }
}

TEST_CASE("the statistics refuse empty samples and non-finite values") {
  const std::vector<double> empty, one{1.0}, nan{1.0, std::numeric_limits<double>::quiet_NaN()};
  CHECK_THROWS_AS(st::quantile_sorted(empty, 0.5), benchledger::Error);
  CHECK_THROWS_AS(st::median(empty), benchledger::Error);
  CHECK_THROWS_WITH(st::mann_whitney_u(empty, one), Catch::Contains("sample x is empty"));
  CHECK_THROWS_WITH(st::mann_whitney_u(one, nan), Catch::Contains("sample y value 1"));
  CHECK_THROWS_AS(st::hodges_lehmann_shift(one, empty, 0.95), benchledger::Error);
  CHECK_THROWS_WITH(st::hodges_lehmann_shift(one, one, 1.0), Catch::Contains("outside (0, 1)"));
  CHECK_THROWS_WITH(st::brunner_munzel(one, one), Catch::Contains("needs 2 values a side"));
  CHECK_THROWS_AS(st::kolmogorov_smirnov(empty, one), benchledger::Error);
  CHECK_THROWS_WITH(st::mann_whitney_null_cdf(200, 200), Catch::Contains("too large"));
  CHECK_THROWS_WITH(st::minimal_detectable_change(5, 5, -1.0, 0.05),
                    Catch::Contains("not a finite non-negative"));
}

TEST_CASE("identical samples give p = 1 and a zero shift") {
  const std::vector<double> same{7, 7, 7, 7, 7};
  const auto mwu = st::mann_whitney_u(same, same);
  CHECK(mwu.p == 1.0);
  CHECK(mwu.ties);
  const auto hl = st::hodges_lehmann_shift(same, same, 0.95);
  CHECK(hl.estimate == 0.0);
  CHECK(hl.low == 0.0);
  CHECK(hl.high == 0.0);
  CHECK(st::kolmogorov_smirnov(same, same).p == 1.0);
  CHECK(st::pooled_log_stddev(same, same) == 0.0);
}

TEST_CASE("one value a side still gives an estimate, with the interval it can support") {
  const std::vector<double> x{100.0}, y{110.0};
  const auto hl = st::hodges_lehmann_ratio(x, y, 0.95);
  CHECK(hl.ratio == Approx(1.1));
  CHECK(hl.low == Approx(1.1));
  CHECK(hl.high == Approx(1.1));
  CHECK(hl.coverage == Approx(0.0));  // a single difference covers nothing
  CHECK(st::mann_whitney_u(x, y).p == 1.0);
}

TEST_CASE("the shift does not depend on the order of the values") {
  std::vector<double> x{3.1, 2.9, 3.0, 3.3, 2.8, 3.05}, y{3.4, 3.2, 3.6, 3.35, 3.5};
  const auto first = st::hodges_lehmann_shift(x, y, 0.95);
  std::reverse(x.begin(), x.end());
  std::rotate(y.begin(), y.begin() + 2, y.end());
  const auto second = st::hodges_lehmann_shift(x, y, 0.95);
  CHECK(first.estimate == second.estimate);
  CHECK(first.low == second.low);
  CHECK(first.high == second.high);
  CHECK(st::mann_whitney_u(x, y).p == st::mann_whitney_u(y, x).p);
}

TEST_CASE("midranks share the mean rank among ties and count the tie term") {
  const std::vector<double> v{10, 20, 10, 30, 10};
  const st::Ranks r = st::midranks(v);
  CHECK(r.rank == std::vector<double>{2, 4, 2, 5, 2});
  CHECK(r.tie_term == 24.0);  // one group of 3: 27 - 3
}

TEST_CASE("quantile_sorted interpolates like numpy's default (type 7)") {
  // numpy.quantile([1, 2, 3, 4], [0, .25, .5, .75, 1]) == [1, 1.75, 2.5, 3.25, 4]
  const std::vector<double> v{1, 2, 3, 4};
  CHECK(st::quantile_sorted(v, 0) == 1);
  CHECK(st::quantile_sorted(v, 0.25) == Approx(1.75));
  CHECK(st::quantile_sorted(v, 0.5) == Approx(2.5));
  CHECK(st::quantile_sorted(v, 0.75) == Approx(3.25));
  CHECK(st::quantile_sorted(v, 1) == 4);
  CHECK(st::quantile_sorted(std::vector<double>{7}, 0.5) == 7);
}
