// Distributions: every sample of a case's primary metric per reported run (a report without a
// comparison), or of each compared metric, base against current (under a comparison's table).
#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "report/content_sections.hpp"
#include "report/format.hpp"

namespace benchledger::report::content {
namespace {

// A run's results by case key, the first result of each case: looking a case up in a run
// without going through all of its results (which made a report of many cases quadratic).
class CaseIndex {
 public:
  explicit CaseIndex(const RunData& data) {
    for (const ResultRecord& r : data.results)
      m_results.try_emplace(case_key(r.bench, r.params), &r);
  }
  const ResultRecord* find(const std::string& bench, const Params& params) const {
    const auto it = m_results.find(case_key(bench, params));
    return it == m_results.end() ? nullptr : it->second;
  }

 private:
  std::unordered_map<std::string, const ResultRecord*> m_results;
};

// Samples of one metric of a case in a run, or its single value.
std::vector<double> samples_of(const CaseIndex& index, const std::string& bench,
                               const Params& params, const std::string& metric) {
  const ResultRecord* r = index.find(bench, params);
  if (r == nullptr) return {};
  const auto it = r->metrics.find(metric);
  if (it == r->metrics.end()) return {};
  if (it->second.samples && !it->second.samples->empty()) return *it->second.samples;
  return {it->second.value};
}

// How widely a metric's samples spread, relative to their median: the order in which a report
// of many cases picks the distributions it draws.
double relative_spread(const Metric& metric) {
  if (!metric.samples || metric.samples->size() < 2) return -1;
  const auto [low, high] = std::minmax_element(metric.samples->begin(), metric.samples->end());
  const double centre = std::abs(metric.value);
  return centre > 0 ? (*high - *low) / centre : *high - *low;
}

// Without a base: the samples of each case's primary metric in every reported run.
ChartGroup distribution_charts(const ReportInput& input) {
  ChartGroup group;
  group.heading = "Distributions";
  group.intro = {plain(
      "Every sample of each case's primary metric (one per repetition), over a box from the first "
      "to the third quartile with the median as a bar and whiskers to the extremes.")};
  std::vector<const ResultRecord*> drawn;
  for (const ResultRecord& result : input.runs.back().results) {
    if (result.metrics.count(result.primary) != 0) drawn.push_back(&result);
  }
  if (drawn.size() > k_max_charted_cases) {
    // The widest spreads, shown in the run's order.
    std::vector<const ResultRecord*> widest = drawn;
    std::stable_sort(widest.begin(), widest.end(), [](const auto* a, const auto* b) {
      return relative_spread(a->metrics.at(a->primary)) >
             relative_spread(b->metrics.at(b->primary));
    });
    widest.resize(k_max_charted_cases);
    const std::set<const ResultRecord*> keep(widest.begin(), widest.end());
    std::erase_if(drawn, [&](const ResultRecord* r) { return keep.count(r) == 0; });
    const Text note = summarised_note(input.runs.back().results.size(),
                                      "whose samples spread widest relative to their median");
    group.intro.insert(group.intro.end(), note.begin(), note.end());
  }
  std::vector<CaseIndex> indexes;
  for (const RunData& data : input.runs) indexes.emplace_back(data);
  for (const ResultRecord* result_ptr : drawn) {
    const ResultRecord& result = *result_ptr;
    const Metric& metric = result.metrics.at(result.primary);
    std::vector<std::pair<std::string, std::vector<double>>> sides;
    std::vector<double> all;
    for (std::size_t d = 0; d < input.runs.size(); ++d) {
      const RunData& data = input.runs[d];
      std::vector<double> samples =
          samples_of(indexes[d], result.bench, result.params, result.primary);
      if (samples.size() < 2) continue;
      all.insert(all.end(), samples.begin(), samples.end());
      sides.emplace_back(run_name(data.run), std::move(samples));
    }
    if (sides.empty()) continue;
    const DisplayUnit shown = display_unit(max_abs(all), metric.unit);
    DistributionChart chart;
    chart.title = result.bench + (result.params.empty() ? "" : " " + params_text(result.params));
    chart.unit = shown.unit;
    chart.axis_label =
        axis_label(result.primary, shown) +
        (metric.better == Better::lower ? ", lower is better" : ", higher is better");
    int style = 0;
    for (auto& [name, samples] : sides) {
      for (double& v : samples) v *= shown.factor;
      chart.groups.push_back({name, std::move(samples), style++});
    }
    group.charts.emplace_back(std::move(chart));
  }
  return group;
}

// The cases a comparison draws, in run order: all of them, or, past k_max_charted_cases, the
// regressions and improvements with the largest changes, then the other largest changes.
std::vector<const compare::CaseComparison*> charted_cases(const compare::ComparisonReport& report,
                                                          const RunData& current,
                                                          const RunData& base) {
  std::vector<const compare::CaseComparison*> cases = in_run_order(report, current, base);
  if (cases.size() <= k_max_charted_cases) return cases;
  std::vector<const compare::CaseComparison*> largest = cases;
  const auto decided = [](const compare::CaseComparison* c) {
    return c->verdict == compare::Verdict::regression ||
           c->verdict == compare::Verdict::improvement;
  };
  std::stable_sort(largest.begin(), largest.end(), [&](const auto* a, const auto* b) {
    if (decided(a) != decided(b)) return decided(a);
    return (a->change ? std::abs(*a->change) : -1.0) > (b->change ? std::abs(*b->change) : -1.0);
  });
  largest.resize(k_max_charted_cases);
  const std::set<const compare::CaseComparison*> keep(largest.begin(), largest.end());
  std::erase_if(cases, [&](const auto* c) { return keep.count(c) == 0; });
  return cases;
}

}  // namespace

void add_distributions(Document& doc, const ReportInput& input) {
  ChartGroup distributions = distribution_charts(input);
  if (!distributions.charts.empty()) doc.blocks.emplace_back(std::move(distributions));
}

ChartGroup comparison_distributions(const ReportInput& input, const RunData& current,
                                    const compare::ComparisonReport& report) {
  ChartGroup group;
  group.heading = "Distributions: " + run_name(input.base->run) + " and " + run_name(current.run);
  group.level = 3;
  group.intro = {plain(
      "Every sample of each compared metric (one per repetition), over a box from the first to the "
      "third quartile with the median as a bar and whiskers to the extremes.")};
  const CaseIndex base_index(*input.base), current_index(current);
  for (const compare::CaseComparison* case_ptr : charted_cases(report, current, *input.base)) {
    const compare::CaseComparison& c = *case_ptr;
    const std::vector<double> base = samples_of(base_index, c.bench, c.params, c.metric);
    const std::vector<double> now = samples_of(current_index, c.bench, c.params, c.metric);
    if (base.size() < 2 && now.size() < 2) continue;
    std::vector<double> all = base;
    all.insert(all.end(), now.begin(), now.end());
    const DisplayUnit shown = display_unit(max_abs(all), c.unit);
    const auto scaled = [&](const std::vector<double>& values) {
      std::vector<double> out;
      for (double v : values) out.push_back(v * shown.factor);
      return out;
    };
    DistributionChart chart;
    chart.title =
        c.bench + (c.params.empty() ? "" : " " + params_text(c.params)) + " · " + verdict_text(c);
    chart.unit = shown.unit;
    chart.axis_label = axis_label(c.metric, shown) +
                       (c.better == Better::lower ? ", lower is better" : ", higher is better");
    if (!base.empty())
      chart.groups.push_back({"base: " + run_name(input.base->run), scaled(base), 1});
    if (!now.empty()) chart.groups.push_back({run_name(current.run), scaled(now), 0});
    group.charts.emplace_back(std::move(chart));
  }
  if (report.cases.size() > k_max_charted_cases) {
    const Text note = summarised_note(
        report.cases.size(), "with the largest changes (regressions and improvements first)");
    group.intro.insert(group.intro.end(), note.begin(), note.end());
  }
  return group;
}

}  // namespace benchledger::report::content
