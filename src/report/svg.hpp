// Charts as inline SVG for the HTML report: line charts (trends, scaling curves),
// distributions (box plot with every sample drawn over it) and profile charts (a regressed
// case's functions, base against head, as bars).
//
// The palette is Okabe and Ito's ("Color Universal Design", 2008), which stays distinguishable
// to readers with the common colour-vision deficiencies; each style also has its own marker
// shape and dash pattern, so that series stay apart in greyscale print too. Output is
// deterministic (no randomness: the jitter of strip plots is a fixed low-discrepancy
// sequence) and references nothing outside the element.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report/document.hpp"

namespace benchledger::report {

// One <svg> element (no xmlns: inline SVG in HTML does not need it). `id` must be unique in
// the page: it names the element's <title> for aria-labelledby.
std::string render_svg(const Chart& chart, const std::string& id);

// Evenly spaced "nice" tick values (1, 2 or 5 times a power of ten) covering [lo, hi].
std::vector<double> nice_ticks(double lo, double hi, int target);

// The number of palette styles before they repeat.
int style_count();

}  // namespace benchledger::report
