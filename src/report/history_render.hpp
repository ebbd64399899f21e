// The outputs of `benchledger history` (docs/history.md): a terminal table, Markdown, JSON and
// CSV of series. Pure functions: the same series give the same bytes.
#pragma once

#include <string>
#include <vector>

#include "ledger/history.hpp"

namespace benchledger::report {

// Per series a heading line (`case  metric (unit, lower is better)  N runs`), then one row per
// point: run, time, commit (`+dirty` when made from uncommitted changes), centre, interval, n.
std::string render_history_table(const std::vector<ledger::Series>& series);
// The same as GitHub-flavoured Markdown: a heading and a table per series.
std::string render_history_markdown(const std::vector<ledger::Series>& series);
// {"series": [{"bench", "params", "metric", "unit", "better", "points": [{"run", "time",
// "commit", "dirty", "centre", "low", "high", "samples"}]}]}, raw numbers in the unit; ends with
// '\n'.
std::string render_history_json(const std::vector<ledger::Series>& series);
// RFC 4180 CSV with a header row, one row per point: bench, params (canonical JSON), metric,
// unit, better, run, time, commit, dirty, centre, low, high, samples.
std::string render_history_csv(const std::vector<ledger::Series>& series);

}  // namespace benchledger::report
