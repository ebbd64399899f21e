// A database store's table of points (SQLite's, PostgreSQL's): each result's metrics with its
// run's fields, one row per metric, as the records give them. What the stores share: the rows a
// result gives, the check `verify` makes of a table against the records, and the reading of a
// table's rows into the points of `history` (scan_points, store_scans.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <benchledger/record.hpp>

#include "ledger/chain.hpp"
#include "ledger/store_scans.hpp"

namespace benchledger::ledger {

// A row of a table of points, as the records give it or as the table holds it.
struct PointRow {
  std::string bench, params, metric;
  std::int64_t seq = 0;  // the result's position
  std::string result;
  std::int64_t is_primary = 0;
  std::string unit, better, run, time;
  std::optional<std::string> label, branch, git_commit;
  std::int64_t dirty = 0;
  std::vector<double> numbers;  // centre, low, high, min, max
  std::int64_t samples = 0;
};

// The rows the records give for a result of `run` at `seq`, in the order of the metrics' names.
std::vector<PointRow> point_rows(std::int64_t seq, const RunRecord& run,
                                 const ResultRecord& result);

// A record of type T from its bytes, or nullopt when they are not one (verify reports them).
template <class T>
std::optional<T> parsed_as(std::string_view bytes) {
  try {
    auto record = parse_record(bytes);
    if (auto* typed = std::get_if<T>(&record)) return std::move(*typed);
  } catch (const Error&) {
  }
  return std::nullopt;
}

// The rows the records give for results read in ledger order, each with its run's bytes (none
// unless the run was appended before it: such a result has no place in a history); a run's
// record is parsed once for all of its results. A record that does not parse gives no rows.
class WantedPoints {
 public:
  std::vector<PointRow> of(std::int64_t seq, const std::optional<std::string_view>& run_bytes,
                           std::string_view result_bytes);

 private:
  std::string m_run_bytes;
  std::optional<RunRecord> m_run;
};

// A result as `verify` of a table of points reads it: its position, its bytes and its run's.
struct PointSource {
  std::int64_t seq = 0;
  std::string bytes;
  std::optional<std::string> run_bytes;
};

// `verify` of a table of points: every row must be what the records give, and every point the
// records give must have its row; each difference is a break. `next_result` gives the results in
// ledger order, `next_point` the table's rows in (seq, metric) order, metrics in byte order; each
// returns false at the end.
void verify_points(const std::function<bool(PointSource& result)>& next_result,
                   const std::function<bool(PointRow& row)>& next_point, ChainVerifier& verifier);

// A row of a table of points as a reader of it gets it: the columns scan_points() needs.
struct PointColumns {
  std::string_view bench, params, metric;
  std::int64_t seq = 0;
  std::string_view result, unit, better, run, time;
  std::optional<std::string_view> label, git_commit;
  bool dirty = false;
  double centre = 0, low = 0, high = 0, min = 0, max = 0;
  std::int64_t samples = 0;
};

// Makes the points of scan_points() from a table's rows read in (bench, params, metric, seq)
// order: a series' rows come together, so its case is parsed and matched once for all of them,
// and one SeriesCase made for them.
class PointReader {
 public:
  // `cases`: the query's globs; `name`: the store, for messages.
  PointReader(std::vector<std::string> cases, std::string name);
  // The row's point, or nullopt when its case matches none of the globs. Throws IntegrityError
  // for params or a `better` that the records could not have given.
  std::optional<StoredPoint> point(const PointColumns& row);

 private:
  std::vector<std::string> m_cases;
  std::string m_name;
  std::string m_bench, m_params_json;
  Params m_params;
  bool m_matches = false;
  std::shared_ptr<const SeriesCase> m_series;
};

}  // namespace benchledger::ledger
