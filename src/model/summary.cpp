// Metric summaries computed from samples: the one summary builder that records are made with.
#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include <benchledger/error.hpp>
#include <benchledger/record.hpp>

namespace benchledger {

Metric metric_from_samples(std::string unit, Better better, std::vector<double> samples) {
  if (samples.empty()) throw Error("a metric needs at least one sample");
  for (std::size_t i = 0; i < samples.size(); ++i) {
    // A NaN would sort anywhere and poison the mean; an infinity has no place in JSON.
    if (!std::isfinite(samples[i])) {
      throw Error(fmt::format("sample {} is {}, not a finite number", i, samples[i]));
    }
  }
  Metric metric;
  metric.unit = std::move(unit);
  metric.better = better;
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  const double median =
      n % 2 == 1 ? sorted[n / 2] : std::midpoint(sorted[n / 2 - 1], sorted[n / 2]);
  // Mean and spread are computed on the samples scaled by a power of two that brings the largest
  // magnitude near 1: exact for every sample a double holds, and the sums cannot overflow where
  // samples near 1e300 would (squares of 1e200 already do).
  const int exponent = std::ilogb(std::max(std::fabs(sorted.front()), std::fabs(sorted.back())));
  const int shift = exponent == FP_ILOGB0 ? 0 : exponent;
  const auto scaled = [shift](double x) { return std::ldexp(x, -shift); };
  double sum = 0;
  for (double x : sorted) sum += scaled(x);
  const double scaled_mean = sum / static_cast<double>(n);
  double squares = 0;
  for (double x : sorted) {
    const double deviation = scaled(x) - scaled_mean;
    squares += deviation * deviation;
  }
  Summary& s = metric.summary;
  s.min = sorted.front();
  s.max = sorted.back();
  s.n = static_cast<std::int64_t>(n);
  s.mean = std::ldexp(scaled_mean, shift);
  s.median = median;
  s.stddev = n > 1 ? std::ldexp(std::sqrt(squares / static_cast<double>(n - 1)), shift) : 0.0;
  if (!std::isfinite(s.stddev)) {  // the median of finite samples is finite
    throw Error(
        fmt::format("samples from {} to {} spread beyond the range of a double", s.min, s.max));
  }
  metric.value = median;
  metric.samples = std::move(samples);
  return metric;
}

Metric single_value_metric(std::string unit, Better better, double value) {
  Metric m;
  m.unit = std::move(unit);
  m.better = better;
  m.value = value;
  m.summary.n = 1;
  m.summary.mean = m.summary.median = m.summary.min = m.summary.max = value;
  m.summary.stddev = 0;
  return m;
}

}  // namespace benchledger
