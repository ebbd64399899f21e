// Look levels. Half the error rate goes to the first look, which is the one planned for: a
// gate that rarely needs another round then tests at alpha/2, not at a level shrunk for looks
// that seldom come. The rest is spread as 1/j^2, which sums to a finite total for any number
// of looks while falling slowly (look 10 still gets alpha/2 * 0.0075).
#include "stats/sequential.hpp"

#include <algorithm>
#include <numbers>

#include <fmt/format.h>
#include <benchledger/error.hpp>

namespace benchledger::stats {

double look_level(double alpha, int look) {
  if (!(alpha > 0.0 && alpha < 1.0)) throw Error(fmt::format("alpha {} is outside (0, 1)", alpha));
  if (look < 1) throw Error(fmt::format("look {} is not a look: looks count from 1", look));
  if (look == 1) return alpha / 2.0;
  const auto later = static_cast<double>(look - 1);
  return alpha / 2.0 * 6.0 / (std::numbers::pi * std::numbers::pi * later * later);
}

std::size_t next_look(std::size_t pairs) {
  if (pairs == 0) throw Error("a look needs at least one pair before it");
  return std::max(pairs + 1, (3 * pairs + 1) / 2);
}

}  // namespace benchledger::stats
