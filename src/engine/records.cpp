// Measurements to result records.
#include "engine/records.hpp"

#include <algorithm>
#include <functional>
#include <vector>

#include <fmt/format.h>

#include <benchledger/error.hpp>

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

// The metric `name` of the case `r` from samples; a sample that is not a finite number (a NaN from
// a timer or a counter) refuses the run, naming the case and the metric.
void add_metric(ResultRecord& r, const std::string& name, std::string unit, Better better,
                std::vector<double> samples) {
  try {
    r.metrics[name] = metric_from_samples(std::move(unit), better, std::move(samples));
  } catch (const Error& e) {
    throw Error(
        fmt::format("case {}: metric \"{}\": {}", case_key(r.bench, r.params), name, e.what()));
  }
}

}  // namespace

ResultRecord failed_result(const std::string& run_id, const std::string& bench,
                           const Params& params, const CaseFailure& failure, std::int64_t ops,
                           std::int64_t errors) {
  ResultRecord r = new_result(run_id, bench, params);
  r.metrics["failed"] = single_value_metric("count", Better::lower, 1);
  r.primary = "failed";
  r.ops = ops;
  r.errors = errors;
  r.header.extra["failure"] = {{"kind", failure.kind}, {"message", failure.message}};
  if (!failure.output.empty()) r.header.extra["failure"]["stderr"] = failure.output;
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
  add_metric(r, "time", "ns", Better::lower, m.time_ns);
  add_metric(r, "throughput", "ops/s", Better::higher, m.throughput);
  if (m.items_per_op > 0) {
    std::vector<double> items = m.throughput;
    for (double& x : items) x *= m.items_per_op;
    add_metric(r, "items", "items/s", Better::higher, items);
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

void add_instruction_metrics(ResultRecord& r, const InstructionCounts& counts) {
  const bool alone = r.metrics.empty();
  const auto add = [&](const char* name, double value, bool deterministic) {
    Metric m = single_value_metric("count", Better::lower, value);
    m.deterministic = deterministic;
    m.counter = std::string(to_string(counts.counter));
    r.metrics[name] = std::move(m);
  };
  add("instructions", counts.instructions, true);
  if (counts.estimated_cycles) add("estimated_cycles", *counts.estimated_cycles, true);
  if (counts.cycles) add("cycles", *counts.cycles, false);
  if (counts.branch_misses) add("branch_misses", *counts.branch_misses, false);
  if (counts.cache_misses) add("cache_misses", *counts.cache_misses, false);
  // The artifact's hash: the record, and so the chain, covers the profile's bytes (the run's
  // front-end writes them beside the ledger before it appends).
  if (counts.profile) r.header.extra["profile"] = sha256_hex(*counts.profile);
  if (alone) {
    r.primary = "instructions";
    r.ops = counts.ops;
  }
}

ResultRecord counted_result(const std::string& run_id, const std::string& bench,
                            const Params& params, const InstructionCounts& counts) {
  ResultRecord r = new_result(run_id, bench, params);
  add_instruction_metrics(r, counts);
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
  add_metric(r, "wall", "ms", Better::lower, m.wall_ms);
  add_metric(r, "user", "ms", Better::lower, m.user_ms);
  add_metric(r, "sys", "ms", Better::lower, m.sys_ms);
  // Where the kernel samples the user/sys split on timer ticks (4 ms at 250 Hz), one tick
  // moves between the two at random, but their sum is the scheduler's exact runtime: `cpu`
  // is the CPU time to gate on.
  std::vector<double> cpu_ms(m.user_ms.size());
  std::transform(m.user_ms.begin(), m.user_ms.end(), m.sys_ms.begin(), cpu_ms.begin(),
                 std::plus<>());
  add_metric(r, "cpu", "ms", Better::lower, std::move(cpu_ms));
  add_metric(r, "max_rss", "bytes", Better::lower, m.max_rss_bytes);
  r.primary = "wall";
  r.ops = m.runs;
  r.errors = m.errors;
  return r;
}

}  // namespace benchledger::engine
