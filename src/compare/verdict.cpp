// Verdicts from samples: statistics per metric, then one false-discovery-rate adjustment over
// all of them.
#include "compare/verdict.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <utility>

#include <fmt/format.h>
#include <benchledger/error.hpp>

#include "stats/brunner_munzel.hpp"
#include "stats/detectable_change.hpp"
#include "stats/hodges_lehmann.hpp"
#include "stats/kolmogorov_smirnov.hpp"
#include "stats/mann_whitney.hpp"
#include "stats/multiple_testing.hpp"
#include "stats/order_statistics.hpp"
#include "stats/signed_rank.hpp"

namespace benchledger::compare {
namespace {

// The largest size samples_to_reach tries.
constexpr std::size_t k_max_samples_to_reach = 1000;

constexpr std::array<std::pair<Verdict, std::string_view>, 8> k_verdict_names{{
    {Verdict::failed, "failed"},
    {Verdict::regression, "regression"},
    {Verdict::improvement, "improvement"},
    {Verdict::unchanged, "unchanged"},
    {Verdict::inconclusive, "inconclusive"},
    {Verdict::new_case, "new"},
    {Verdict::missing, "missing"},
    {Verdict::accepted_by_change, "accepted by this change"},
}};

bool all_positive(std::span<const double> values) {
  return std::all_of(values.begin(), values.end(), [](double v) { return v > 0.0; });
}

double deciding_p(std::span<const double> base, std::span<const double> current,
                  DecidingTest test) {
  switch (test) {
    case DecidingTest::brunner_munzel: {
      const double p = stats::brunner_munzel(base, current).p;
      // Completely separated samples without spread leave the t approximation undefined
      // (NaN, as in scipy); the exact rank test answers that case.
      if (!std::isnan(p)) return p;
      return stats::mann_whitney_u(base, current).p;
    }
    case DecidingTest::kolmogorov_smirnov:
      return stats::kolmogorov_smirnov(base, current).p;
    case DecidingTest::mann_whitney:
      break;
  }
  return stats::mann_whitney_u(base, current).p;
}

bool paired(const MetricInput& input) {
  return !input.deterministic && input.base_pairs.size() >= k_min_samples &&
         input.base_pairs.size() == input.current_pairs.size() && all_positive(input.base_pairs) &&
         all_positive(input.current_pairs);
}

std::vector<double> log_ratios(const MetricInput& input) {
  std::vector<double> out(input.base_pairs.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = std::log(input.current_pairs[i] / input.base_pairs[i]);
  }
  return out;
}

double log_ratio_stddev(const MetricInput& input) {
  const std::vector<double> ratios = log_ratios(input);
  const double mean =
      std::accumulate(ratios.begin(), ratios.end(), 0.0) / static_cast<double>(ratios.size());
  double squares = 0;
  for (const double r : ratios) squares += (r - mean) * (r - mean);
  return std::sqrt(squares / static_cast<double>(ratios.size() - 1));
}

MetricAssessment measure(const MetricInput& input, const VerdictOptions& options) {
  if (input.base.empty() || input.current.empty()) {
    throw Error("a metric needs at least one value on each side");
  }
  MetricAssessment a;
  a.threshold = input.threshold;
  a.base_n = input.base.size();
  a.current_n = input.current.size();
  a.base_center = stats::median(input.base);
  a.current_center = stats::median(input.current);
  const bool positive = all_positive(input.base) && all_positive(input.current);
  a.deterministic = input.deterministic;
  a.threshold_only = input.deterministic || a.base_n < k_min_samples || a.current_n < k_min_samples;

  if (a.threshold_only) {
    a.change = stats::relative_change(a.base_center, a.current_center);
    if (!positive) a.shift = a.current_center - a.base_center;
    return a;
  }
  const double confidence = 1.0 - options.alpha;
  if (paired(input)) {
    // Pairs measured back to back: host drift slower than a pair falls on both of its halves
    // and leaves the log-ratio alone.
    const std::vector<double> ratios = log_ratios(input);
    const stats::PairedShift hl = stats::hodges_lehmann_paired(ratios, confidence);
    a.pairs = ratios.size();
    a.change = std::expm1(hl.estimate);
    a.ci_low = std::expm1(hl.low);
    a.ci_high = std::expm1(hl.high);
    a.coverage = hl.coverage;
    a.p = stats::wilcoxon_signed_rank(ratios).p;
    return a;
  }
  if (positive) {
    const stats::RatioInterval hl =
        stats::hodges_lehmann_ratio(input.base, input.current, confidence);
    a.change = hl.ratio - 1.0;
    a.ci_low = hl.low - 1.0;
    a.ci_high = hl.high - 1.0;
    a.coverage = hl.coverage;
  } else {
    // Zero or negative values (a count of errors, say) have no ratio: the shift of the values
    // relative to the base centre instead.
    const stats::ShiftInterval hl =
        stats::hodges_lehmann_shift(input.base, input.current, confidence);
    a.coverage = hl.coverage;
    a.shift = hl.estimate;
    const double scale = std::abs(a.base_center);
    if (scale > 0.0) {
      a.change = hl.estimate / scale;
      a.ci_low = hl.low / scale;
      a.ci_high = hl.high / scale;
    } else if (hl.low == 0.0 && hl.high == 0.0) {
      a.change = a.ci_low = a.ci_high = 0.0;
    }
  }
  a.p = deciding_p(input.base, input.current, options.test);
  return a;
}

// The side of the threshold the change lies on, as seen by `better`: +1 worse, -1 better, 0
// within.
int beyond_threshold(double change, double threshold, Better better) {
  const double worse = better == Better::lower ? change : -change;
  if (worse > threshold) return 1;
  if (worse < -threshold) return -1;
  return 0;
}

Verdict by_side(int side) {
  return side > 0 ? Verdict::regression : side < 0 ? Verdict::improvement : Verdict::unchanged;
}

Verdict decide(const MetricAssessment& a, Better better, double alpha) {
  const bool significant = a.p_adjusted && *a.p_adjusted <= alpha;
  if (!a.change) {
    // The base centre is 0 and the current one is not: no ratio, but a move away from zero
    // (errors that appear) is beyond any relative threshold. It still has to be significant
    // when there are enough samples to test.
    const int side = a.shift ? beyond_threshold(*a.shift, 0.0, better) : 0;
    if (side == 0 || (!a.threshold_only && !significant)) return Verdict::inconclusive;
    return by_side(side);
  }
  const int side = beyond_threshold(*a.change, a.threshold, better);
  if (a.threshold_only) return by_side(side);
  if (significant && side > 0) return Verdict::regression;
  if (significant && side < 0) return Verdict::improvement;
  if (a.ci_low && a.ci_high && *a.ci_low >= -a.threshold && *a.ci_high <= a.threshold) {
    return Verdict::unchanged;
  }
  return Verdict::inconclusive;
}

}  // namespace

std::string_view to_string(Verdict verdict) {
  for (const auto& [value, name] : k_verdict_names) {
    if (value == verdict) return name;
  }
  return "inconclusive";
}

Verdict parse_verdict(std::string_view text) {
  for (const auto& [value, name] : k_verdict_names) {
    if (name == text) return value;
  }
  throw Error(fmt::format(
      "unknown verdict \"{}\" (expected failed, regression, improvement, unchanged, inconclusive, "
      "new or missing)",
      text));
}

std::string_view to_string(DecidingTest test) {
  switch (test) {
    case DecidingTest::brunner_munzel:
      return "brunner-munzel";
    case DecidingTest::kolmogorov_smirnov:
      return "kolmogorov-smirnov";
    case DecidingTest::mann_whitney:
      break;
  }
  return "mann-whitney";
}

std::vector<MetricAssessment> assess(std::span<const MetricInput> inputs,
                                     const VerdictOptions& options) {
  if (!(options.alpha > 0.0 && options.alpha < 1.0)) {
    throw Error(fmt::format("alpha {} is outside (0, 1)", options.alpha));
  }
  std::vector<MetricAssessment> out;
  out.reserve(inputs.size());
  std::vector<double> p_values;
  std::vector<std::size_t> tested;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    out.push_back(measure(inputs[i], options));
    if (out.back().p) {
      p_values.push_back(*out.back().p);
      tested.push_back(i);
    }
  }
  const std::vector<double> adjusted = stats::benjamini_hochberg(p_values);
  const std::vector<double> needed = stats::benjamini_hochberg_levels(p_values, options.alpha);
  // The attainable p depends only on the test and the sizes: a suite has few distinct sizes.
  std::map<std::pair<std::size_t, std::size_t>, double> attainable;
  for (std::size_t k = 0; k < tested.size(); ++k) {
    MetricAssessment& a = out[tested[k]];
    a.p_adjusted = adjusted[k];
    a.comparisons = tested.size();
    a.p_needed = needed[k];
    if (a.pairs > 0) {
      a.p_attainable = stats::smallest_signed_rank_p(a.pairs);
      continue;
    }
    if (options.test == DecidingTest::brunner_munzel) continue;  // no bound: see the header
    const auto sizes = std::pair{a.base_n, a.current_n};
    auto found = attainable.find(sizes);
    if (found == attainable.end()) {
      found = attainable.emplace(sizes, smallest_attainable_p(options.test, a.base_n, a.current_n))
                  .first;
    }
    a.p_attainable = found->second;
  }
  // samples_to_reach for every unreachable metric, each with a level of its own: the attainable
  // p of each equal size is computed once, not once a metric (a million metrics of 5 samples a
  // side would each search the sizes from k_min_samples up).
  std::vector<double> attainable_equal;  // of sizes k_min_samples, k_min_samples + 1, ...
  const auto samples_needed = [&](double level) -> std::optional<std::size_t> {
    if (!(level > 0.0 && level <= 1.0)) return samples_to_reach(options.test, level);  // throws
    for (std::size_t size = k_min_samples; size <= k_max_samples_to_reach; ++size) {
      const std::size_t at = size - k_min_samples;
      if (at == attainable_equal.size()) {
        attainable_equal.push_back(smallest_attainable_p(options.test, size, size));
      }
      if (attainable_equal[at] <= level) return size;
    }
    return std::nullopt;
  };
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    MetricAssessment& a = out[i];
    a.verdict = decide(a, inputs[i].better, options.alpha);
    if (a.verdict != Verdict::inconclusive || a.threshold_only) continue;
    // Detectable at the level the adjustment demands of this metric, not at the raw alpha: a
    // change the test cannot make significant among these comparisons is not detectable.
    const bool reachable = !a.p_attainable || *a.p_attainable <= *a.p_needed;
    if (a.pairs > 0) {
      if (!reachable) a.samples_needed = stats::pairs_to_reach(*a.p_needed);
      a.detectable =
          stats::paired_detectable_change(a.pairs, log_ratio_stddev(inputs[i]), *a.p_needed);
      continue;
    }
    if (!reachable) a.samples_needed = samples_needed(*a.p_needed);
    if (all_positive(inputs[i].base) && all_positive(inputs[i].current)) {
      a.detectable =
          reachable ? stats::minimal_detectable_change(
                          a.base_n, a.current_n,
                          stats::pooled_log_stddev(inputs[i].base, inputs[i].current), *a.p_needed)
                    : std::numeric_limits<double>::infinity();
    }
  }
  return out;
}

double smallest_attainable_p(DecidingTest test, std::size_t m, std::size_t n) {
  if (test == DecidingTest::brunner_munzel) {
    throw Error("brunner-munzel has no smallest attainable p-value to compute from sizes alone");
  }
  if (m < 2 || n < 2) {
    throw Error(fmt::format("an attainable p-value needs 2 samples a side, got {} and {}", m, n));
  }
  // The deciding test itself on the most extreme samples there are: every current value above
  // every base value, all distinct. Whatever the test's method at these sizes (exact or normal
  // approximation), this is its smallest p-value for values without ties.
  std::vector<double> base(m), current(n);
  std::iota(base.begin(), base.end(), 1.0);
  std::iota(current.begin(), current.end(), static_cast<double>(m) + 1.0);
  return deciding_p(base, current, test);
}

std::optional<std::size_t> samples_to_reach(DecidingTest test, double level) {
  if (!(level > 0.0 && level <= 1.0)) throw Error(fmt::format("level {} is outside (0, 1]", level));
  // The attainable p falls with N (C(2N, N) grows about fourfold per step), so a linear search
  // ends within a few dozen steps even for very small levels.
  for (std::size_t size = k_min_samples; size <= k_max_samples_to_reach; ++size) {
    if (smallest_attainable_p(test, size, size) <= level) return size;
  }
  return std::nullopt;
}

}  // namespace benchledger::compare
