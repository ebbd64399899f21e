// Shared by the tests of the SQLite and PostgreSQL stores' tables of points: a ledger whose
// history needs every column of a point, the queries `history` makes of it, and the series and
// verify's breaks in a form two stores can be compared in.
#pragma once

#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <catch2/catch.hpp>

#include <benchledger/ledger.hpp>
#include <benchledger/record.hpp>

#include "ledger/history.hpp"
#include "unit/ledger/ledger_support.hpp"

namespace benchledger::testing {

// A ledger's worth of history: three cases over six runs, one with a dirty commit, a label and a
// branch apart, a run and a bench invalidated, a unit changed midway, a result whose primary
// metric differs, and values that need every column (a single value, a NaN-free spread).
inline std::vector<std::vector<Record>> batches() {
  std::vector<std::vector<Record>> out;
  for (int i = 0; i < 6; ++i) {
    auto batch = fresh_batch(i == 3 ? "other" : "nightly", 3, "c0ffee" + std::to_string(i));
    auto& run = std::get<RunRecord>(batch[0]);
    run.git.branch = i == 3 ? "dev" : "main";
    run.git.dirty = i == 2;
    for (std::size_t r = 1; r < batch.size(); ++r) {
      auto& result = std::get<ResultRecord>(batch[r]);
      const double base = 1000.0 * static_cast<double>(r) + 10.0 * i;
      result.metrics["time"] = metric_from_samples(i >= 4 && r == 2 ? "us" : "ns", Better::lower,
                                                   {base * 0.98, base, base * 1.03, base});
      if (r == 3 && i == 1) result.primary = "throughput";
      if (r == 1) result.bench = "hash/insert";
    }
    out.push_back(std::move(batch));
  }
  NoteRecord whole = fresh_note(header_of(out[4][0]).id);
  whole.kind = NoteKind::invalidate;
  NoteRecord bench = fresh_note(header_of(out[1][0]).id);
  bench.kind = NoteKind::invalidate;
  bench.bench = "hash/insert";
  out.push_back({whole, bench});
  return out;
}

// The series with what differs between two stores (run ids, times) and the samples left out.
inline std::vector<std::string> comparable(const std::vector<ledger::Series>& series) {
  std::vector<std::string> out;
  for (const auto& s : series) {
    std::string line = case_key(s.bench, s.params) + " " + s.metric + " " + s.unit;
    for (const auto& p : s.points) {
      line += fmt::format(" [{} {} {} {} {} {} {} {} {}]", p.commit.value_or("-"), p.dirty,
                          p.label.value_or("-"), p.centre, p.low, p.high, p.min, p.max, p.samples);
    }
    out.push_back(line);
  }
  return out;
}

// Every break verify reports, one a line.
inline std::string breaks(const ledger::VerifyReport& report) {
  std::string all;
  for (const auto& b : report.breaks) all += b.problem + "\n";
  return all;
}

inline std::vector<ledger::HistoryOptions> queries() {
  std::vector<ledger::HistoryOptions> out(7);
  out[1].query.cases = {"executors/*"};
  out[2].query.label = "nightly";
  out[3].query.branch = "dev";
  out[4].metric = "throughput";
  out[5].last = 2;
  out[6].query.cases = {"hash/insert", "executors/sort{*\"i\":2*"};
  return out;
}

// Whether `store` serves `history` from a table of points that holds a point.
inline bool served_from_points(const ledger::Store& store) {
  bool served = false;
  const bool kept =
      ledger::scan_points(store, {}, std::nullopt, [&](ledger::StoredPoint&&) { served = true; });
  return kept && served;
}

// Checks that every query of queries() gives from `store` the series that `reference` (an
// NDJSON store, which reads its records) gives: from its points, and with samples, from its
// records.
inline void check_history_as(const ledger::Store& reference, const ledger::Store& store) {
  for (auto options : queries()) {
    const auto expected = comparable(ledger::collect_series(reference, options));
    INFO(fmt::format("{}", fmt::join(expected, "\n")));
    CHECK_FALSE(expected.empty());
    CHECK(comparable(ledger::collect_series(store, options)) == expected);
    options.samples = true;  // the records, as detect reads them
    CHECK(comparable(ledger::collect_series(store, options)) == expected);
  }
}

}  // namespace benchledger::testing
