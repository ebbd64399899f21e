// PointsCheck, verify's check of a table of points in the records' pass: a result's run is one of
// the records handed in, kept by id, and looked up only when it is not (one from before them, or
// one forgotten when too many were kept); a result appended before its run has no points; the
// table's rows are matched in (seq, metric) order, a row the records do not give named as extra.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "ledger/points.hpp"
#include "unit/ledger/ledger_support.hpp"
#include "unit/ledger/points_support.hpp"

using namespace benchledger;
using namespace benchledger::ledger;
using namespace benchledger::testing;

namespace {

// A table of points and the runs before the records handed in, as a store gives them, with the
// look-ups PointsCheck makes counted.
struct FakeStore {
  std::vector<PointRow> table;
  std::size_t next = 0;
  std::map<std::string, std::pair<std::int64_t, std::string>> runs_before;  // id: seq, bytes
  std::vector<std::string> looked_up;

  PointsCheck check(ChainVerifier& verifier) {
    return PointsCheck(
        [this](const std::string& id, std::int64_t before) -> std::optional<std::string> {
          looked_up.push_back(id);
          const auto found = runs_before.find(id);
          if (found == runs_before.end() || found->second.first >= before) return std::nullopt;
          return found->second.second;
        },
        [this](PointRow& row) {
          if (next == table.size()) return false;
          row = table[next++];
          return true;
        },
        verifier);
  }
  // The points the records give for `result` at `seq`, into the table.
  void points_of(std::int64_t seq, const Record& run, const Record& result) {
    for (PointRow& row :
         point_rows(seq, point_run(std::get<RunRecord>(run)), std::get<ResultRecord>(result))) {
      table.push_back(std::move(row));
    }
  }
};

Record result_of(const Record& run, std::int64_t i) {
  ResultRecord result = sample_result(header_of(run).id, new_ulid());
  result.params["i"] = i;
  return result;
}

}  // namespace

TEST_CASE("a result's run is kept from the records, looked up only from before them") {
  FakeStore store;
  ChainVerifier verifier("ledger", "record", std::nullopt);
  // Record 3, before the records handed in: a run.
  const Record before = sample_run(new_ulid(), "nightly");
  store.runs_before[header_of(before).id] = {3, serialize(before)};
  // Records 4 to 10: two results of that run, a run and its result, a result before its run, the
  // run and its result.
  const Record later = sample_run(new_ulid(), "nightly");
  const Record swapped = sample_run(new_ulid(), "other");
  const std::vector<std::pair<std::int64_t, Record>> records = {
      {4, result_of(before, 0)},  {5, result_of(before, 1)},  {6, later},
      {7, result_of(later, 2)},   {8, result_of(swapped, 3)}, {9, swapped},
      {10, result_of(swapped, 4)}};
  store.points_of(4, before, records[0].second);
  store.points_of(5, before, records[1].second);
  store.points_of(7, later, records[3].second);
  store.points_of(10, swapped, records[6].second);

  PointsCheck check = store.check(verifier);
  for (const auto& [seq, record] : records) check.add(seq, record);
  check.finish();
  const VerifyReport report = verifier.finish();
  INFO(breaks(report));
  CHECK(report.ok);
  // The run before the records once for both of its results, the one after its result once.
  CHECK(store.looked_up == std::vector<std::string>{header_of(before).id, header_of(swapped).id});
}

TEST_CASE("points the records do not give are named, also past the last record") {
  FakeStore store;
  ChainVerifier verifier("ledger", "record", std::nullopt);
  const Record run = sample_run(new_ulid(), "nightly");
  const Record result = result_of(run, 0);
  store.points_of(2, run, result);  // latency, throughput, time
  PointRow on_run = store.table.back();
  on_run.seq = 1;
  PointRow past_last = store.table.front();
  past_last.seq = 3;
  store.table.insert(store.table.begin(), on_run);
  store.table.push_back(past_last);

  PointsCheck check = store.check(verifier);
  check.add(1, run);
  check.add(2, result);
  check.finish();
  const VerifyReport report = verifier.finish();
  CHECK(report.break_count == 2);
  CHECK_THAT(breaks(report), Catch::Contains("ledger: record 1: the table of points holds a point "
                                             "(metric time) that the records do not give") &&
                                 Catch::Contains("ledger: record 3: the table of points holds a "
                                                 "point (metric latency) that the records do not "
                                                 "give"));
  CHECK(store.looked_up.empty());
}

TEST_CASE("runs past the ones kept are forgotten, and looked up again when a result needs one") {
  FakeStore store;
  ChainVerifier verifier("ledger", "record", std::nullopt);
  // Record 1 a run, then as many runs again as are kept (the first is forgotten), then a result
  // of the first run.
  const Record first = sample_run(new_ulid(), "nightly");
  const std::int64_t last = 1 + 65536 + 1;
  const Record result = result_of(first, 0);
  store.points_of(last, first, result);
  store.runs_before[header_of(first).id] = {1, serialize(first)};  // the store has it too
  PointsCheck check = store.check(verifier);
  check.add(1, first);
  RunRecord run = sample_run(new_ulid(), "nightly");
  for (std::int64_t seq = 2; seq < last; ++seq) {
    run.header.id = new_ulid();
    check.add(seq, Record(run));
  }
  check.add(last, result);
  check.finish();
  const VerifyReport report = verifier.finish();
  INFO(breaks(report));
  CHECK(report.ok);
  CHECK(store.looked_up == std::vector<std::string>{header_of(first).id});
}
