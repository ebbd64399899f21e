// Records with fixed ids and times, for tests of every layer.
#pragma once

#include <benchledger/record.hpp>

namespace benchledger::testing {

inline Env sample_env() {
  Env env;
  env.host = "bench-01";
  env.cpu.model = "AMD EPYC 7B13";
  env.cpu.vendor = "AuthenticAMD";
  env.cpu.arch = "x86_64";
  env.cpu.logical = 2;
  env.cpu.physical = 1;
  env.cpu.sockets = 1;
  env.cpu.online = 2;
  env.cpu.affinity = 2;
  env.cpu.mhz = 2449.998;
  env.cpu.smt = true;
  env.cpu.cache_bytes.l1d = 32768;
  env.cpu.cache_bytes.l2 = 524288;
  env.cpu.cache_bytes.l3 = 33554432;
  env.memory.total_bytes = 25769803776;
  env.os.name = "Debian GNU/Linux";
  env.os.version = "12";
  env.os.kernel = "6.1.0-27-cloud-amd64";
  env.virtualization = "kvm";
  env.container.kind = "docker";
  env.clock.source = "kvm-clock";
  env.clock.read_ns = 24.5;
  env.runtimes.compiler = "gcc 12.2.0";
  env.runtimes.build_type = "Release";
  env.runtimes.node = "v20.20.2";
  env.load_avg = std::vector<double>{0.5, 0.25, 0.125};
  env.fingerprint = std::string(64, 'a');
  return env;
}

inline RunRecord sample_run(const std::string& id = "01JDQ8Z6X0000000000000000A",
                            const std::string& label = "baseline") {
  RunRecord run;
  run.header.id = id;
  run.header.time = "2026-11-22T04:27:59.123456Z";
  run.header.prev = std::string(k_zero_hash);
  run.label = label;
  run.project = "benchledger";
  run.git.commit = "0544d13c0ffee0544d13c0ffee0544d13c0ffee0";
  run.git.branch = "main";
  run.git.dirty = false;
  run.env = sample_env();
  run.warnings = {"cpu governor is unknown"};
  run.command = {"bench-run", "--suite", "executors"};
  run.source = "native";
  return run;
}

inline ResultRecord sample_result(const std::string& run_id = "01JDQ8Z6X0000000000000000A",
                                  const std::string& id = "01JDQ8Z6X0000000000000000B") {
  ResultRecord result;
  result.header.id = id;
  result.header.time = "2026-11-22T04:28:00.000001Z";
  result.header.prev = std::string(k_zero_hash);
  result.run = run_id;
  result.bench = "executors/sort";
  result.params = {{"executor", std::string("pool")},
                   {"n", std::int64_t{2000}},
                   {"mixed", false},
                   {"ratio", 0.5}};
  Metric time = metric_from_samples("ns", Better::lower, {1200.5, 1190.25, 1210.0, 1205.125});
  Metric latency = metric_from_samples("ns", Better::lower, {900, 950, 1000});
  latency.summary.p50 = 950;
  latency.summary.p99 = 1000;
  Metric throughput = metric_from_samples("ops/s", Better::higher, {9377.62});
  throughput.samples.reset();
  result.metrics = {{"time", time}, {"latency", latency}, {"throughput", throughput}};
  result.primary = "time";
  result.ops = 4000;
  result.errors = 2;
  return result;
}

inline NoteRecord sample_note() {
  NoteRecord note;
  note.header.id = "01JDQ8Z6X0000000000000000C";
  note.header.time = "2026-11-22T05:00:00.000000Z";
  note.header.prev = std::string(k_zero_hash);
  note.target = "01JDQ8Z6X0000000000000000B";
  note.bench = "executors/sort";
  note.kind = NoteKind::accept_regression;
  note.text = "the pool now checks bounds; 3% is the price";
  note.author = "ci";
  return note;
}

}  // namespace benchledger::testing
