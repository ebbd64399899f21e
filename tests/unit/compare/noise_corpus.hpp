// A generated corpus of benchmark timings with known truth: noise shapes seen in practice
// (gaussian, right-skewed, bimodal, rare large outliers) at a given CV, and a known shift.
// Deterministic on every platform: mt19937_64's output is fixed by the standard, and the
// distributions are computed here rather than by <random>'s implementation-defined ones.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <string_view>
#include <vector>

namespace benchledger::testing {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : m_engine(seed) {}
  double uniform() { return static_cast<double>(m_engine() >> 11) * 0x1.0p-53; }  // [0, 1)
  double normal() {                                                               // Box–Muller
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }
  double exponential() { return -std::log(1.0 - uniform()); }
  std::size_t below(std::size_t n) {
    return static_cast<std::size_t>(uniform() * static_cast<double>(n));
  }

 private:
  std::mt19937_64 m_engine;
};

enum class Shape { gaussian, right_skewed, bimodal, outliers };
inline constexpr std::array<Shape, 4> k_shapes{Shape::gaussian, Shape::right_skewed, Shape::bimodal,
                                               Shape::outliers};

inline std::string_view shape_name(Shape shape) {
  switch (shape) {
    case Shape::gaussian:
      return "gaussian";
    case Shape::right_skewed:
      return "right-skewed";
    case Shape::bimodal:
      return "bimodal";
    case Shape::outliers:
      return "outliers";
  }
  return "?";
}

// One multiplicative noise factor with mean about 1 and coefficient of variation cv:
// - gaussian: 1 + cv Z;
// - right-skewed: 1 + cv (E - 1), E exponential: a hard floor at 1 - cv and a long right tail;
// - bimodal: a fast mode (70%) and a slow mode (30%) a gap apart, each with spread cv/3, the
//   gap chosen so that the whole has CV cv (5% CV: modes about 10% apart);
// - outliers: gaussian with CV cv, and 3% of values slowed by a further 30-100%.
inline double noise(Rng& rng, Shape shape, double cv) {
  switch (shape) {
    case Shape::gaussian:
      return 1.0 + cv * rng.normal();
    case Shape::right_skewed:
      return 1.0 + cv * (rng.exponential() - 1.0);
    case Shape::bimodal: {
      constexpr double slow_share = 0.3;
      const double within = cv / 3.0;
      const double gap = std::sqrt((cv * cv - within * within) / (slow_share * (1.0 - slow_share)));
      const double base = 1.0 - slow_share * gap;
      return base + (rng.uniform() < slow_share ? gap : 0.0) + within * rng.normal();
    }
    case Shape::outliers: {
      const double value = 1.0 + cv * rng.normal();
      return rng.uniform() < 0.03 ? value * (1.3 + 0.7 * rng.uniform()) : value;
    }
  }
  return 1.0;
}

// Timings with two modes, as users' benchmarks often have them (a slower path taken in about a
// fifth of the runs: a cache miss, a frequency step, a page fault): a value is slow_share of
// the time `gap` slower (0.1: 10% slower), and every value has gaussian noise of CV cv on top.
inline double two_modes(Rng& rng, double cv, double slow_share, double gap) {
  const double mode = rng.uniform() < slow_share ? 1.0 + gap : 1.0;
  return mode * (1.0 + cv * rng.normal());
}

inline std::vector<double> draw(Rng& rng, Shape shape, std::size_t n, double cv, double center) {
  std::vector<double> out(n);
  for (double& v : out) v = center * noise(rng, shape, cv);
  return out;
}

}  // namespace benchledger::testing
