// The Trends section: each case's primary metric across the ledger's last runs, with the
// reported runs, the base and the change points marked; past k_max_charted_cases, the cases that
// moved most. Then Change points: a table per case that has any, in both forms.
#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "report/content_sections.hpp"
#include "report/format.hpp"

namespace benchledger::report::content {
namespace {

std::string short_date(const std::string& time, bool seconds) {
  if (time.size() < (seconds ? 19U : 16U)) return time;
  return time.substr(5, 5) + " " + time.substr(11, seconds ? 8 : 5);
}

// Tick labels for a trend's runs: month, day, hours and minutes; with seconds when two runs
// share a minute (a job that runs twice in a row), and with the run's position (#3) when they
// share a second too, so that no two ticks read the same.
std::vector<std::string> trend_tick_labels(const std::vector<ledger::SeriesPoint>& points) {
  const auto labels_with = [&](bool seconds) {
    std::vector<std::string> labels;
    for (const ledger::SeriesPoint& p : points) labels.push_back(short_date(p.time, seconds));
    return labels;
  };
  const auto unique = [](std::vector<std::string> labels) {
    std::sort(labels.begin(), labels.end());
    return std::adjacent_find(labels.begin(), labels.end()) == labels.end();
  };
  std::vector<std::string> labels = labels_with(false);
  if (unique(labels)) return labels;
  labels = labels_with(true);
  if (unique(labels)) return labels;
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i] += " #" + std::to_string(i + 1);
  return labels;
}

// The trends a report draws, in report order: all of them, or past k_max_charted_cases those
// whose newest point moved most from the one before it (relative to it).
std::vector<const Trend*> charted_trends(const ReportInput& input) {
  std::vector<const Trend*> trends;
  for (const Trend& trend : input.trends) {
    if (!trend.series.points.empty()) trends.push_back(&trend);
  }
  if (trends.size() <= k_max_charted_cases) return trends;
  const auto moved = [](const Trend* t) {
    const std::vector<ledger::SeriesPoint>& points = t->series.points;
    if (points.size() < 2) return -1.0;
    const double before = points[points.size() - 2].centre, now = points.back().centre;
    return before != 0 ? std::abs(now / before - 1) : std::abs(now - before);
  };
  std::vector<std::pair<double, const Trend*>> ranked;
  for (const Trend* t : trends) ranked.emplace_back(moved(t), t);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  ranked.resize(k_max_charted_cases);
  std::set<const Trend*> keep;
  for (const auto& [m, t] : ranked) keep.insert(t);
  std::erase_if(trends, [&](const Trend* t) { return keep.count(t) == 0; });
  return trends;
}

std::string commit_of(const compare::DetectedChange& d) {
  return format_commit(GitState{d.commit, std::nullopt, d.dirty});
}

// A change point's tooltip: where it lies, its commit, and the change.
std::string change_tip(const ledger::Series& series, const compare::DetectedChange& d) {
  return fmt::format(
      "change point at {} {} (commit {}): {} → {} ({}), p = {}, {}", display_time(d.time), d.run_id,
      commit_of(d), format_quantity(d.before, series.unit), format_quantity(d.after, series.unit),
      format_change(d.change), format_number(d.p), d.regression ? "regression" : "improvement");
}

// The cases that have more than one trend (a change of unit or of primary metric starts another
// series), whose titles must say which series each shows.
std::set<std::string> cases_with_several_trends(const ReportInput& input) {
  std::set<std::string> seen, several;
  for (const Trend& trend : input.trends) {
    std::string key = case_key(trend.series.bench, trend.series.params);
    if (!seen.insert(key).second) several.insert(std::move(key));
  }
  return several;
}

// What tells a trend from the other trends of its case: `time in ns`.
std::string metric_and_unit(const ledger::Series& series) {
  return series.metric + " in " + series.unit;
}

ChartGroup trend_charts(const ReportInput& input) {
  ChartGroup group;
  const std::set<std::string> several = cases_with_several_trends(input);
  std::set<std::string> highlighted;
  for (const RunData& data : input.runs) highlighted.insert(data.run.header.id);
  const std::string base_id = input.base ? input.base->run.header.id : std::string();
  for (const Trend* trend_ptr : charted_trends(input)) {
    const ledger::Series& trend = trend_ptr->series;
    std::vector<double> values;
    for (const ledger::SeriesPoint& p : trend.points) values.push_back(p.max);
    const DisplayUnit shown = display_unit(max_abs(values), trend.unit);
    LineChart chart;
    chart.title = trend.bench + (trend.params.empty() ? "" : " " + params_text(trend.params));
    if (several.count(case_key(trend.bench, trend.params)) != 0)
      chart.title += " (" + metric_and_unit(trend) + ")";
    chart.x_label = "run (oldest to newest)";
    chart.y_label = axis_label(trend.metric, shown);
    chart.note = trend.better == Better::lower ? "lower is better" : "higher is better";
    ChartSeries line{"median", {}, true};
    ChartSeries base{"base run", {}, false};
    ChartSeries reported{"reported run", {}, false};
    for (std::size_t i = 0; i < trend.points.size(); ++i) {
      const ledger::SeriesPoint& tp = trend.points[i];
      ChartPoint p;
      p.x = static_cast<double>(i);
      p.y = tp.centre * shown.factor;
      if (tp.min != tp.centre || tp.max != tp.centre) {
        p.low = tp.min * shown.factor;
        p.high = tp.max * shown.factor;
      }
      p.tip = fmt::format("{} {}{}: {}", display_time(tp.time), tp.run_id,
                          tp.label ? " (" + *tp.label + ")" : "",
                          format_quantity(tp.centre, trend.unit));
      if (tp.run_id == base_id) base.points.push_back(p);
      if (highlighted.count(tp.run_id) != 0) reported.points.push_back(p);
      line.points.push_back(std::move(p));
    }
    // At most six dated ticks, spread evenly, always including the newest run.
    const std::size_t n = trend.points.size();
    const std::size_t step = std::max<std::size_t>(1, (n + 5) / 6);
    const std::vector<std::string> labels = trend_tick_labels(trend.points);
    for (std::size_t i = (n - 1) % step; i < n; i += step) {
      chart.x_ticks.emplace_back(static_cast<double>(i), labels[i]);
    }
    chart.series = {std::move(line), std::move(base), std::move(reported)};
    chart.styles = {0, 1, 3};
    // Half-way between the last run before the change and the first after it.
    for (const compare::DetectedChange& d : trend_ptr->changes) {
      chart.marks.push_back(
          {static_cast<double>(d.index) - 0.5, format_change(d.change), change_tip(trend, d)});
    }
    chart.marks_name = "change point";
    group.charts.emplace_back(std::move(chart));
  }
  return group;
}

}  // namespace

void add_trends(Document& doc, const ReportInput& input) {
  ChartGroup charts = trend_charts(input);
  if (charts.charts.empty()) return;
  charts.heading = "Trends";
  charts.intro = {plain(fmt::format(
      "Each case's primary metric (the median of its samples, with a band from "
      "the smallest to the largest "
      "sample) across the last {} of the ledger that measured it.",
      input.history == 1 ? std::string("run")
                         : format_integer(static_cast<std::int64_t>(input.history)) + " runs"))};
  if (!cases_with_several_trends(input).empty()) {
    const Text several = {
        plain(" A case whose unit or primary metric changed has a chart for each, "
              "titled with its metric and unit, as "),
        code("benchledger history"), plain(" has a series for each.")};
    charts.intro.insert(charts.intro.end(), several.begin(), several.end());
  }
  if (input.trends.size() > k_max_charted_cases) {
    const Text note =
        summarised_note(input.trends.size(), "whose newest run moved most from the one before");
    charts.intro.insert(charts.intro.end(), note.begin(), note.end());
  }
  doc.blocks.emplace_back(std::move(charts));
}

void add_change_points(Document& doc, const ReportInput& input) {
  std::vector<const Trend*> changed;
  for (const Trend& trend : input.trends) {
    if (!trend.changes.empty()) changed.push_back(&trend);
  }
  if (changed.empty()) return;
  const std::set<std::string> several = cases_with_several_trends(input);
  doc.blocks.emplace_back(Heading{2, "Change points"});
  doc.blocks.emplace_back(Paragraph{
      {plain(fmt::format(
           "Runs where a case's primary metric changed, found in the series of each trend (the "
           "last {} of the ledger) as ",
           input.history == 1
               ? std::string("run")
               : format_integer(static_cast<std::int64_t>(input.history)) + " runs")),
       code("benchledger detect"),
       plain(" finds them: E-Divisive means with a rank test. Before and after are the mean "
             "medians of the runs either side, up to the next change point.")},
      {}});
  for (const Trend* trend : changed) {
    const ledger::Series& series = trend->series;
    Text title = case_text(series.bench, series.params);
    const bool unit_too = several.count(case_key(series.bench, series.params)) != 0;
    title.push_back(
        plain(fmt::format(": {} ({} is better)", unit_too ? metric_and_unit(series) : series.metric,
                          series.better == Better::lower ? "lower" : "higher")));
    doc.blocks.emplace_back(Paragraph{std::move(title), {}});
    Table table;
    table.header = {"First run after", "Time",   "Commit", "Before",
                    "After",           "Change", "p",      "Verdict"};
    table.align = {Align::left,  Align::left,  Align::left,  Align::right,
                   Align::right, Align::right, Align::right, Align::left};
    for (const compare::DetectedChange& d : trend->changes) {
      const char* verdict = d.regression ? "regression" : "improvement";
      table.rows.push_back(
          {Cell{{code(d.run_id)}, {}, {}}, text_cell(display_time(d.time)),
           Cell{{code(commit_of(d))}, {}, {}}, text_cell(format_quantity(d.before, series.unit)),
           text_cell(format_quantity(d.after, series.unit)), text_cell(format_change(d.change)),
           text_cell(format_number(d.p)), Cell{{plain(verdict)}, verdict, verdict}});
    }
    doc.blocks.emplace_back(std::move(table));
  }
}

}  // namespace benchledger::report::content
