// The pieces every importer builds its results from. Internal to src/import.
#pragma once

#include <string>
#include <utility>

#include <benchledger/record.hpp>

namespace benchledger::import {

// A result with a fresh id and time and no run yet (the caller's run sets it).
inline ResultRecord new_result(std::string bench, Params params = {}) {
  ResultRecord r;
  r.header.id = new_ulid();
  r.header.time = now_rfc3339();
  r.header.prev = std::string(k_zero_hash);
  r.bench = std::move(bench);
  r.params = std::move(params);
  return r;
}

// A metric of one value, without samples: n = 1, every statistic that value.
inline Metric single_value(std::string unit, Better better, double value) {
  Metric m;
  m.unit = std::move(unit);
  m.better = better;
  m.value = value;
  m.summary.n = 1;
  m.summary.mean = m.summary.median = m.summary.min = m.summary.max = value;
  return m;
}

}  // namespace benchledger::import
