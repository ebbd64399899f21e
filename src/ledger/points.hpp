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
#include <unordered_map>
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

// What a point holds of its run: a run's record less what it does not need (its environment
// above all), for keeping many.
struct PointRun {
  std::string id, time;
  std::optional<std::string> label;
  GitState git;
};
PointRun point_run(const RunRecord& run);

// The rows the records give for a result of `run` at `seq`, in the order of the metrics' names.
std::vector<PointRow> point_rows(std::int64_t seq, const PointRun& run, const ResultRecord& result);

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

// `verify` of a table of points, made in the pass that checks the records, so that each record
// is parsed once: every row must be what the records give, and every point the records give must
// have its row; each difference is a break. The records come in ledger order as verify_row()
// parsed them; a result's run is one of them seen before it, kept by id, or else one that
// `find_run` looks up (a run from before the first record handed in, or one no longer kept: the
// runs kept are bounded). A result whose run was not appended before it has no points.
class PointsCheck {
 public:
  // The bytes of the run record `id` if it was appended before position `before`, else nullopt.
  using FindRun =
      std::function<std::optional<std::string>(const std::string& id, std::int64_t before)>;
  // The table's next row, from the first after the position before the first record handed in,
  // in (seq, metric) order, metrics in byte order; false at the end.
  using NextPoint = std::function<bool(PointRow& row)>;

  PointsCheck(FindRun find_run, NextPoint next_point, ChainVerifier& verifier);

  // The record at `seq`, as verify_row() parsed it (nullopt: not a valid record, which gives no
  // points).
  void add(std::int64_t seq, const std::optional<Record>& record);
  // After the last record: the table's rows left are points no record gives.
  void finish();

 private:
  // Each row of the table before `seq`: points no record gives.
  void extras_before(std::int64_t seq);
  void extra(const PointRow& row);
  // The run of id `id` appended before `seq`; nullopt when none.
  const std::optional<PointRun>& run_of(const std::string& id, std::int64_t seq);
  // Keeps `run` (nullopt: none) as the run of id `id`, forgetting every run kept when there are
  // too many.
  const std::optional<PointRun>& keep(const std::string& id, std::optional<PointRun> run);

  FindRun m_find_run;
  NextPoint m_next_point;
  ChainVerifier& m_verifier;
  PointRow m_point;  // the table's row not yet matched, while m_more
  bool m_started = false;
  bool m_more = false;
  // Runs by id (nullopt: none was appended before the result that looked it up).
  std::unordered_map<std::string, std::optional<PointRun>> m_runs;
};

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
