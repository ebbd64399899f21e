// The outputs of `benchledger detect` (docs/history.md): a terminal table, Markdown and JSON of
// the change points found. Pure functions: the same changes give the same bytes.
#pragma once

#include <string>
#include <vector>

#include "compare/change_detection.hpp"

namespace benchledger::report {

// One row per change point: case, metric, index, run, commit, before, after, change, p, verdict;
// then a line with how many cases and change points there were.
std::string render_changes_table(const std::vector<compare::CaseChanges>& cases);
// GitHub-flavoured Markdown: a table of change points per case that has any.
std::string render_changes_markdown(const std::vector<compare::CaseChanges>& cases);
// {"cases": [{"bench", "params", "metric", "unit", "better", "points", "change_points": [{"index",
// "run", "commit", "time", "before", "after", "change", "p", "verdict"}]}]}; change is a fraction.
std::string render_changes_json(const std::vector<compare::CaseChanges>& cases);

}  // namespace benchledger::report
