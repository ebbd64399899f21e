// A log-linear latency histogram: fixed memory (7,424 counters, 58 KiB), any unsigned
// 64-bit nanosecond value, and quantiles within 0.4% of the exact ones.
//
// Values below 128 ns have a bucket each. Above, every power of two [2^e, 2^(e+1)) is cut
// into 128 equal buckets, so a bucket is at most 1/128 of its lower bound wide and its
// midpoint, which quantile() returns, is within 1/256 (0.39%) of any value in it. Count,
// sum, minimum and maximum are kept exactly, so mean and max are exact.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace benchledger::engine {

class LatencyHistogram {
 public:
  static constexpr int k_sub_bits = 7;
  static constexpr std::uint64_t k_sub = std::uint64_t{1} << k_sub_bits;
  static constexpr std::size_t k_buckets = (64 - k_sub_bits + 1) * k_sub;

  // Records one value; a negative value (a clock that stepped back) counts as 0.
  void record(std::int64_t ns) noexcept {
    const std::uint64_t v = ns < 0 ? 0 : static_cast<std::uint64_t>(ns);
    ++m_counts[index_of(v)];
    ++m_count;
    m_sum += v;
    const auto x = static_cast<long double>(v);
    m_sum_squares += x * x;
    if (v < m_min) m_min = v;
    if (v > m_max) m_max = v;
  }

  // For a timing loop that keeps count, sum and extremes in registers: counts one value in
  // its bucket only; add_moments() then adds those values' count, sum, sum of squares,
  // minimum and maximum.
  void count_bucket(std::uint64_t v) noexcept { ++m_counts[index_of(v)]; }
  void add_moments(std::uint64_t count, std::uint64_t sum, long double sum_squares,
                   std::uint64_t min, std::uint64_t max) noexcept;

  static std::size_t index_of(std::uint64_t v) noexcept {
    if (v < k_sub) return static_cast<std::size_t>(v);
    const int exponent = 63 - __builtin_clzll(v);
    const int shift = exponent - k_sub_bits;
    return static_cast<std::size_t>(shift + 1) * k_sub +
           static_cast<std::size_t>((v >> shift) - k_sub);
  }
  // The smallest value of bucket `index` and how many values it spans.
  static std::uint64_t bucket_low(std::size_t index) noexcept;
  static std::uint64_t bucket_width(std::size_t index) noexcept;

  void merge(const LatencyHistogram& other) noexcept;
  void clear() noexcept;

  std::uint64_t count() const noexcept { return m_count; }
  double mean() const noexcept;
  double stddev() const noexcept;  // sample standard deviation (n - 1); 0 below two values
  std::uint64_t min() const noexcept { return m_count == 0 ? 0 : m_min; }
  std::uint64_t max() const noexcept { return m_max; }
  // The nearest-rank quantile (the smallest recorded value v with P(X <= v) >= q), as the
  // midpoint of its bucket clamped to [min, max]. q in [0, 1]; 0 for an empty histogram.
  double quantile(double q) const noexcept;

 private:
  std::array<std::uint64_t, k_buckets> m_counts{};
  std::uint64_t m_count = 0;
  std::uint64_t m_sum = 0;
  long double m_sum_squares = 0;
  std::uint64_t m_min = ~std::uint64_t{0};
  std::uint64_t m_max = 0;
};

}  // namespace benchledger::engine
