// The log-linear histogram gives percentiles within 1% of the exact ones (numpy is the
// oracle), exact mean and max, in fixed memory.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include "engine/histogram.hpp"
#include "engine_test_support.hpp"

using benchledger::engine::LatencyHistogram;
namespace test = benchledger::test;

TEST_CASE("every value falls in a bucket that contains it, at most 1/128 of its lower bound wide") {
  std::mt19937_64 random(7);
  std::vector<std::uint64_t> values = {0,   1,    127,   128,   129,        255,
                                       256, 1000, 65535, 65536, 1ULL << 40, (1ULL << 63) - 1};
  for (int i = 0; i < 100000; ++i) values.push_back(random() >> (random() % 64));
  for (std::uint64_t v : values) {
    const std::size_t index = LatencyHistogram::index_of(v);
    REQUIRE(index < LatencyHistogram::k_buckets);
    const std::uint64_t low = LatencyHistogram::bucket_low(index);
    const std::uint64_t width = LatencyHistogram::bucket_width(index);
    REQUIRE(low <= v);
    REQUIRE(v - low < width);
    if (low >= 128) REQUIRE(static_cast<double>(width) <= static_cast<double>(low) / 128.0);
  }
}

TEST_CASE("the histogram's memory does not grow with the values it records") {
  LatencyHistogram histogram;
  const auto size = sizeof(histogram);
  for (std::int64_t v = 1; v < (std::int64_t{1} << 61); v *= 3) histogram.record(v);
  CHECK(sizeof(histogram) == size);
  CHECK(size < 64 * 1024);
}

TEST_CASE("percentiles over a million latencies are within 1% of numpy's exact percentiles") {
  // Log-normal latencies around 50 µs with a heavy tail, plus a cluster of 5 ms stalls.
  std::mt19937_64 random(20251122);
  std::lognormal_distribution<double> body(std::log(50000.0), 0.6);
  std::uniform_real_distribution<double> stall(4.5e6, 5.5e6);
  std::bernoulli_distribution is_stall(0.003);
  std::vector<std::int64_t> values(1'000'000);
  LatencyHistogram histogram;
  long double sum = 0;
  std::int64_t max = 0;
  for (auto& v : values) {
    v = static_cast<std::int64_t>(is_stall(random) ? stall(random) : body(random));
    histogram.record(v);
    sum += v;
    max = std::max(max, v);
  }
  test::ScratchDir dir;
  const auto file = dir.path() / "latencies.bin";
  {
    std::ofstream out(file, std::ios::binary);
    out.write(reinterpret_cast<const char*>(values.data()),
              static_cast<std::streamsize>(values.size() * sizeof(std::int64_t)));
  }
  const std::string script =
      "import numpy as np, sys\n"
      "x = np.fromfile(sys.argv[1], dtype='<i8').astype(np.float64)\n"
      "q = np.percentile(x, [50, 90, 95, 99, 99.9], method='inverted_cdf')\n"
      "print(' '.join(repr(float(v)) for v in q), repr(float(x.mean())), repr(float(x.max())))\n";
  const auto script_file = dir.path() / "oracle.py";
  std::ofstream(script_file) << script;
  const auto oracle =
      test::shell(test::python3() + " " + script_file.string() + " " + file.string());
  REQUIRE(oracle.status == 0);
  std::istringstream in(oracle.out);
  std::array<double, 5> exact{};
  double exact_mean = 0, exact_max = 0;
  for (double& q : exact) in >> q;
  in >> exact_mean >> exact_max;
  REQUIRE(in);

  const std::array<double, 5> qs = {0.50, 0.90, 0.95, 0.99, 0.999};
  for (std::size_t i = 0; i < qs.size(); ++i) {
    INFO("quantile " << qs[i] << ": histogram " << histogram.quantile(qs[i]) << ", numpy "
                     << exact[i]);
    CHECK(std::fabs(histogram.quantile(qs[i]) - exact[i]) <= 0.01 * exact[i]);
  }
  CHECK(histogram.count() == values.size());
  CHECK(histogram.mean() == Approx(exact_mean).epsilon(1e-12));
  CHECK(static_cast<double>(histogram.max()) == exact_max);
  CHECK(static_cast<double>(histogram.max()) == static_cast<double>(max));
  CHECK(histogram.mean() == Approx(static_cast<double>(sum / values.size())).epsilon(1e-12));
}

TEST_CASE("merged histograms answer as one histogram of all the values") {
  LatencyHistogram a, b, all;
  for (std::int64_t v = 1; v <= 10000; ++v) {
    (v % 2 == 0 ? a : b).record(v * 37);
    all.record(v * 37);
  }
  a.merge(b);
  CHECK(a.count() == all.count());
  CHECK(a.mean() == all.mean());
  CHECK(a.max() == all.max());
  CHECK(a.min() == all.min());
  for (double q : {0.1, 0.5, 0.9, 0.99}) CHECK(a.quantile(q) == all.quantile(q));
}

TEST_CASE("a negative duration counts as zero and an empty histogram answers zero") {
  LatencyHistogram histogram;
  CHECK(histogram.quantile(0.5) == 0);
  CHECK(histogram.mean() == 0);
  histogram.record(-5);
  CHECK(histogram.count() == 1);
  CHECK(histogram.max() == 0);
}
