// Measures the cost of a steady-clock read once per process.
#include "engine/clock.hpp"

#include <algorithm>
#include <array>

namespace benchledger::engine {

namespace {

double measure_clock_read_ns() {
  constexpr int k_reads = 10000;
  std::array<double, 21> costs{};
  for (double& cost : costs) {
    const std::int64_t start = now_ns();
    std::int64_t last = start;
    for (int i = 0; i < k_reads; ++i) last = now_ns();
    cost = static_cast<double>(last - start) / k_reads;
  }
  std::nth_element(costs.begin(), costs.begin() + costs.size() / 2, costs.end());
  return std::max(costs[costs.size() / 2], 1.0);
}

}  // namespace

double clock_read_ns() {
  static const double cost = measure_clock_read_ns();
  return cost;
}

}  // namespace benchledger::engine
