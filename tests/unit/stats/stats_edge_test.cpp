// The statistics refuse bad input with a clear message, agree with published Mann–Whitney
// tables, and handle the degenerate samples that benchmarks produce (one value, all equal, no
// pairs, only zero differences).
#include <algorithm>
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
#include "stats/order_statistics.hpp"
#include "stats/signed_rank.hpp"

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

TEST_CASE("the paired statistics refuse no differences and non-finite ones") {
  const std::vector<double> empty, inf{0.1, std::numeric_limits<double>::infinity()},
      nan{std::numeric_limits<double>::quiet_NaN()}, some{0.1, -0.2};
  CHECK_THROWS_WITH(st::wilcoxon_signed_rank(inf), Catch::Contains("difference 1 is inf"));
  CHECK_THROWS_WITH(st::wilcoxon_signed_rank(nan), Catch::Contains("not a finite number"));
  CHECK_THROWS_WITH(st::hodges_lehmann_paired(empty, 0.95),
                    Catch::Contains("no differences to estimate a shift from"));
  CHECK_THROWS_WITH(st::hodges_lehmann_paired(nan, 0.95), Catch::Contains("difference 0 is nan"));
  CHECK_THROWS_WITH(st::hodges_lehmann_paired(some, 1.0), Catch::Contains("outside (0, 1)"));
  CHECK_THROWS_WITH(st::hodges_lehmann_paired(some, 0.0), Catch::Contains("outside (0, 1)"));
  CHECK_THROWS_WITH(st::pairs_to_reach(0.0), Catch::Contains("outside (0, 1]"));
  CHECK_THROWS_WITH(st::pairs_to_reach(1.5), Catch::Contains("outside (0, 1]"));
  CHECK_THROWS_WITH(st::signed_rank_null_cdf(51), Catch::Contains("not kept"));
  CHECK_THROWS_WITH(st::paired_detectable_change(10, -0.1, 0.05),
                    Catch::Contains("not a finite non-negative"));
  CHECK_THROWS_WITH(st::paired_detectable_change(10, 0.1, 0.0), Catch::Contains("outside (0, 1)"));
}

TEST_CASE("no differences or only zeros give p = 1 from nothing used") {
  const std::vector<double> empty, zeros{0.0, 0.0, -0.0, 0.0};
  for (const auto& d : {empty, zeros}) {
    const st::SignedRank r = st::wilcoxon_signed_rank(d);
    CHECK(r.p == 1.0);
    CHECK(r.used == 0);
    CHECK(r.statistic == 0.0);
    CHECK_FALSE(r.exact);
  }
  // Zeros are kept for the estimate: the shift of identical rounds is 0, and so is its interval.
  const st::PairedShift hl = st::hodges_lehmann_paired(zeros, 0.95);
  CHECK(hl.estimate == 0.0);
  CHECK(hl.low == 0.0);
  CHECK(hl.high == 0.0);
}

TEST_CASE("one pair gives an estimate but no evidence and an interval that covers nothing") {
  const std::vector<double> one{0.07};
  const st::SignedRank r = st::wilcoxon_signed_rank(one);
  CHECK(r.used == 1);
  CHECK(r.statistic == 1.0);
  CHECK(r.p == 1.0);  // two sign patterns, each half: scipy's exact p is 1
  CHECK(r.exact);
  const st::PairedShift hl = st::hodges_lehmann_paired(one, 0.95);
  CHECK(hl.estimate == 0.07);
  CHECK(hl.low == 0.07);
  CHECK(hl.high == 0.07);
  CHECK(hl.coverage == 0.0);
}

TEST_CASE("five pairs all one way cannot reach 0.05, six can") {
  // scipy.stats.wilcoxon([1, 2, 3, 4, 5], method="exact").pvalue == 0.0625; six give 0.03125.
  const std::vector<double> five{0.01, 0.02, 0.03, 0.04, 0.05},
      six{0.01, 0.02, 0.03, 0.04, 0.05, 0.06};
  CHECK(st::wilcoxon_signed_rank(five).p == 0.0625);
  CHECK(st::wilcoxon_signed_rank(six).p == 0.03125);
  CHECK(st::pairs_to_reach(0.05) == 6u);
  // The widest interval five pairs have, [min, max], covers 1 - 2/32.
  CHECK(st::hodges_lehmann_paired(five, 0.95).coverage == 0.9375);
  CHECK(st::hodges_lehmann_paired(five, 0.95).low == 0.01);
}

TEST_CASE("the paired estimate does not depend on the order of the pairs, and 1,000 pairs work") {
  std::vector<double> d;
  for (int i = 0; i < 1000; ++i) d.push_back(std::sin(i * 0.7) * 0.03 + 0.01);
  const st::PairedShift first = st::hodges_lehmann_paired(d, 0.95);
  const st::SignedRank test = st::wilcoxon_signed_rank(d);
  std::reverse(d.begin(), d.end());
  const st::PairedShift second = st::hodges_lehmann_paired(d, 0.95);
  CHECK(first.estimate == second.estimate);
  CHECK(first.low == second.low);
  CHECK(first.high == second.high);
  CHECK(first.low < first.estimate);
  CHECK(first.estimate < first.high);
  CHECK(first.coverage == Approx(0.95).margin(0.001));
  CHECK_FALSE(test.exact);
  CHECK(test.used == 1000);
  CHECK(test.p < 1e-6);  // a shift of a third of the spread over 1,000 pairs
}
