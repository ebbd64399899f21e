// A comparison judged on paired rounds cancels drift that pooled samples cannot, and its headline
// never says "passed" for a case it could not decide.
#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "compare/comparison.hpp"
#include "comparison_fixture.hpp"
#include "report/compare_render.hpp"
#include "stats/sequential.hpp"

using namespace benchledger;
using namespace benchledger::testing;
using Catch::Contains;
using Catch::Matchers::WithinAbs;

namespace {

// Twelve rounds whose machine speed drifts by up to +-40% from round to round (the same in both
// halves of a pair) with 0.5% of noise of its own in each measurement: what a loaded runner does.
std::vector<double> drifting(double factor) {
  std::vector<double> out;
  for (int i = 0; i < 12; ++i) {
    const double drift = 1.0 + 0.4 * std::sin(1.7 * i);
    const double noise = 1.0 + 0.005 * std::cos(2.3 * i + factor);
    out.push_back(100.0 * factor * drift * noise);
  }
  return out;
}

struct PairedSides {
  compare::Side base, current;
  compare::CompareOptions options;
};

// One case, `loop`, whose base and current samples are the rounds' values (one a round), paired
// by round when `paired`.
PairedSides sides(const std::vector<double>& base, const std::vector<double>& current,
                  bool paired) {
  PairedSides s;
  s.base.runs.push_back(sample_run(k_base_run, "base"));
  s.current.runs.push_back(sample_run(k_current_run, "head"));
  s.base.results.push_back(result_with(k_base_run, "01JDQ8Z6X0000000000000B101", "loop", {}, base));
  s.current.results.push_back(
      result_with(k_current_run, "01JDQ8Z6X0000000000000C101", "loop", {}, current));
  if (paired) s.options.pairs[case_key("loop", {})]["time"] = {base, current};
  return s;
}

compare::CaseComparison judge(const PairedSides& s) {
  const compare::ComparisonReport report = compare::compare_sides(s.base, s.current, {}, s.options);
  REQUIRE(report.cases.size() == 1);
  return report.cases.front();
}

}  // namespace

TEST_CASE("paired rounds find a 10% regression that drift hides from pooled samples") {
  const std::vector<double> base = drifting(1.0), head = drifting(1.1);
  const compare::CaseComparison pooled = judge(sides(base, head, false));
  CHECK(pooled.verdict == compare::Verdict::inconclusive);
  CHECK(pooled.pairs == 0);

  const compare::CaseComparison paired = judge(sides(base, head, true));
  CHECK(paired.verdict == compare::Verdict::regression);
  CHECK(paired.pairs == 12);
  REQUIRE(paired.change);
  CHECK_THAT(*paired.change, WithinAbs(0.10, 0.01));
  REQUIRE(paired.ci_low);
  CHECK(*paired.ci_low > 0.05);
}

TEST_CASE("paired rounds of the same code under drift are unchanged") {
  const compare::CaseComparison paired = judge(sides(drifting(1.0), drifting(1.0), true));
  CHECK(paired.verdict == compare::Verdict::unchanged);
}

TEST_CASE("too few pairs say how many would reach significance") {
  std::vector<double> base = drifting(1.0), head = drifting(1.3);
  base.resize(5);
  head.resize(5);
  const compare::CaseComparison paired = judge(sides(base, head, true));
  CHECK(paired.verdict == compare::Verdict::inconclusive);
  CHECK_THAT(paired.remark, Contains("5 pairs of rounds cannot reach significance") &&
                                Contains("need >= 6 pairs"));
}

TEST_CASE("an undecided comparison is never titled passed, and fails only when asked to") {
  // Noise of +-40% without pairing: the interval crosses the threshold.
  PairedSides s = sides(drifting(1.0), drifting(1.02), false);
  compare::ComparisonReport report = compare::compare_sides(s.base, s.current, {}, s.options);
  REQUIRE(report.cases.front().verdict == compare::Verdict::inconclusive);
  CHECK(report.state == compare::GateState::undecided);
  CHECK(report.gate_pass);
  const std::string markdown = report::render_comparison_markdown(report);
  CHECK_THAT(markdown, Contains("### benchledger compare: **gate undecided**: 1 case "
                                "could not be decided (not failed)"));
  CHECK_THAT(markdown, !Contains("gate passed"));
  CHECK_THAT(report::render_comparison_table(report, false),
             Contains("gate: UNDECIDED (1 case could not be decided; passes"));
  CHECK_THAT(report::render_comparison_json(report), Contains("\"state\": \"undecided\""));

  s.options.undecided_fails = true;
  report = compare::compare_sides(s.base, s.current, {}, s.options);
  CHECK(report.state == compare::GateState::undecided);
  CHECK_FALSE(report.gate_pass);
  CHECK_THAT(report::render_comparison_markdown(report),
             Contains("**gate undecided**: 1 case could not be decided (failed)"));
}

TEST_CASE("settled looks keep each case as the first look that decided it") {
  const PairedSides decided = sides(drifting(1.0), drifting(1.1), true);
  const PairedSides undecided = sides(drifting(1.0), drifting(1.1), false);
  const compare::ComparisonReport first =
      compare::compare_sides(undecided.base, undecided.current, {}, undecided.options);
  const compare::ComparisonReport second =
      compare::compare_sides(decided.base, decided.current, {}, decided.options);
  const compare::ComparisonReport third =
      compare::compare_sides(undecided.base, undecided.current, {}, undecided.options);
  const std::vector<compare::ComparisonReport> looks{first, second, third};
  const compare::ComparisonReport settled = compare::settle_looks(looks, 0.05);
  CHECK(settled.looks == 3);
  CHECK(settled.alpha == 0.05);
  REQUIRE(settled.cases.size() == 1);
  CHECK(settled.cases.front().verdict == compare::Verdict::regression);
  CHECK(settled.count(compare::Verdict::regression) == 1);
  CHECK(settled.count(compare::Verdict::inconclusive) == 0);
  CHECK(settled.state == compare::GateState::failed);
  CHECK_FALSE(settled.gate_pass);
  CHECK_THROWS(compare::settle_looks({}, 0.05));
}

namespace {

// What a run of simulated A/A gates ended in.
struct AaOutcome {
  int alarms = 0;     // regression or improvement: false alarms, the code being the same
  int unchanged = 0;  // decided within the threshold
  int pairs = 0;      // pairs measured in all
};

// A/A gates as the sequential gate runs them: `planned` pairs, then more pairs while the case is
// undecided, looking when `next` says (after one pair: a look per pair; stats::next_look: the
// gate's), up to `most` pairs with a last look there, each look k at `level(k)`. Every pair's two
// halves share the host's drift (a random factor of up to +-30%) and differ only by 2% of noise
// each; the threshold is `threshold`.
AaOutcome aa_gates(int gates, std::size_t planned, std::size_t most, double threshold,
                   const std::function<double(int)>& level,
                   const std::function<std::size_t(std::size_t)>& next) {
  std::mt19937_64 random(20261127);
  std::uniform_real_distribution<double> drift(0.7, 1.3);
  std::normal_distribution<double> noise(0.0, 0.02);
  AaOutcome out;
  for (int gate = 0; gate < gates; ++gate) {
    std::vector<double> base, head;
    std::size_t look_at = planned;
    for (int look = 1;; ++look) {
      while (base.size() < look_at) {
        const double host = drift(random);
        base.push_back(100.0 * host * std::exp(noise(random)));
        head.push_back(100.0 * host * std::exp(noise(random)));
      }
      PairedSides s = sides(base, head, true);
      s.options.alpha = level(look);
      s.options.threshold = threshold;
      const compare::Verdict verdict = judge(s).verdict;
      if (verdict == compare::Verdict::regression || verdict == compare::Verdict::improvement) {
        ++out.alarms;
        break;
      }
      if (verdict == compare::Verdict::unchanged) ++out.unchanged;
      if (verdict != compare::Verdict::inconclusive || base.size() >= most) break;
      look_at = std::min(most, next(base.size()));
    }
    out.pairs += static_cast<int>(base.size());
  }
  return out;
}

std::size_t every_pair(std::size_t pairs) {
  return pairs + 1;
}

}  // namespace

TEST_CASE(
    "a look after every pair keeps the A/A false alarms at alpha; re-testing at alpha does not") {
  const int gates = 400;
  // A 1% threshold, which 2% of noise keeps most gates from calling unchanged early: they look
  // again and again, up to 40 pairs, where re-testing at a fixed alpha goes wrong.
  const int spent =
      aa_gates(
          gates, 10, 40, 0.01, [](int look) { return stats::look_level(0.05, look); }, every_pair)
          .alarms;
  const int naive = aa_gates(
                        gates, 10, 40, 0.01, [](int) { return 0.05; }, every_pair)
                        .alarms;
  INFO("false alarms in " << gates << " A/A gates: " << spent << " with the looks' levels, "
                          << naive << " re-testing at 0.05");
  CHECK(spent <= gates * 5 / 100);
  CHECK(naive > spent);
}

TEST_CASE(
    "looks spaced by half as many pairs again decide more A/A gates unchanged, in fewer "
    "pairs, than a look per pair, and keep the false alarms at alpha") {
  const int gates = 400;
  const auto level = [](int look) { return stats::look_level(0.05, look); };
  // A 3% threshold against 2.8% of noise in each pair's log-ratio: ten pairs cannot show it, a
  // few dozen can.
  const AaOutcome spaced = aa_gates(gates, 10, 40, 0.03, level, stats::next_look);
  const AaOutcome each = aa_gates(gates, 10, 40, 0.03, level, every_pair);
  INFO("of " << gates << " A/A gates up to 40 pairs: spaced looks " << spaced.unchanged
             << " unchanged, " << spaced.alarms << " false alarms, " << spaced.pairs
             << " pairs; a look per pair " << each.unchanged << " unchanged, " << each.alarms
             << " false alarms, " << each.pairs << " pairs");
  CHECK(spaced.alarms <= gates * 5 / 100);
  CHECK(spaced.unchanged > each.unchanged);
  CHECK(spaced.pairs < each.pairs);
}
