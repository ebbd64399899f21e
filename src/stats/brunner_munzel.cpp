// Brunner–Munzel, following scipy.stats.brunnermunzel term by term.
#include "stats/brunner_munzel.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>
#include <benchledger/error.hpp>
#include <boost/math/distributions/students_t.hpp>

#include "stats/order_statistics.hpp"

namespace benchledger::stats {

BrunnerMunzelResult brunner_munzel(std::span<const double> x, std::span<const double> y) {
  const std::size_t nx = x.size(), ny = y.size();
  if (nx < 2 || ny < 2) {
    throw Error(
        fmt::format("the brunner-munzel test needs 2 values a side, got {} and {}", nx, ny));
  }
  std::vector<double> combined(x.begin(), x.end());
  combined.insert(combined.end(), y.begin(), y.end());
  for (std::size_t i = 0; i < combined.size(); ++i) {
    if (!std::isfinite(combined[i])) {
      throw Error(fmt::format("value {} is {}, not a finite number", i, combined[i]));
    }
  }
  const Ranks overall = midranks(combined);
  const Ranks within_x = midranks(x), within_y = midranks(y);
  const double nxd = static_cast<double>(nx), nyd = static_cast<double>(ny);
  double mean_cx = 0, mean_cy = 0, mean_x = 0, mean_y = 0;
  for (std::size_t i = 0; i < nx; ++i) {
    mean_cx += overall.rank[i];
    mean_x += within_x.rank[i];
  }
  for (std::size_t j = 0; j < ny; ++j) {
    mean_cy += overall.rank[nx + j];
    mean_y += within_y.rank[j];
  }
  mean_cx /= nxd;
  mean_cy /= nyd;
  mean_x /= nxd;
  mean_y /= nyd;
  double sx = 0, sy = 0;
  for (std::size_t i = 0; i < nx; ++i) {
    const double d = overall.rank[i] - within_x.rank[i] - mean_cx + mean_x;
    sx += d * d;
  }
  for (std::size_t j = 0; j < ny; ++j) {
    const double d = overall.rank[nx + j] - within_y.rank[j] - mean_cy + mean_y;
    sy += d * d;
  }
  sx /= nxd - 1.0;
  sy /= nyd - 1.0;

  BrunnerMunzelResult result;
  const double spread = nxd * sx + nyd * sy;
  const double diff = mean_cy - mean_cx;
  result.statistic = spread > 0 ? nxd * nyd * diff / ((nxd + nyd) * std::sqrt(spread))
                                : (diff > 0   ? 1.0
                                   : diff < 0 ? -1.0
                                              : 0.0) *
                                      std::numeric_limits<double>::infinity();
  const double df_denominator =
      (nxd * sx) * (nxd * sx) / (nxd - 1.0) + (nyd * sy) * (nyd * sy) / (nyd - 1.0);
  if (!(df_denominator > 0)) {
    result.df = std::numeric_limits<double>::quiet_NaN();
    result.p = std::numeric_limits<double>::quiet_NaN();
    return result;
  }
  result.df = spread * spread / df_denominator;
  const boost::math::students_t t(result.df);
  const double lower = boost::math::cdf(t, -std::abs(result.statistic));
  result.p = std::min(1.0, 2.0 * lower);
  return result;
}

}  // namespace benchledger::stats
