// The outputs of `benchledger detect` (docs/history.md): a terminal table, Markdown and JSON of
// the change points found. Pure functions: the same changes give the same bytes.
#pragma once

#include <string>
#include <vector>

#include "compare/change_detection.hpp"

namespace benchledger::report {

// A change point is named by its run's id and 1-based position in the series (`41 of 60`: the
// first run after the change), never by a 0-based index.
//
// One row per change point: case, metric, run, position, commit, before, after, change, p,
// verdict; then `notes:` with each series' remark (too few runs to reach significance), when any;
// then a line with how many cases and change points there were.
std::string render_changes_table(const std::vector<compare::CaseChanges>& cases);
// GitHub-flavoured Markdown: per case that has change points or a remark, its remark and a table
// of its change points.
std::string render_changes_markdown(const std::vector<compare::CaseChanges>& cases);
// {"cases": [{"bench", "params", "metric", "unit", "better", "points", "change_points": [{"run",
// "position", "commit", "time", "before", "after", "change", "p", "verdict"}], "remark"}]};
// position is 1-based, change a fraction, remark a string or null.
std::string render_changes_json(const std::vector<compare::CaseChanges>& cases);

}  // namespace benchledger::report
