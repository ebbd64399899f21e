// Quantiles, merging and moments of the log-linear histogram.
#include "engine/histogram.hpp"

#include <algorithm>
#include <cmath>

namespace benchledger::engine {

std::uint64_t LatencyHistogram::bucket_low(std::size_t index) noexcept {
  if (index < k_sub) return index;
  const std::size_t group = index / k_sub;  // 1 for [128, 256), 2 for [256, 512), ...
  const std::uint64_t mantissa = k_sub + index % k_sub;
  return mantissa << (group - 1);
}

std::uint64_t LatencyHistogram::bucket_width(std::size_t index) noexcept {
  if (index < k_sub) return 1;
  return std::uint64_t{1} << (index / k_sub - 1);
}

void LatencyHistogram::merge(const LatencyHistogram& other) noexcept {
  if (other.m_count == 0) return;
  for (std::size_t i = 0; i < k_buckets; ++i) m_counts[i] += other.m_counts[i];
  m_count += other.m_count;
  m_sum += other.m_sum;
  m_sum_squares += other.m_sum_squares;
  m_min = std::min(m_min, other.m_min);
  m_max = std::max(m_max, other.m_max);
}

void LatencyHistogram::add_moments(std::uint64_t count, std::uint64_t sum, long double sum_squares,
                                   std::uint64_t min, std::uint64_t max) noexcept {
  if (count == 0) return;
  m_count += count;
  m_sum += sum;
  m_sum_squares += sum_squares;
  m_min = std::min(m_min, min);
  m_max = std::max(m_max, max);
}

void LatencyHistogram::clear() noexcept {
  *this = LatencyHistogram{};
}

double LatencyHistogram::mean() const noexcept {
  return m_count == 0 ? 0.0 : static_cast<double>(m_sum) / static_cast<double>(m_count);
}

double LatencyHistogram::stddev() const noexcept {
  if (m_count < 2) return 0.0;
  const auto n = static_cast<long double>(m_count);
  const long double mean = static_cast<long double>(m_sum) / n;
  const long double variance = (m_sum_squares - n * mean * mean) / (n - 1);
  return variance > 0 ? static_cast<double>(std::sqrt(variance)) : 0.0;
}

double LatencyHistogram::quantile(double q) const noexcept {
  if (m_count == 0) return 0.0;
  q = std::clamp(q, 0.0, 1.0);
  // The relative nudge keeps q * n from rounding up past a whole rank (0.999 * 1e6).
  const double exact_rank = q * static_cast<double>(m_count) * (1 - 1e-12);
  const auto rank = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(exact_rank)));
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < k_buckets; ++i) {
    seen += m_counts[i];
    if (seen >= rank) {
      const double low = static_cast<double>(bucket_low(i));
      const double mid = low + static_cast<double>(bucket_width(i) - 1) / 2.0;
      return std::clamp(mid, static_cast<double>(min()), static_cast<double>(m_max));
    }
  }
  return static_cast<double>(m_max);
}

}  // namespace benchledger::engine
