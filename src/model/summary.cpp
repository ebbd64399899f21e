// Metric summaries computed from samples.
#include <algorithm>
#include <cmath>
#include <numeric>

#include <benchledger/error.hpp>
#include <benchledger/record.hpp>

namespace benchledger {

Metric metric_from_samples(std::string unit, Better better, std::vector<double> samples) {
  if (samples.empty()) throw Error("a metric needs at least one sample");
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

}  // namespace benchledger
