// The outputs of `benchledger explain` (docs/profiles.md): a table a case on a terminal, and
// JSON with every function of every case.
#pragma once

#include <cstddef>
#include <ostream>

#include "compare/explain.hpp"

namespace benchledger::report {

// Each case: its count on both sides and its change, then its `top` functions with the largest
// change (base, head, change, share of the case's change, file:line) and the other functions'
// total; a case without a diff says why. Values per operation, whole numbers with separators.
void write_explanation_text(std::ostream& out, const compare::Explanation& explanation,
                            std::size_t top);

// For compare's Markdown: a heading, then for each case with a diff one collapsed <details> whose
// summary names the function with the largest change and whose table shows the `top` largest
// (function, base, head, change, share, file:line). Nothing when no case has a diff.
void write_explanation_markdown(std::ostream& out, const compare::Explanation& explanation,
                                std::size_t top);

// {"base_run", "head_run", "cases": [{"bench", "params", "event", "base", "head", "change",
// "base_capped", "head_capped", "functions": [{"name", "file", "line", "base", "head",
// "change", "share"}…], "other": {…}} or {"bench", "params", "missing"}]}; absent values null.
void write_explanation_json(std::ostream& out, const compare::Explanation& explanation);

}  // namespace benchledger::report
