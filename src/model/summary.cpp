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
  const double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
  const double mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(n);
  double squares = 0;
  for (double x : sorted) squares += (x - mean) * (x - mean);
  Summary& s = metric.summary;
  s.n = static_cast<std::int64_t>(n);
  s.mean = mean;
  s.median = median;
  s.stddev = n > 1 ? std::sqrt(squares / static_cast<double>(n - 1)) : 0.0;
  s.min = sorted.front();
  s.max = sorted.back();
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
