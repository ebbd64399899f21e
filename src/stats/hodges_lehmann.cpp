// Hodges–Lehmann shift and interval. Three selections (nth_element) over the m*n differences
// instead of one sort keep a 30 x 30 comparison at a few microseconds.
#include "stats/hodges_lehmann.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>
#include <benchledger/error.hpp>
#include <boost/math/distributions/normal.hpp>

#include "stats/mann_whitney.hpp"
#include "stats/order_statistics.hpp"

namespace benchledger::stats {
namespace {

void check_sample(std::span<const double> sample, const char* name) {
  if (sample.empty()) throw Error(fmt::format("sample {} is empty", name));
  for (std::size_t i = 0; i < sample.size(); ++i) {
    if (!std::isfinite(sample[i])) {
      throw Error(fmt::format("sample {} value {} is {}, not a finite number", name, i, sample[i]));
    }
  }
}

struct OrderStatistic {
  std::size_t k;
  double coverage;
};

OrderStatistic interval_order_statistic(std::size_t m, std::size_t n, double confidence) {
  const double tail = (1.0 - confidence) / 2.0;
  const std::size_t pairs = m * n;
  if (m <= k_exact_max_size && n <= k_exact_max_size) {
    const auto cdf = mann_whitney_null_cdf(m, n);
    // Largest k >= 1 with P(U <= k-1) <= tail; the cdf is increasing, so walk up from k = 1.
    std::size_t k = 1;
    while (k < (pairs + 1) / 2 && (*cdf)[k] <= tail) ++k;
    return {k, 1.0 - 2.0 * (*cdf)[k - 1]};
  }
  const double md = static_cast<double>(m), nd = static_cast<double>(n);
  const double sigma = std::sqrt(md * nd * (md + nd + 1.0) / 12.0);
  const boost::math::normal normal;
  const double z = boost::math::quantile(normal, tail);  // negative
  const double k_real = std::floor(md * nd / 2.0 - 0.5 + z * sigma) + 1.0;
  const auto k =
      static_cast<std::size_t>(std::clamp(k_real, 1.0, static_cast<double>((pairs + 1) / 2)));
  const double below =
      boost::math::cdf(normal, (static_cast<double>(k) - 0.5 - md * nd / 2.0) / sigma);
  return {k, 1.0 - 2.0 * below};
}

}  // namespace

ShiftInterval hodges_lehmann_shift(std::span<const double> x, std::span<const double> y,
                                   double confidence) {
  check_sample(x, "x");
  check_sample(y, "y");
  if (!(confidence > 0.0 && confidence < 1.0)) {
    throw Error(fmt::format("confidence {} is outside (0, 1)", confidence));
  }
  const std::size_t m = x.size(), n = y.size();
  std::vector<double> diffs;
  diffs.reserve(m * n);
  for (const double yj : y) {
    for (const double xi : x) diffs.push_back(yj - xi);
  }
  const OrderStatistic order = interval_order_statistic(m, n, confidence);
  const CentreAndBounds bounds = median_and_bounds(diffs, order.k);
  ShiftInterval result;
  result.k = order.k;
  result.coverage = order.coverage;
  result.estimate = bounds.median;
  result.low = bounds.low;
  result.high = bounds.high;
  return result;
}

RatioInterval hodges_lehmann_ratio(std::span<const double> x, std::span<const double> y,
                                   double confidence) {
  const auto logs = [](std::span<const double> sample, const char* name) {
    std::vector<double> out;
    out.reserve(sample.size());
    for (std::size_t i = 0; i < sample.size(); ++i) {
      if (!(sample[i] > 0.0)) {
        throw Error(fmt::format("sample {} value {} is {}: a ratio needs positive values", name, i,
                                sample[i]));
      }
      out.push_back(std::log(sample[i]));
    }
    return out;
  };
  const std::vector<double> log_x = logs(x, "x"), log_y = logs(y, "y");
  const ShiftInterval shift = hodges_lehmann_shift(log_x, log_y, confidence);
  return {std::exp(shift.estimate), std::exp(shift.low), std::exp(shift.high), shift.coverage};
}

}  // namespace benchledger::stats
