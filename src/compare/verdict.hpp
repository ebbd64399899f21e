// Verdicts on plain samples (DESIGN.md, "Compare and the gate"): the statistics of one metric
// of one case, base against current, and the verdict once every metric compared in the same
// call has been adjusted for multiple testing together.
//
// The change is current / base - 1 as a fraction (0.1 = 10% larger), from the Hodges–Lehmann
// estimate on log(values) with its distribution-free interval at 1 - alpha. The p-value is the
// deciding test's (Mann–Whitney U unless asked otherwise; docs/statistics.md says why),
// adjusted by Benjamini–Hochberg over every metric of the call.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <benchledger/record.hpp>

namespace benchledger::compare {

enum class Verdict { regression, improvement, unchanged, inconclusive, new_case, missing };

// "regression", "improvement", "unchanged", "inconclusive", "new", "missing".
std::string_view to_string(Verdict verdict);
// The inverse of to_string; throws benchledger::Error naming the word and the choices.
Verdict parse_verdict(std::string_view text);

// The two-sample test whose p-value decides significance.
enum class DecidingTest { mann_whitney, brunner_munzel, kolmogorov_smirnov };
std::string_view to_string(DecidingTest test);

// Fewer samples than this on either side: no test, only the threshold applies.
inline constexpr std::size_t k_min_samples = 3;

struct VerdictOptions {
  double alpha = 0.05;  // false discovery rate, and 1 - the interval's confidence
  DecidingTest test = DecidingTest::mann_whitney;
};

struct MetricInput {
  std::span<const double> base, current;  // at least one value each, all finite
  Better better = Better::lower;
  double threshold = 0.05;  // fraction: 0.05 = 5%
};

struct MetricAssessment {
  std::size_t base_n = 0, current_n = 0;
  double base_center = 0, current_center = 0;  // medians
  // current / base - 1; absent when the base centre is 0 and the values are not all positive.
  std::optional<double> change;
  std::optional<double> ci_low, ci_high;  // the interval of the change; absent when threshold_only
  double coverage = 0;                    // what the interval actually covers (small samples)
  std::optional<double> p, p_adjusted;    // absent when threshold_only
  // The smallest change these sample sizes and this noise could detect (fraction, may be
  // infinite: too few samples for the test to reach alpha at all); set for inconclusive
  // verdicts when the values are positive.
  std::optional<double> detectable;
  bool threshold_only = false;  // fewer than k_min_samples on a side
  double threshold = 0.05;
  Verdict verdict = Verdict::inconclusive;
};

// Every metric's statistics, then Benjamini–Hochberg over all the p-values, then verdicts:
// regression or improvement when p_adjusted <= alpha and the change lies beyond the threshold
// on that side (direction from `better`); unchanged when the whole interval lies within
// +-threshold; inconclusive otherwise. With fewer than k_min_samples a side only the
// threshold applies to the change of the medians. Deterministic. Throws benchledger::Error on
// an empty or non-finite sample.
std::vector<MetricAssessment> assess(std::span<const MetricInput> inputs,
                                     const VerdictOptions& options);

}  // namespace benchledger::compare
