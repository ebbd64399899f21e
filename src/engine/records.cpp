// Measurements to result records.
#include "engine/records.hpp"

#include <algorithm>

namespace benchledger::engine {

namespace {

ResultRecord new_result(const std::string& run_id, const std::string& bench, const Params& params) {
  ResultRecord r;
  r.header.id = new_ulid();
  r.header.time = now_rfc3339();
  r.header.prev = std::string(k_zero_hash);  // the store sets it on append
  r.run = run_id;
  r.bench = bench;
  r.params = params;
  return r;
}

Metric latency_metric(const LatencySummary& l) {
  Metric m;
  m.unit = "ns";
  m.better = Better::lower;
  m.value = l.p50;
  m.summary.n = l.n;
  m.summary.mean = l.mean;
  m.summary.median = l.p50;
  m.summary.stddev = l.stddev;
  m.summary.min = l.min;
  m.summary.max = l.max;
  m.summary.p50 = l.p50;
  m.summary.p90 = l.p90;
  m.summary.p95 = l.p95;
  m.summary.p99 = l.p99;
  m.summary.p999 = l.p999;
  return m;
}

}  // namespace

Metric single_value_metric(std::string unit, Better better, double value) {
  Metric m;
  m.unit = std::move(unit);
  m.better = better;
  m.value = value;
  m.summary.n = 1;
  m.summary.mean = m.summary.median = m.summary.min = m.summary.max = value;
  m.summary.stddev = 0;
  return m;
}

ResultRecord failed_result(const std::string& run_id, const std::string& bench,
                           const Params& params, const CaseFailure& failure, std::int64_t ops,
                           std::int64_t errors) {
  ResultRecord r = new_result(run_id, bench, params);
  r.metrics["failed"] = single_value_metric("count", Better::lower, 1);
  r.primary = "failed";
  r.ops = ops;
  r.errors = errors;
  r.header.extra["failure"] = {{"kind", failure.kind}, {"message", failure.message}};
  return r;
}

ResultRecord native_result(const std::string& run_id, const NativeCase& c,
                           const CaseOutcome& outcome) {
  if (!outcome.measurement) {
    // The case as a whole is the one operation that failed: ops = errors = 1.
    return failed_result(run_id, c.bench, c.params,
                         outcome.failure.value_or(CaseFailure{"error", "no measurement"}), 1, 1);
  }
  const CaseMeasurement& m = *outcome.measurement;
  ResultRecord r = new_result(run_id, c.bench, c.params);
  r.metrics["time"] = metric_from_samples("ns", Better::lower, m.time_ns);
  r.metrics["throughput"] = metric_from_samples("ops/s", Better::higher, m.throughput);
  if (m.items_per_op > 0) {
    std::vector<double> items = m.throughput;
    for (double& x : items) x *= m.items_per_op;
    r.metrics["items"] = metric_from_samples("items/s", Better::higher, items);
  }
  if (m.latency && m.latency->n > 0) r.metrics["latency"] = latency_metric(*m.latency);
  if (m.peak_rss_bytes) {
    r.metrics["peak_rss"] =
        single_value_metric("bytes", Better::lower, static_cast<double>(*m.peak_rss_bytes));
  }
  r.primary = "time";
  r.ops = m.ops;
  r.errors = m.errors;
  if (!m.error_codes.empty()) r.header.extra["error_codes"] = m.error_codes;
  return r;
}

ResultRecord command_result(const std::string& run_id, const CommandCase& c,
                            const CommandOutcome& outcome) {
  if (!outcome.measurement) {
    return failed_result(
        run_id, c.bench, c.params, outcome.failure.value_or(CaseFailure{"error", "no measurement"}),
        std::max<std::int64_t>(outcome.runs, 1), std::max<std::int64_t>(outcome.errors, 1));
  }
  const CommandMeasurement& m = *outcome.measurement;
  ResultRecord r = new_result(run_id, c.bench, c.params);
  r.metrics["wall"] = metric_from_samples("ms", Better::lower, m.wall_ms);
  r.metrics["user"] = metric_from_samples("ms", Better::lower, m.user_ms);
  r.metrics["sys"] = metric_from_samples("ms", Better::lower, m.sys_ms);
  r.metrics["max_rss"] = metric_from_samples("bytes", Better::lower, m.max_rss_bytes);
  r.primary = "wall";
  r.ops = m.runs;
  r.errors = m.errors;
  return r;
}

}  // namespace benchledger::engine
