// The outputs of `benchledger explain` (docs/profiles.md): a table a case on a terminal, and
// JSON with every function of every case; and the same, shorter, under compare's comparison.
#pragma once

#include <cstddef>
#include <ostream>

#include <nlohmann/json.hpp>

#include "compare/explain.hpp"

namespace benchledger::report {

// Each case: its count on both sides and its change, then its `top` functions with the largest
// change (base, head, change, share of the case's change, file:line) and the other functions'
// total; a case without a diff says why. Values per operation, whole numbers with separators.
void write_explanation_text(std::ostream& out, const compare::Explanation& explanation,
                            std::size_t top);

// For compare's Markdown: for each case with a diff one collapsed <details> whose summary names
// the function with the largest change and whose table shows the `top` largest (function, base,
// head, change, share, file:line).
void write_explanation_markdown(std::ostream& out, const compare::Explanation& explanation,
                                std::size_t top);

// {"base_run", "head_run", "cases": [{"bench", "params", "event", "base", "head", "change",
// "base_capped", "head_capped", "functions": [{"name", "file", "line", "base", "head",
// "change", "share"}…], "other": {…}} or {"bench", "params", "missing"}]}; absent values null.
nlohmann::ordered_json explanation_json(const compare::Explanation& explanation);
// explanation_json(), dumped with an indent of 2 and a '\n'.
void write_explanation_json(std::ostream& out, const compare::Explanation& explanation);

// The section under a comparison (compare's and the gate's formats): the regressed cases'
// functions, as the explanation's outputs show them, under a heading and the profiles' `note`; a
// line saying why instead when the profiles could not be read. The table and Markdown show the
// cases with a diff, each with its k_section_top largest changes, and with `list_missing` the
// others with why they have none (nothing at all when there is nothing to show); JSON has every
// function of every case as explanation_json() does, and the note, or {"unreadable": why}.
inline constexpr std::size_t k_section_top = 5;
void write_regression_profiles_text(std::ostream& out, const compare::RegressionProfiles& profiles);
void write_regression_profiles_markdown(std::ostream& out,
                                        const compare::RegressionProfiles& profiles);
nlohmann::ordered_json regression_profiles_json(const compare::RegressionProfiles& profiles);

}  // namespace benchledger::report
