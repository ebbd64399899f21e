// Scaling: the cases of a bench that differ in one numeric param alone (slices), as a table
// by that param and curves of their primary metric, throughput and latency against it.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "report/content_sections.hpp"
#include "report/format.hpp"

namespace benchledger::report {
namespace content {
namespace {

std::optional<double> numeric(const ParamValue& value) {
  if (const auto* d = std::get_if<double>(&value)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&value)) return static_cast<double>(*i);
  return std::nullopt;
}

// The slices of one bench's cases along `key`: none unless every case has a numeric value of
// it, two or more of them distinct; else a slice per group of cases whose other params are
// equal, in the order the groups first appear, of the groups that hold two cases or more.
void add_slices_along(const std::string& bench, const std::vector<const ResultRecord*>& cases,
                      const std::string& key, std::vector<ScalingSlice>& slices) {
  std::set<double> distinct;
  for (const ResultRecord* r : cases) {
    const auto it = r->params.find(key);
    const std::optional<double> v = it == r->params.end() ? std::nullopt : numeric(it->second);
    if (!v) return;
    distinct.insert(*v);
  }
  if (distinct.size() < k_min_scaling_points) return;
  std::vector<std::string> order;
  std::map<std::string, ScalingSlice> groups;
  for (const ResultRecord* r : cases) {
    Params fixed = r->params;
    fixed.erase(key);
    const std::string group_key = case_key(bench, fixed);
    auto [it, inserted] = groups.try_emplace(group_key);
    if (inserted) {
      order.push_back(group_key);
      it->second.bench = bench;
      it->second.param = key;
      it->second.fixed = std::move(fixed);
    }
    it->second.cases.push_back(r);
  }
  for (const std::string& group_key : order) {
    ScalingSlice& slice = groups[group_key];
    if (slice.cases.size() < k_min_scaling_points) continue;
    std::stable_sort(slice.cases.begin(), slice.cases.end(),
                     [&](const ResultRecord* a, const ResultRecord* b) {
                       return *numeric(a->params.at(key)) < *numeric(b->params.at(key));
                     });
    for (const ResultRecord* r : slice.cases) slice.values.push_back(*numeric(r->params.at(key)));
    slices.push_back(std::move(slice));
  }
}

// Which param varies: for each numeric param of a bench, the cases are grouped by all their
// other params, and a group of two cases or more, which then differ in that param alone, is a
// slice. A param that moves in step with another one (the input statistics the executors
// suite records next to its workload) never differs alone, so it yields no slice: a table
// "by len_mean" would credit a difference of workloads to a number that merely describes
// them. The price: a size with a derived count beside it gets no table either, since the
// report cannot tell which of the two is the cause.
std::vector<ScalingSlice> slices_of(const std::vector<const ResultRecord*>& results) {
  std::vector<std::string> benches;
  std::map<std::string, std::vector<const ResultRecord*>> by_bench;
  for (const ResultRecord* r : results) {
    if (by_bench.find(r->bench) == by_bench.end()) benches.push_back(r->bench);
    by_bench[r->bench].push_back(r);
  }
  std::vector<ScalingSlice> slices;
  for (const std::string& bench : benches) {
    const auto& cases = by_bench[bench];
    if (cases.size() < 2) continue;
    std::set<std::string> keys;
    for (const ResultRecord* r : cases) {
      for (const auto& [key, value] : r->params) keys.insert(key);
    }
    for (const std::string& key : keys) add_slices_along(bench, cases, key, slices);
  }
  return slices;
}

// Scaling curves of one (bench, param): one series per slice, for the primary metric and, when
// the primary is not a rate, for the throughput too.
ChartGroup scaling_charts(const std::vector<const ScalingSlice*>& slices, const Params& common) {
  ChartGroup group;
  const ScalingSlice& first = *slices.front();
  const ResultRecord& sample = *first.cases.front();
  // The primary metric, and the throughput and latency that the scaling table shows (a client
  // sweep is read as both: TPS and latency against clients).
  std::vector<std::string> metrics{sample.primary};
  const Figures f = table_figures(first.cases).front();
  for (const Metric* m : {f.rate, f.latency}) {
    const std::string& name = m == f.rate ? f.rate_name : f.latency_name;
    if (m != nullptr && std::find(metrics.begin(), metrics.end(), name) == metrics.end())
      metrics.push_back(name);
  }
  bool log_x = true;
  double lo = 0, hi = 0;
  for (const ScalingSlice* s : slices) {
    for (double v : s->values) {
      if (v <= 0) log_x = false;
      lo = lo == 0 ? v : std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  log_x = log_x && lo > 0 && hi / lo >= 20;
  for (const std::string& metric_name : metrics) {
    const auto it = sample.metrics.find(metric_name);
    if (it == sample.metrics.end()) continue;
    const std::string unit = it->second.unit;
    std::vector<double> all;
    for (const ScalingSlice* s : slices) {
      for (const ResultRecord* r : s->cases) {
        if (const auto m = r->metrics.find(metric_name);
            m != r->metrics.end() && m->second.unit == unit) {
          all.push_back(m->second.value);
        }
      }
    }
    if (all.empty()) continue;
    const DisplayUnit shown = display_unit(max_abs(all), unit);
    LineChart chart;
    chart.title = first.bench + ": " + metric_name + " by " + first.param;
    chart.x_label = first.param;
    chart.y_label = axis_label(metric_name, shown);
    chart.note = it->second.better == Better::lower ? "lower is better" : "higher is better";
    chart.log_x = log_x;
    for (const ScalingSlice* s : slices) {
      ChartSeries series;
      const Params fixed = without(s->fixed, common);
      series.name = fixed.empty() ? first.bench : params_text(fixed);
      for (std::size_t i = 0; i < s->cases.size(); ++i) {
        const auto m = s->cases[i]->metrics.find(metric_name);
        if (m == s->cases[i]->metrics.end() || m->second.unit != unit) continue;
        ChartPoint p;
        p.x = s->values[i];
        p.y = m->second.value * shown.factor;
        if (m->second.samples && m->second.samples->size() > 1) {
          p.low = m->second.summary.min * shown.factor;
          p.high = m->second.summary.max * shown.factor;
        }
        p.tip = fmt::format("{}={}: {}", first.param, format_number(s->values[i], 6),
                            format_quantity(m->second.value, m->second.unit));
        series.points.push_back(std::move(p));
      }
      chart.series.push_back(std::move(series));
    }
    group.charts.emplace_back(std::move(chart));
  }
  return group;
}

}  // namespace

void add_scaling(Document& doc, const std::vector<const ResultRecord*>& results,
                 const Params& common, std::size_t& budget, std::size_t& left_out) {
  const std::vector<ScalingSlice> slices = slices_of(results);
  std::size_t i = 0;
  while (i < slices.size()) {
    if (budget == 0) {
      left_out += slices.size() - i;
      return;
    }
    // Slices of one (bench, param) share a chart.
    std::vector<const ScalingSlice*> same;
    const ScalingSlice& first = slices[i];
    while (i < slices.size() && slices[i].bench == first.bench && slices[i].param == first.param &&
           budget > 0) {
      same.push_back(&slices[i]);
      ++i;
      --budget;
    }
    for (const ScalingSlice* s : same) {
      std::string title = "Scaling: " + s->bench + " by " + s->param;
      const Params fixed = without(s->fixed, common);
      if (!fixed.empty()) title += " (" + params_text(fixed) + ")";
      doc.blocks.emplace_back(Heading{4, title});
      const std::string param = s->param;
      doc.blocks.emplace_back(results_table(
          s->cases, param,
          [param](const ResultRecord& r) { return text_cell(to_string(r.params.at(param))); },
          Align::right));
    }
    doc.blocks.emplace_back(scaling_charts(same, common));
  }
}

}  // namespace content

std::vector<ScalingSlice> scaling_slices(const std::vector<ResultRecord>& results) {
  std::vector<const ResultRecord*> all;
  for (const ResultRecord& r : results) all.push_back(&r);
  return content::slices_of(all);
}

}  // namespace benchledger::report
