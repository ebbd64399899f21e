// A measurement becomes a result record only when every sample is a number: a NaN or an
// infinity refuses the run with an Error (exit 2) that names the case and the metric.
#include <limits>
#include <string>

#include <benchledger/error.hpp>
#include <catch2/catch.hpp>

#include "engine/records.hpp"

using namespace benchledger;

namespace {

const std::string k_run = "01JD6YW3Z5N0QZ9W9N3P5Q8R2T";

engine::CaseOutcome measured(engine::CaseMeasurement m) {
  engine::CaseOutcome outcome;
  outcome.measurement = std::move(m);
  return outcome;
}

}  // namespace

TEST_CASE("native_result refuses a NaN sample, naming the case and the metric") {
  engine::NativeCase c;
  c.bench = "sort/copy";
  c.params = {{"n", std::int64_t{1000}}};
  engine::CaseMeasurement m;
  m.time_ns = {12.5, std::numeric_limits<double>::quiet_NaN(), 12.0};
  m.throughput = {8e7, 8e7, 8e7};
  CHECK_THROWS_WITH(
      engine::native_result(k_run, c, measured(m)),
      R"(case sort/copy{"n":1000}: metric "time": sample 1 is nan, not a finite number)");
  m.time_ns = {12.5, 12.0, 12.0};
  m.items_per_op = std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH(
      engine::native_result(k_run, c, measured(m)),
      R"(case sort/copy{"n":1000}: metric "items": sample 0 is inf, not a finite number)");
  m.items_per_op = 4;
  const ResultRecord r = engine::native_result(k_run, c, measured(m));
  CHECK(r.metrics.at("items").value == 3.2e8);
}

TEST_CASE("command_result refuses a NaN sample, naming the command and the metric") {
  engine::CommandCase c;
  c.bench = "cmd/sleep";
  engine::CommandOutcome outcome;
  outcome.measurement = engine::CommandMeasurement{};
  outcome.measurement->wall_ms = {1.5, 1.25};
  outcome.measurement->user_ms = {0.5, std::numeric_limits<double>::quiet_NaN()};
  outcome.measurement->sys_ms = {0.25, 0.25};
  outcome.measurement->max_rss_bytes = {1024, 1024};
  CHECK_THROWS_WITH(engine::command_result(k_run, c, outcome),
                    R"(case cmd/sleep{}: metric "user": sample 1 is nan, not a finite number)");
}
