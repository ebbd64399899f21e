// assess() points a verdict the way `better` says for negative centres and for a count that
// leaves zero, with the p-value scipy gives for the same samples.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "compare/verdict.hpp"
#include "support/process.hpp"

namespace cmp = benchledger::compare;
using benchledger::Better;

namespace {

cmp::MetricAssessment assess_one(const std::vector<double>& base,
                                 const std::vector<double>& current, Better better) {
  const std::vector<cmp::MetricInput> inputs{{base, current, better, 0.05}};
  return cmp::assess(inputs, {}).front();
}

// scipy.stats.mannwhitneyu(base, current).pvalue, from Debian's python3-scipy.
double scipy_mann_whitney_p(const std::string& base, const std::string& current) {
  const char* python = std::getenv("BENCHLEDGER_PYTHON3");
  if (python == nullptr) FAIL("BENCHLEDGER_PYTHON3 must be set (ctest sets it)");
  const std::string script = "from scipy import stats; print(repr(stats.mannwhitneyu(" + base +
                             ", " + current + ", alternative=\"two-sided\").pvalue))";
  const auto answer = benchledger::test_support::run_process({python, "-c", script});
  if (answer.out.empty()) {
    FAIL("scipy gave no answer (install python3-scipy): " << script << "\n" << answer.err);
  }
  return std::strtod(answer.out.c_str(), nullptr);
}

}  // namespace

TEST_CASE("a negative centre keeps the direction of the change, with or without a test") {
  // Lower is better: -10 -> -11 went down by 10%.
  auto a = assess_one({-10.0}, {-11.0}, Better::lower);
  REQUIRE(a.threshold_only);
  REQUIRE(a.change.has_value());
  CHECK(*a.change == Approx(-0.1));
  CHECK(a.verdict == cmp::Verdict::improvement);
  // Higher is better: -10.05 -> -11.05 went down by about 10%.
  a = assess_one({-10.05, -10.05}, {-11.05, -11.05}, Better::higher);
  CHECK(*a.change == Approx(-1.0 / 10.05));
  CHECK(a.verdict == cmp::Verdict::regression);
  // The mirror images.
  CHECK(assess_one({-11.0}, {-10.0}, Better::lower).verdict == cmp::Verdict::regression);
  CHECK(assess_one({-11.05}, {-10.05}, Better::higher).verdict == cmp::Verdict::improvement);
  // Positive centres are unchanged by the fix.
  CHECK(assess_one({10.0}, {11.0}, Better::lower).verdict == cmp::Verdict::regression);
  // With enough samples for a test the verdict agrees: the shift over |base centre|.
  const std::vector<double> base{-10.0, -10.1, -9.9, -10.05, -9.95};
  const std::vector<double> current{-11.0, -11.1, -10.9, -11.05, -10.95};
  CHECK(assess_one(base, current, Better::lower).verdict == cmp::Verdict::improvement);
  CHECK(assess_one(base, current, Better::higher).verdict == cmp::Verdict::regression);
}

TEST_CASE("a count that rises from zero is a regression when the rise is significant") {
  const std::vector<double> zeros(10, 0.0), fives(10, 5.0);
  const auto a = assess_one(zeros, fives, Better::lower);
  CHECK_FALSE(a.change.has_value());  // no relative change from 0
  REQUIRE(a.p_adjusted.has_value());
  CHECK(*a.p_adjusted == Approx(scipy_mann_whitney_p("[0] * 10", "[5] * 10")).epsilon(1e-9));
  CHECK(a.verdict == cmp::Verdict::regression);
  // Falling to zero where higher is better is one too; rising where higher is better is not.
  CHECK(assess_one(fives, zeros, Better::higher).verdict == cmp::Verdict::regression);
  CHECK(assess_one(zeros, fives, Better::higher).verdict == cmp::Verdict::improvement);
}

TEST_CASE("a rise from zero that is not significant stays inconclusive") {
  // 0 0 0 against 0 0 1: scipy's p is far above any alpha.
  const std::vector<double> base{0, 0, 0}, current{0, 0, 1};
  const auto a = assess_one(base, current, Better::lower);
  REQUIRE(a.p.has_value());
  CHECK(*a.p == Approx(scipy_mann_whitney_p("[0, 0, 0]", "[0, 0, 1]")).epsilon(1e-9));
  CHECK(a.verdict == cmp::Verdict::inconclusive);
  // With one sample a side there is no test: any move of the median off zero exceeds the
  // threshold.
  CHECK(assess_one({0.0}, {2.0}, Better::lower).verdict == cmp::Verdict::regression);
  CHECK(assess_one({0.0}, {0.0}, Better::lower).verdict == cmp::Verdict::unchanged);
}

TEST_CASE("a deterministic count is judged by its threshold alone, whatever its sample sizes") {
  // Ten identical counts a side: a test would find nothing, the threshold decides.
  const std::vector<double> base(10, 1000.0), same(10, 1000.0), plus_one(10, 1010.0);
  const auto judge = [](const std::vector<double>& b, const std::vector<double>& c) {
    const std::vector<cmp::MetricInput> inputs{{b, c, Better::lower, 0.005, true}};
    return cmp::assess(inputs, {}).front();
  };
  const cmp::MetricAssessment unchanged = judge(base, same);
  CHECK(unchanged.verdict == cmp::Verdict::unchanged);
  CHECK(unchanged.threshold_only);
  CHECK_FALSE(unchanged.p.has_value());
  CHECK(judge(base, plus_one).verdict == cmp::Verdict::regression);
  CHECK(judge(plus_one, base).verdict == cmp::Verdict::improvement);
  // One value a side, 0.4% apart: within the 0.5% threshold.
  CHECK(judge({1000.0}, {1004.0}).verdict == cmp::Verdict::unchanged);
  // Without the marker, ten values a side of a 1% shift are a tested regression (p from the
  // test), and identical ones have no interval outside the threshold.
  const std::vector<cmp::MetricInput> timed{{base, plus_one, Better::lower, 0.005}};
  CHECK(cmp::assess(timed, {}).front().p.has_value());
}
