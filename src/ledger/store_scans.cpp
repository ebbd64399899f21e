// The storage shortcuts (see store_scans.hpp): a store's own when it has them, else the same
// answer read through the public Store interface.
#include "ledger/store_scans.hpp"

#include <unordered_map>

#include "ledger/series_filter.hpp"

namespace benchledger::ledger {

bool StoreScans::scan_results_taking(
    const std::string& /*run_id*/, const std::function<bool(std::string_view bytes)>& /*take*/,
    const std::function<bool(ResultRecord&& result)>& /*visit*/) const {
  return false;
}

bool StoreScans::scan_series(
    const SeriesQuery& /*query*/,
    const std::function<bool(const RunRecord& run, ResultRecord&& result)>& /*visit*/) const {
  return false;
}

bool StoreScans::scan_points(const SeriesQuery& /*query*/,
                             const std::optional<std::string>& /*metric*/,
                             const std::function<void(StoredPoint&& point)>& /*visit*/) const {
  return false;
}

const StoreScans* scans_of(const Store& store) {
  return dynamic_cast<const StoreScans*>(&store);
}

void scan_results_taking(const Store& store, const std::string& run_id,
                         const std::function<bool(std::string_view bytes)>& take,
                         const std::function<bool(ResultRecord&& result)>& visit) {
  if (const StoreScans* scans = scans_of(store);
      scans != nullptr && scans->scan_results_taking(run_id, take, visit))
    return;
  store.scan_results(run_id, visit);
}

void scan_series(const Store& store, const SeriesQuery& query,
                 const std::function<bool(const RunRecord& run, ResultRecord&& result)>& visit) {
  if (const StoreScans* scans = scans_of(store);
      scans != nullptr && scans->scan_series(query, visit))
    return;
  SeriesQuery normal = query;
  normal.since = normalized_since(query.since);
  // A run comes before its results, so the matching runs passed so far are all a result needs.
  std::unordered_map<std::string, RunRecord> runs;
  store.scan([&](const StoredRecord& stored) {
    if (const auto* run = std::get_if<RunRecord>(&stored.record)) {
      if (run_matches(normal, *run)) runs.emplace(run->header.id, *run);
      return true;
    }
    const auto* result = std::get_if<ResultRecord>(&stored.record);
    if (result == nullptr || !case_matches(normal.cases, result->bench, result->params))
      return true;
    const auto run = runs.find(result->run);
    if (run == runs.end()) return true;
    return visit(run->second, ResultRecord(*result));
  });
}

bool scan_points(const Store& store, const SeriesQuery& query,
                 const std::optional<std::string>& metric,
                 const std::function<void(StoredPoint&& point)>& visit) {
  const StoreScans* scans = scans_of(store);
  return scans != nullptr && scans->scan_points(query, metric, visit);
}

}  // namespace benchledger::ledger
