// Result records from measurements (docs/design.md, "Records"; the metric names are listed in
// docs/engine.md).
#pragma once

#include <string>

#include <benchledger/record.hpp>

#include "engine/command.hpp"
#include "engine/instructions.hpp"
#include "engine/native.hpp"

namespace benchledger::engine {

// A native case: `time` (ns per operation, one sample per repetition, primary),
// `throughput` (ops/s), `items` (items/s, when declared), `latency` (ns, OPS mode: exact
// mean/min/max, histogram percentiles, no samples) and `peak_rss` (bytes). A failed case is
// a `failed_result`.
ResultRecord native_result(const std::string& run_id, const NativeCase& c,
                           const CaseOutcome& outcome);

// A command: `wall` (ms, primary), `user` and `sys` (ms), `max_rss` (bytes), one sample per
// successful run; ops = measured runs, errors = failed runs.
ResultRecord command_result(const std::string& run_id, const CommandCase& c,
                            const CommandOutcome& outcome);

// Adds a case's counts to `r`: `instructions` (count, per operation of a native case, per run
// of a command) and, under Valgrind, `estimated_cycles` (count, instructions.hpp's cache
// model), both marked deterministic with their counter; with perf also `cycles`,
// `branch_misses` and `cache_misses`, which are not deterministic. All single values, lower is
// better. A result without metrics (instructions measured alone) gets `instructions` as primary
// and the counted operations as ops. A profile in the counts is named by its SHA-256 in the
// result's `profile` field; its bytes are the caller's to keep (ledger/artifacts.hpp).
void add_instruction_metrics(ResultRecord& r, const InstructionCounts& counts);
// A result of counts alone (`--measure instructions` without time).
ResultRecord counted_result(const std::string& run_id, const std::string& bench,
                            const Params& params, const InstructionCounts& counts);

// A case that produced no measurement: metric `failed` (count 1) as primary, the extra field
// `failure` {kind, message, and `stderr` when the failure's output is not empty}, and the given
// ops and errors.
ResultRecord failed_result(const std::string& run_id, const std::string& bench,
                           const Params& params, const CaseFailure& failure, std::int64_t ops,
                           std::int64_t errors);

}  // namespace benchledger::engine
