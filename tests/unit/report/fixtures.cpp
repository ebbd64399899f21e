// Fixed records for report tests (see fixtures.hpp).
#include "fixtures.hpp"

#include <cmath>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "report/content.hpp"
#include "report/format.hpp"

namespace benchledger::report::fixtures {
namespace {

// A 26-character id in the ULID alphabet, fixed by run and result number.
std::string make_id(int run, int result) {
  return fmt::format("01JD{:04d}{:04d}00000000000000", run, result);
}

constexpr double k_mib = 1024.0 * 1024.0;

Metric single(const std::string& unit, Better better, double value) {
  Metric m;
  m.unit = unit;
  m.better = better;
  m.value = value;
  m.summary.n = 1;
  m.summary.mean = m.summary.median = m.summary.min = m.summary.max = value;
  return m;
}

// A latency histogram's summary: n operations, no per-repetition samples.
Metric latency(const std::string& unit, std::int64_t ops, double mean, double p50, double p95,
               double p99) {
  Metric m;
  m.unit = unit;
  m.better = Better::lower;
  m.value = p50;
  m.summary.n = ops;
  m.summary.mean = mean;
  m.summary.median = p50;
  m.summary.stddev = (p95 - p50) / 1.645;
  m.summary.min = p50 * 0.4;
  m.summary.max = p99 * 1.7;
  m.summary.p50 = p50;
  m.summary.p90 = p50 + (p95 - p50) * 0.8;
  m.summary.p95 = p95;
  m.summary.p99 = p99;
  m.summary.p999 = p99 * 1.4;
  return m;
}

Metric scaled(const Metric& m, double factor) {
  Metric out;
  if (m.samples) {
    std::vector<double> samples;
    for (double v : *m.samples) samples.push_back(v * factor);
    out = metric_from_samples(m.unit, m.better, std::move(samples));
  } else {
    out = m;
    out.value *= factor;
    Summary& s = out.summary;
    s.mean *= factor;
    s.median *= factor;
    s.stddev *= factor;
    s.min *= factor;
    s.max *= factor;
  }
  for (auto member : {&Summary::p50, &Summary::p90, &Summary::p95, &Summary::p99, &Summary::p999}) {
    if (m.summary.*member) out.summary.*member = *(m.summary.*member) * factor;
  }
  return out;
}

// Slower by `factor`: times and bytes grow, rates shrink.
ResultRecord slower(ResultRecord r, double factor) {
  for (auto& [name, metric] : r.metrics) {
    const bool rate = metric.unit.size() > 2 && metric.unit.substr(metric.unit.size() - 2) == "/s";
    metric = scaled(metric, rate ? 1 / factor : factor);
  }
  return r;
}

RunRecord make_run(int number, const std::string& time, std::optional<std::string> label, Env env) {
  RunRecord run;
  run.header.id = make_id(number, 0);
  run.header.time = time;
  run.header.prev = std::string(k_zero_hash);
  run.label = std::move(label);
  run.project = "benchledger";
  run.git.commit = sha256_hex("commit " + std::to_string(number)).substr(0, 40);
  run.git.branch = "main";
  run.git.dirty = false;
  run.env = std::move(env);
  run.command = {"bench-run", "--suite", "executors", "--suite", "postgres", "--suite", "pipeline"};
  run.source = "native";
  return run;
}

ResultRecord make_result(const RunRecord& run, int number, std::string bench, Params params) {
  ResultRecord r;
  r.header.id = make_id(std::stoi(run.header.id.substr(4, 4)), number);
  r.header.time = run.header.time;
  r.header.prev = std::string(k_zero_hash);
  r.run = run.header.id;
  r.bench = std::move(bench);
  r.params = std::move(params);
  return r;
}

void renumber(RunData& data, int number, const std::string& time) {
  data.run.header.id = make_id(number, 0);
  data.run.header.time = time;
  int i = 0;
  for (ResultRecord& r : data.results) {
    r.header.id = make_id(number, ++i);
    r.header.time = time;
    r.run = data.run.header.id;
  }
}

}  // namespace

Metric spread_metric(const std::string& unit, Better better, double centre, double spread, int n) {
  std::vector<double> samples;
  for (int i = 0; i < n; ++i) {
    // A fixed permutation of evenly spaced points in [-1, 1].
    const double position = n == 1 ? 0 : static_cast<double>((i * 7) % n) / (n - 1) * 2 - 1;
    samples.push_back(centre * (1 + spread * position));
  }
  return metric_from_samples(unit, better, std::move(samples));
}

Env env_epyc() {
  Env env;
  env.host = "bench-01";
  env.cpu.model = "AMD EPYC 7B13 64-Core Processor";
  env.cpu.vendor = "AuthenticAMD";
  env.cpu.arch = "x86_64";
  env.cpu.logical = 8;
  env.cpu.physical = 4;
  env.cpu.sockets = 1;
  env.cpu.online = 8;
  env.cpu.affinity = 8;
  env.cpu.mhz = 2449.998;
  env.cpu.smt = true;
  env.cpu.cache_bytes = {32768, 524288, 33554432};
  env.memory.total_bytes = 16LL * 1024 * 1024 * 1024;
  env.os = {"Debian GNU/Linux", "12", "6.1.0-18-amd64"};
  env.virtualization = "kvm";
  env.container.kind = "docker";
  env.clock = {"tsc", 18.5};
  env.runtimes.compiler = "gcc 12.2.0";
  env.runtimes.build_type = "Release";
  env.runtimes.python = "3.11.2";
  env.runtimes.postgres_client = "16.11";
  env.load_avg = std::vector<double>{0.52, 0.61, 0.7};
  env.fingerprint = "3f6c0a9be1d24c7f8a5e0b6d9c2f1e4a7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4";
  return env;
}

Env env_xeon() {
  Env env = env_epyc();
  env.host = "ci-runner-7";
  env.cpu.model = "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz";
  env.cpu.vendor = "GenuineIntel";
  env.cpu.mhz = 2899.96;
  env.cpu.quota = 2.0;
  env.memory.limit_bytes = 4LL * 1024 * 1024 * 1024;
  env.cpu.governor = "performance";
  env.load_avg = std::vector<double>{1.91, 1.2, 0.88};
  env.fingerprint = "9d1e77c04b3a2f6e5d8c7b0a1f2e3d4c5b6a79880716253443526170819a0b1c";
  return env;
}

RunData current_run() {
  RunData data;
  data.run = make_run(2, "2026-11-22T04:27:59.123456Z", "current", env_epyc());
  data.run.warnings = {"cpu governor unknown: frequency scaling may add noise",
                       "load average 1.52 was above 1.0 when the run started"};
  int n = 0;
  const auto add = [&](std::string bench, Params params) -> ResultRecord& {
    data.results.push_back(make_result(data.run, ++n, std::move(bench), std::move(params)));
    return data.results.back();
  };

  // Executors: 1,000 sorting tasks at concurrency 50.
  struct Executor {
    const char* name;
    double ops_per_s;
    double latency_ms;
    double rss_mib;
  };
  for (const Executor& e :
       {Executor{"sequential", 988.0, 1.01, 11.1}, Executor{"bounded_pool", 1512.0, 0.66, 19.2},
        Executor{"all_at_once", 1329.0, 0.91, 30.8}}) {
    ResultRecord& r = add("executors/uniform",
                          {{"executor", std::string(e.name)}, {"concurrency", std::int64_t{50}}});
    r.metrics["time"] = spread_metric("ns", Better::lower, 1e9 / e.ops_per_s, 0.04, 10);
    r.metrics["throughput"] = spread_metric("ops/s", Better::higher, e.ops_per_s, 0.04, 10);
    r.metrics["latency"] = latency("ns", 1000, e.latency_ms * 1e6, e.latency_ms * 0.95e6,
                                   e.latency_ms * 2.1e6, e.latency_ms * 3.3e6);
    r.metrics["peak_rss"] = single("bytes", Better::lower, e.rss_mib * k_mib);
    r.primary = "time";
    r.ops = 1000;
  }
  {
    ResultRecord& r = add("executors/mixed", {{"executor", std::string("bounded_pool")},
                                              {"concurrency", std::int64_t{50}}});
    r.metrics["time"] = spread_metric("ns", Better::lower, 1e9 / 1101.0, 0.07, 10);
    r.metrics["throughput"] = spread_metric("ops/s", Better::higher, 1101.0, 0.07, 10);
    r.metrics["peak_rss"] = single("bytes", Better::lower, 24.6 * k_mib);
    r.primary = "time";
    r.ops = 1000;
  }

  // Postgres: SELECT 1 through a warm pool at three concurrencies, with errors at 100.
  struct Load {
    std::int64_t concurrency, ops, errors;
    double ops_per_s, mean_ms, p95_ms;
  };
  for (const Load& l :
       {Load{10, 1000, 0, 9377.62, 1.03, 2.15}, Load{50, 5000, 0, 8276.89, 6.07, 11.84},
        Load{100, 10000, 467, 5167.34, 19.31, 39.64}}) {
    ResultRecord& r =
        add("postgres/select1", {{"pool", std::string("warm")}, {"concurrency", l.concurrency}});
    r.metrics["throughput"] = spread_metric("ops/s", Better::higher, l.ops_per_s, 0.03, 5);
    r.metrics["latency"] =
        latency("ms", l.ops, l.mean_ms, l.mean_ms * 0.9, l.p95_ms, l.p95_ms * 1.6);
    r.primary = "throughput";
    r.ops = l.ops;
    r.errors = l.errors;
  }
  // A TPC-B-like client sweep at scale 1.
  const std::pair<std::int64_t, std::pair<double, double>> clients[] = {
      {1, {1100, 0.9}},  {5, {3600, 1.6}}, {10, {4900, 2.5}},
      {20, {5350, 3.7}}, {50, {4800, 11}}, {100, {3200, 32}}};
  for (const auto& [c, figures] : clients) {
    ResultRecord& r = add("postgres/tpcb", {{"clients", c}, {"scale", std::int64_t{1}}});
    r.metrics["throughput"] = spread_metric("ops/s", Better::higher, figures.first, 0.02, 5);
    r.metrics["latency"] = spread_metric("ms", Better::lower, figures.second, 0.05, 5);
    r.primary = "throughput";
    r.ops = static_cast<std::int64_t>(figures.first * 60);
  }

  // Pipeline: 10, 50 and 100 pages at 20 ms of simulated latency, sequential and pipelined.
  const std::tuple<const char*, std::int64_t, double> pipeline[] = {
      {"sequential", 10, 440}, {"sequential", 50, 2130}, {"sequential", 100, 4240},
      {"pipelined", 10, 250},  {"pipelined", 50, 1090},  {"pipelined", 100, 2140}};
  for (const auto& [mode, pages, wall_ms] : pipeline) {
    ResultRecord& r =
        add("pipeline/fetch_store",
            {{"mode", std::string(mode)}, {"pages", pages}, {"latency_ms", std::int64_t{20}}});
    r.metrics["wall"] = spread_metric("ms", Better::lower, wall_ms, 0.015, 5);
    r.metrics["user"] = spread_metric("ms", Better::lower, wall_ms * 0.08, 0.1, 5);
    r.metrics["peak_rss"] =
        single("bytes", Better::lower, (8.0 + static_cast<double>(pages) * 0.05) * k_mib);
    r.primary = "wall";
    r.ops = pages * 100;
  }
  return data;
}

RunData baseline_run() {
  RunData current = current_run();
  RunData data;
  data.run = make_run(1, "2026-11-21T03:14:15.926535Z", "baseline", env_xeon());
  data.run.command = current.run.command;
  int n = 0;
  for (const ResultRecord& r : current.results) {
    // The baseline is the code before an optimisation of the pool, which made the sequential
    // executor slower: the pool was slower, sequential faster, select1 at 10 faster (too few
    // samples to be sure), the rest is within noise.
    double factor = 1.0;
    if (r.bench == "executors/uniform" && to_string(r.params.at("executor")) == "sequential")
      factor = 0.85;
    if (r.bench == "executors/uniform" && to_string(r.params.at("executor")) == "bounded_pool")
      factor = 1.12;
    if (r.bench == "postgres/select1" && to_string(r.params.at("concurrency")) == "10")
      factor = 0.9;
    if (r.bench == "pipeline/fetch_store" && to_string(r.params.at("mode")) == "pipelined")
      factor = 1.004;
    ResultRecord b = slower(r, factor);
    b.header.id = make_id(1, ++n);
    b.header.time = data.run.header.time;
    b.run = data.run.header.id;
    data.results.push_back(std::move(b));
  }
  // One case the current run no longer has, to show as missing.
  ResultRecord gone =
      make_result(data.run, ++n, "executors/legacy", {{"executor", std::string("fifo")}});
  gone.metrics["time"] = spread_metric("ns", Better::lower, 1.2e6, 0.03, 10);
  gone.primary = "time";
  gone.ops = 1000;
  data.results.push_back(std::move(gone));
  return data;
}

RunData awkward_run() {
  RunData data;
  Env env = env_epyc();
  env.host = "host_name|x";
  env.runtimes.node = "v22.6.0";
  env.cpu.turbo = false;
  data.run = make_run(7, "2026-11-23T10:00:00.000001Z", "feature_x", env);
  data.run.project = "my|proj *draft*";
  data.run.git = {};
  data.run.command = {"bench-run", "--", "sh", "-c", "echo 'a | b'"};
  data.run.source = "command";
  data.run.warnings = {"<b>not bold</b> & *not emphasis* | not a cell"};
  ResultRecord r = make_result(data.run, 1, "odd|suite/a*b_c",
                               {{"sql", std::string("SELECT `x` | y")}, {"n", std::int64_t{3}}});
  r.metrics["wall"] = spread_metric("s", Better::lower, 1.5, 0.01, 3);
  r.metrics["weird_metric"] = single("widgets", Better::higher, 42.0);
  r.primary = "wall";
  data.results.push_back(r);
  ResultRecord plain_bench = make_result(data.run, 2, "plain", {});
  plain_bench.metrics["wall"] = single("us", Better::lower, 0.5);
  plain_bench.primary = "wall";
  data.results.push_back(plain_bench);
  return data;
}

RunData bundled_suites_run() {
  RunData data;
  data.run = make_run(9, "2026-11-24T08:00:00.000001Z", "bundled", env_epyc());
  data.run.command = {"bench-run", "--suite", "executors", "--suite", "pipeline"};
  int n = 0;
  // executors: one bench per workload; the input's fingerprint and length statistics are
  // params that differ between the workloads and never within one.
  const std::tuple<const char*, const char*, double, std::int64_t> workloads[] = {
      {"uniform", "68830aefc472c597", 2000.0, 2000}, {"mixed", "f29a3be0346a6fc8", 1255.192, 505}};
  for (const auto& [workload, sha, len_mean, len_min] : workloads) {
    for (const char* executor : {"sequential", "all_at_once", "pool"}) {
      ResultRecord r = make_result(data.run, ++n, std::string("executors/") + workload,
                                   {{"executor", std::string(executor)},
                                    {"input_sha256", std::string(sha)},
                                    {"len_mean", len_mean},
                                    {"len_min", len_min},
                                    {"len_max", std::int64_t{2000}},
                                    {"limit", std::int64_t{50}},
                                    {"tasks", std::int64_t{1000}}});
      const double ms = 300.0 + 40.0 * n;
      r.metrics["time"] = spread_metric("ms", Better::lower, ms, 0.05, 5);
      r.metrics["throughput"] = spread_metric("ops/s", Better::higher, 1000 / ms, 0.05, 5);
      r.primary = "time";
      r.ops = 5;
      data.results.push_back(std::move(r));
    }
  }
  // pipeline: pages 10 and 50 by latency 20 and 300 ms, sequential and pipelined.
  for (const char* mode : {"sequential", "pipelined"}) {
    for (const std::int64_t pages : {std::int64_t{10}, std::int64_t{50}}) {
      for (const std::int64_t latency_ms : {std::int64_t{20}, std::int64_t{300}}) {
        ResultRecord r = make_result(data.run, ++n, "pipeline/fetch_transform_store",
                                     {{"mode", std::string(mode)},
                                      {"pages", pages},
                                      {"latency_ms", latency_ms},
                                      {"latency_scale", 0.02},
                                      {"page_size", std::int64_t{100}}});
        const double ms = static_cast<double>(pages * latency_ms) * 0.02 *
                          (std::string(mode) == "pipelined" ? 0.6 : 1.0) * 1.2;
        r.metrics["time"] = spread_metric("ms", Better::lower, ms, 0.03, 5);
        r.metrics["throughput"] = spread_metric("ops/s", Better::higher, 1000 / ms, 0.03, 5);
        r.primary = "time";
        r.ops = 5;
        data.results.push_back(std::move(r));
      }
    }
  }
  return data;
}

std::vector<RunData> history_before(const RunData& last, int count) {
  if (count > 20) throw std::invalid_argument("history_before: at most 20 runs");
  std::vector<RunData> runs;
  for (int k = 0; k < count; ++k) {
    RunData data = last;
    data.run.label.reset();
    const int day = 22 - (count - k);
    renumber(data, 100 + k, fmt::format("2026-11-{:02d}T04:27:59.123456Z", day));
    for (ResultRecord& r : data.results)
      r = slower(r, 1.0 + 0.06 * std::sin(k * 0.9) + 0.004 * (count - k));
    runs.push_back(std::move(data));
  }
  runs.push_back(last);
  return runs;
}

std::vector<RunData> step_change_history(int count, int step, double factor) {
  if (count > 24) throw std::invalid_argument("step_change_history: at most 24 runs");
  RunData last = current_run();
  std::erase_if(last.results,
                [](const ResultRecord& r) { return suite_of(r.bench) != "pipeline"; });
  std::vector<RunData> runs;
  for (int k = 0; k < count; ++k) {
    RunData data = last;
    data.run.label = "nightly";
    renumber(data, 200 + k, fmt::format("2026-11-21T{:02d}:00:00.000000Z", k));
    data.run.git.commit = sha256_hex("step commit " + std::to_string(k)).substr(0, 40);
    const double noise = 1.0 + 0.01 * std::sin(k * 1.7);
    for (ResultRecord& r : data.results) r = slower(r, noise * (k >= step ? factor : 1.0));
    runs.push_back(std::move(data));
  }
  return runs;
}

std::vector<RunData> unit_change_history() {
  std::vector<RunData> runs = history_before(current_run(), 5);
  for (std::size_t k = 3; k < runs.size(); ++k) {
    for (ResultRecord& r : runs[k].results) {
      if (r.bench == "executors/mixed")
        r.metrics["time"] = spread_metric("us", Better::lower, 1e6 / 1101.0, 0.07, 10);
    }
  }
  return runs;
}

}  // namespace benchledger::report::fixtures
