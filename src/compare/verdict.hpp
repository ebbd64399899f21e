// Verdicts on plain samples (docs/statistics.md): the statistics of one metric
// of one case, base against current, and the verdict once every metric compared in the same
// call has been adjusted for multiple testing together.
//
// The change is current / base - 1 as a fraction (0.1 = 10% larger), from the Hodges–Lehmann
// estimate on log(values) with its distribution-free interval at 1 - alpha. Values that are not
// all positive have no ratio: their change is the shift over the base centre's magnitude,
// (current - base) / |base|, which keeps the sign of the difference when the centres are
// negative. The p-value is the
// deciding test's (Mann–Whitney U unless asked otherwise; docs/statistics.md says why),
// adjusted by Benjamini–Hochberg over every metric of the call.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <benchledger/record.hpp>

namespace benchledger::compare {

// `failed`: the current side of a case did not measure (every run or repetition failed, or it
// counts errors where the base counted none). `missing`: in the base only; `new`: in the
// current only. `accepted_by_change`: the gate's, for a case that fails by the base revision's
// gate configuration and passes only by the head's looser one (compare/gate_configuration.hpp).
// assess() gives only the first four; compare_sides() the next three.
enum class Verdict {
  failed,
  regression,
  improvement,
  unchanged,
  inconclusive,
  new_case,
  missing,
  accepted_by_change
};

// "failed", "regression", "improvement", "unchanged", "inconclusive", "new", "missing",
// "accepted by this change".
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
  // Counts that do not vary with the machine's noise (instructions): no test, however many
  // values, only the change of the medians against the threshold.
  bool deterministic = false;
  // Paired rounds: each round's centre on both sides, pair i being base_pairs[i] and
  // current_pairs[i]. With at least k_min_samples pairs of positive values (and not
  // deterministic) the verdict is the paired one: the signed-rank test and the Hodges–Lehmann
  // interval of the pairs' log-ratios; `base` and `current` then give only the centres.
  std::span<const double> base_pairs = {}, current_pairs = {};
};

struct MetricAssessment {
  std::size_t base_n = 0, current_n = 0;
  std::size_t pairs = 0;                       // judged on this many pairs; 0 when unpaired
  double base_center = 0, current_center = 0;  // medians
  // current / base - 1, or (current - base) / |base centre| for values not all positive; absent
  // when the base centre is 0 and the values are not all positive.
  std::optional<double> change;
  // For values not all positive: the Hodges–Lehmann shift current - base in the metric's unit
  // (the difference of the medians with fewer than k_min_samples a side). Its sign gives the
  // direction when the base centre is 0 and there is no relative change.
  std::optional<double> shift;
  std::optional<double> ci_low, ci_high;  // the interval of the change; absent when threshold_only
  double coverage = 0;                    // what the interval actually covers (small samples)
  std::optional<double> p, p_adjusted;    // absent when threshold_only
  // The largest p-value this metric could have had and still been a discovery after the
  // Benjamini–Hochberg adjustment, the other metrics' p-values as they are: alpha / m for a
  // lone change among m comparisons. Absent when threshold_only.
  std::optional<double> p_needed;
  // The smallest p-value the deciding test can give at these sample sizes (fully separated
  // samples, no ties). Absent when threshold_only, and for Brunner–Munzel, which has no such
  // bound.
  std::optional<double> p_attainable;
  // How many p-values were adjusted together (the m of Benjamini–Hochberg).
  std::size_t comparisons = 0;
  // For an inconclusive verdict whose sizes cannot reach p_needed at all: the samples a side
  // that could (the smallest N with p_attainable(N, N) <= p_needed).
  std::optional<std::size_t> samples_needed;
  // The smallest change these sample sizes and this noise could detect at p_needed (fraction;
  // infinite when p_attainable > p_needed); set for inconclusive verdicts when the values are
  // positive.
  std::optional<double> detectable;
  bool threshold_only = false;  // fewer than k_min_samples on a side, or deterministic
  bool deterministic = false;
  double threshold = 0.05;
  Verdict verdict = Verdict::inconclusive;
};

// Every metric's statistics, then Benjamini–Hochberg over all the p-values, then verdicts:
// regression or improvement when p_adjusted <= alpha and the change lies beyond the threshold
// on that side (direction from `better`); unchanged when the whole interval lies within
// +-threshold; inconclusive otherwise. With fewer than k_min_samples a side only the
// threshold applies to the change of the medians, and so it does for deterministic inputs
// whatever their sizes (identical counts are unchanged). A base centre of 0 (a count of errors that
// was zero) has no relative change: a significant shift away from it is a regression or an
// improvement by its sign whatever the threshold, and with fewer than k_min_samples a side any
// move of the median away from 0 is. Deterministic. Throws benchledger::Error on
// an empty or non-finite sample.
std::vector<MetricAssessment> assess(std::span<const MetricInput> inputs,
                                     const VerdictOptions& options);

// The smallest p-value `test` gives for samples of m and n values: its p on fully separated
// samples without ties (2 / binomial(m + n, m) for the exact Mann–Whitney test). Throws
// benchledger::Error when a size is below 2, and for Brunner–Munzel: its statistic is
// undefined on fully separated samples, and nearly separated ones give smaller p-values
// (1..5 against {4.5, 6, 7, 8, 9}: 3.9e-5 in scipy.stats.brunnermunzel, against 0.0079 for
// Mann–Whitney on separated samples), so sizes alone bound nothing.
double smallest_attainable_p(DecidingTest test, std::size_t m, std::size_t n);

// The smallest N >= k_min_samples for which smallest_attainable_p(test, N, N) <= level, or
// nothing when no N up to 1,000 reaches it. Throws benchledger::Error when level is not in
// (0, 1].
std::optional<std::size_t> samples_to_reach(DecidingTest test, double level);

}  // namespace benchledger::compare
