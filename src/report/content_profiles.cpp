// Under a comparison, HTML only: where each regressed case's instructions went (docs/profiles.md),
// a chart of its functions' self cost side by side, and a differential flame graph from the two
// profiles' call graphs.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/content_sections.hpp"
#include "report/text_fields.hpp"

namespace benchledger::report::content {
namespace {

// The functions drawn a case: those that changed most, then the costliest unchanged ones (where
// the head's cost is, for scale); the rest are one bar.
constexpr std::size_t k_changed_bars = 12;
constexpr std::size_t k_unchanged_bars = 3;

std::string cost_text(double value) {
  return format_fixed(value, std::abs(value) >= 100 || value == std::round(value) ? 0 : 2);
}

std::string signed_cost_text(double value) {
  return (value > 0 ? "+" : "") + cost_text(value);
}

// A side's figure in a tooltip: its cost, or why it has none.
std::string side_text(const std::optional<double>& value, bool capped, const char* side) {
  if (value) return cost_text(*value);
  return capped ? fmt::format("not among the {}'s kept functions", side)
                : fmt::format("none (not in the {})", side);
}

ProfileBar bar_of(const profile::FunctionChange& f, const profile::ProfileDiff& d) {
  std::string tip = fmt::format(
      "{}: base {}, head {}, change {}", f.name, side_text(f.base, d.base_capped, "base"),
      side_text(f.head, d.head_capped, "head"), signed_cost_text(f.change));
  if (f.share) tip += fmt::format(" ({:.1f}% of the case's change)", *f.share * 100);
  if (f.file) tip += "; " + *f.file + (f.line ? fmt::format(":{}", *f.line) : "");
  return {f.name,   f.base.value_or(0),         f.head.value_or(0),
          f.change, signed_cost_text(f.change), std::move(tip)};
}

ProfileChart chart_of(const compare::CaseExplanation& c) {
  const profile::ProfileDiff& d = *c.diff;
  ProfileChart chart;
  chart.title = fmt::format("{}: {} {} → {} ({}{})", case_label(c.bench, c.params),
                            profile::to_string(d.event), cost_text(d.base_total),
                            cost_text(d.head_total), signed_cost_text(d.change),
                            d.base_total != 0 ? ", " + format_change(d.change / d.base_total) : "");
  chart.note = "bar: the head's self cost; dashed outline: the base's";
  // Functions are ranked by the size of their change: the changed ones come first.
  std::vector<const profile::FunctionChange*> drawn, rest;
  std::vector<const profile::FunctionChange*> unchanged;
  for (const profile::FunctionChange& f : d.functions) {
    if (f.change != 0 && drawn.size() < k_changed_bars) {
      drawn.push_back(&f);
    } else if (f.change == 0) {
      unchanged.push_back(&f);
    } else {
      rest.push_back(&f);
    }
  }
  std::stable_sort(unchanged.begin(), unchanged.end(), [](const auto* a, const auto* b) {
    return a->head.value_or(0) > b->head.value_or(0);
  });
  for (std::size_t i = 0; i < unchanged.size(); ++i)
    (i < k_unchanged_bars ? drawn : rest).push_back(unchanged[i]);
  for (const profile::FunctionChange* f : drawn) chart.bars.push_back(bar_of(*f, d));
  // The rest, and the functions each side added up as other, as one bar: it shows how much of
  // the head's cost the bars above leave out.
  std::size_t count = rest.size();
  double base = d.other.base.value_or(0), head = d.other.head.value_or(0);
  for (const profile::FunctionChange* f : rest) {
    base += f->base.value_or(0);
    head += f->head.value_or(0);
  }
  if (d.other.base || d.other.head) ++count;
  if (count > 0 && (base != 0 || head != 0)) {
    profile::FunctionChange others;
    others.name = fmt::format("({} more functions)", count);
    others.base = base;
    others.head = head;
    others.change = head - base;
    if (d.change != 0) others.share = others.change / d.change;
    chart.bars.push_back(bar_of(others, d));
  }
  return chart;
}

// The case's differential flame graph, from the two profiles' call graphs.
FlameChart flame_of(const compare::CaseExplanation& c) {
  const profile::FlameGraph& graph = c.flame;
  FlameChart chart;
  chart.title = fmt::format("{}: calls, base against head", case_label(c.bench, c.params));
  chart.note = "width: the head's inclusive instructions on each path of calls";
  chart.width = graph.width;
  chart.depth = graph.depth;
  for (const profile::FlameFrame& f : graph.frames) {
    const double change = f.head - f.base;
    const double larger = std::max(f.base, f.head);
    std::string tip = fmt::format("{}: base {}, head {}, change {}", f.name, cost_text(f.base),
                                  cost_text(f.head), signed_cost_text(change));
    if (f.base > 0) tip += fmt::format(" ({})", format_change(change / f.base));
    if (f.file) tip += "; " + *f.file + (f.line ? fmt::format(":{}", *f.line) : "");
    chart.boxes.push_back(
        {f.name, f.depth, f.start, f.head, change, larger > 0 ? change / larger : 0, tip});
  }
  return chart;
}

}  // namespace

ChartGroup profile_charts(const ComparisonSection& section) {
  ChartGroup group;
  if (!section.profiles) return group;
  bool flames = false;
  std::size_t charted = 0;
  for (const compare::CaseExplanation& c : section.profiles->explanation.cases) {
    if (!c.diff || c.diff->functions.empty()) continue;
    if (charted++ == k_max_charted_cases) break;
    group.charts.emplace_back(chart_of(c));
    if (!c.flame.frames.empty()) {
      group.charts.emplace_back(flame_of(c));
      flames = true;
    }
  }
  if (group.charts.empty()) return group;
  group.heading = "Where the regressed cases' instructions went";
  group.level = 3;
  group.intro = {
      plain("Self cost per operation of each function, from the profiles of "),
      code("run --measure instructions"),
      plain(" under Valgrind: the functions whose cost changed most, a bar each, its length the "
            "head's cost, coloured by the change (red slower, blue faster). "),
      code("benchledger explain"), plain(" lists every function.")};
  if (flames) {
    group.intro.push_back(plain(
        " Under each, a differential flame graph: each function stacked on its caller, its width "
        "what the head spends on that path (itself and what it calls), coloured by the change "
        "since the base. Callgrind keeps the cost of each call between two functions, not whole "
        "stacks: below a function called from several places, its callees are shared out in "
        "proportion to each caller's calls. A path the head no longer takes has no width; the "
        "bars above show what it cost."));
  }
  return group;
}

}  // namespace benchledger::report::content
