// Fixed runs and results for report tests: ids, times and samples are constants, so that the
// reports made from them can be compared byte for byte with golden files.
#pragma once

#include <string>
#include <vector>

#include <benchledger/record.hpp>

#include "report/report.hpp"

namespace benchledger::report::fixtures {

Env env_epyc();  // an 8-CPU AMD VM in a container
Env env_xeon();  // another machine: other CPU, a CPU quota and a memory limit

// `metric_from_samples` over `n` deterministic samples spread ±`spread` around `centre`.
Metric spread_metric(const std::string& unit, Better better, double centre, double spread, int n);

// The "current" run: executors, postgres (select1 by concurrency, tpcb by clients) and
// pipeline (by pages, two modes), with latency percentiles, errors and peak memory.
RunData current_run();
// The same cases a day earlier, labelled "baseline", on env_xeon(), a few slower.
RunData baseline_run();
// Names and params with Markdown punctuation in them.
RunData awkward_run();

// The shape of the bundled executors and pipeline suites: executors with input statistics as
// params that differ between workloads, pipeline sweeping pages (10, 50) and latency_ms
// (20, 300), two values each.
RunData bundled_suites_run();
// A ledger history for the trends: `count` runs before `last` (oldest first) with the same
// cases, drifting slowly, and then `last` itself.
std::vector<RunData> history_before(const RunData& last, int count);
// `count` runs of the pipeline cases of current_run(), an hour apart and each at its own commit,
// oldest first, with ±1% of noise; from run `step` on (0-based), every case is `factor` times
// slower: one real step change for change-point detection to find.
std::vector<RunData> step_change_history(int count, int step, double factor);
// history_before(current_run(), 5), in which executors/mixed records its time in µs instead of
// ns from the fourth of the six runs on: a case whose unit changed.
std::vector<RunData> unit_change_history();

}  // namespace benchledger::report::fixtures
