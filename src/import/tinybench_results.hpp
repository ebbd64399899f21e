// What the vitest and tinybench importers share: vitest runs its benchmarks with tinybench, so
// both files hold tinybench's statistics of a task (in milliseconds) under names their users
// chose, which often carry the case's params (`sort size=1000`).
#pragma once

#include <string>

#include <benchledger/record.hpp>

#include "import/json_input.hpp"

namespace benchledger::import::detail {

struct NamedCase {
  std::string bench;
  Params params;
};

// A task's name as a case: each blank-separated `key=value` word is a param (an integer or a
// number when its value is one), the other words, joined by one blank, the name. `prefix` (a
// vitest group's `fullName`: the file and its describe blocks) comes first, joined by " > "; a
// name of params alone is named by the prefix.
NamedCase case_from_name(const std::string& prefix, const std::string& name);

// Where a harness keeps tinybench's median and sample count: vitest writes `median` and
// `sampleCount`, tinybench 3 and later `p50` and `samplesCount`.
struct StatisticNames {
  const char* median;
  const char* count;
};

// A metric in `unit` from tinybench's statistics object `stats` at JSON path `path`: its
// samples when it has a non-empty `samples` array; else its median as the value, with its
// count, mean, sd, min, max and the p50, p99 and p999 percentiles as the summary. Throws Error
// naming the field that is missing or not a number.
Metric metric_from_statistics(const json& stats, const StatisticNames& names,
                              const std::string& unit, Better better, const std::string& path,
                              const std::string& origin);

// The statistics in `stats` that a metric's summary has no place for (p75, p995, rme, moe, sem,
// variance, aad, mad), with their unit: the result's `tool_statistics` when there are no
// samples to recompute them from.
json other_statistics(const json& stats, const std::string& unit);

}  // namespace benchledger::import::detail
