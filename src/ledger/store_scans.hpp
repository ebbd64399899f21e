// The storage shortcuts behind the Store interface: reads whose answer a pass over Store's public
// members gives, which a store may give faster from what it keeps (a record's stored bytes, its
// indexes, columns of points). They are internal, so that the public interface stays what a
// library user needs and a store's layout can change without changing it: `history`, the
// report's trends and `compare` call the functions at the end of this file, which use the store's
// shortcut when it has one (scans_of) and the public interface when it has none.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <benchledger/ledger.hpp>
#include <benchledger/record.hpp>

namespace benchledger::ledger {

// Which results `benchledger history` follows: results whose case matches one of `cases`, in runs
// that match every filter given. A case matches a glob (fnmatch, as the config's thresholds) that
// matches its bench name or its case_key (`sort/uniform{"n":2000}`); no globs: every case.
struct SeriesQuery {
  std::vector<std::string> cases;
  std::optional<std::string> label;   // the run's label
  std::optional<std::string> branch;  // the run's recorded git branch
  std::optional<std::string> since;   // RFC 3339 time or date (2026-11-01): runs at or after it
};

// One run's value of a case's metric: a point of `history`, `detect` and the report's trends.
struct SeriesPoint {
  std::string run_id;
  std::string time;                   // the run's time
  std::optional<std::string> label;   // the run's label
  std::optional<std::string> commit;  // the run's git commit, when recorded
  bool dirty = false;                 // made from uncommitted changes
  double centre = 0;                  // the metric's value: the median of its samples
  double low = 0, high = 0;           // 95% interval of the median (stats::median_interval)
  double min = 0, max = 0;            // the metric's recorded range (the centre without samples)
  std::int64_t samples = 1;           // samples behind the centre (1 for a single value)
  std::vector<double> values;         // the samples, sorted (empty when read from a store's
                                      // point columns, which keep the summary alone)
};

// What a series follows: a case's metric in one unit.
struct SeriesCase {
  std::string bench;
  Params params;
  std::string metric, unit;
  Better better = Better::lower;
};

// A point with the result and the series it belongs to, as a store keeps it in columns.
struct StoredPoint {
  std::int64_t position = 0;  // the result's position in the ledger
  std::string result_id;
  // One object for the points of a series that a store reads one after another, so that a
  // reader can tell a series it has just seen by the pointer.
  std::shared_ptr<const SeriesCase> series;
  SeriesPoint point;
};

// What a store implements beside Store for the shortcuts it has. Each member returns false,
// having visited nothing, when the store has no such shortcut (the defaults): the functions below
// then read through the public interface. Called through those functions only.
class StoreScans {
 public:
  virtual ~StoreScans() = default;

  // See scan_results_taking() below.
  virtual bool scan_results_taking(const std::string& run_id,
                                   const std::function<bool(std::string_view bytes)>& take,
                                   const std::function<bool(ResultRecord&& result)>& visit) const;
  // See scan_series() below.
  virtual bool scan_series(
      const SeriesQuery& query,
      const std::function<bool(const RunRecord& run, ResultRecord&& result)>& visit) const;
  // See scan_points() below.
  virtual bool scan_points(const SeriesQuery& query, const std::optional<std::string>& metric,
                           const std::function<void(StoredPoint&& point)>& visit) const;

 protected:
  StoreScans() = default;
  StoreScans(const StoreScans&) = default;
  StoreScans& operator=(const StoreScans&) = default;
};

// The store's shortcuts, or nullptr when it has none (a Store of a library user's own).
const StoreScans* scans_of(const Store& store);

// Store::scan_results() for a reader that needs only a few fields of each result and can read
// them from the stored bytes faster than a whole record is built: `take` is offered the bytes of
// a result of the run first and returns true when it read it from them; a result it does not take
// (or whose bytes the store cannot offer cheaply: every store but NDJSON's) is parsed, checked
// and reported as scan_results() does, and given to `visit`, which returns false to stop. `take`
// must not take bytes that parse_record() would refuse.
void scan_results_taking(const Store& store, const std::string& run_id,
                         const std::function<bool(std::string_view bytes)>& take,
                         const std::function<bool(ResultRecord&& result)>& visit);

// The results a SeriesQuery selects, each with its run, in the order appended (oldest first), one
// at a time in constant memory beyond the matching runs; `visit` returns false to stop. A result
// belongs to a series only when its run was appended before it (as one pass reads). Without a
// shortcut (NDJSON's), one pass of Store::scan(); the database stores query their indexes.
void scan_series(const Store& store, const SeriesQuery& query,
                 const std::function<bool(const RunRecord& run, ResultRecord&& result)>& visit);

// The points of `metric` (each result's primary metric when nullopt) in the results a
// SeriesQuery selects, without their samples, read from columns the store keeps for them rather
// than from the records: case after case, each case's points in the order appended. Returns
// false, having visited nothing, when the store keeps no such columns (all but SQLite's);
// scan_series() is then the way.
bool scan_points(const Store& store, const SeriesQuery& query,
                 const std::optional<std::string>& metric,
                 const std::function<void(StoredPoint&& point)>& visit);

}  // namespace benchledger::ledger
