// The HTML report holds the Markdown's content plus one chart per trend, scaling slice group,
// compared case and profiled regressed case, with text from records escaped and nothing outside the
// file referenced.
#include <algorithm>
#include <cmath>
#include <limits>
#include <regex>
#include <set>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "report/content.hpp"
#include "report/report.hpp"
#include "report/svg.hpp"

using namespace benchledger;
using namespace benchledger::report;

namespace {

std::size_t count(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  return static_cast<std::size_t>(
      std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

// Trends as collect_trends would make them: the fixture history of the current run.
std::vector<Trend> trends_of(const std::vector<RunData>& history) {
  std::vector<Trend> trends;
  for (const ResultRecord& r : history.back().results) {
    ledger::Series trend;
    trend.bench = r.bench;
    trend.params = r.params;
    trend.metric = r.primary;
    const Metric& m = r.metrics.at(r.primary);
    trend.unit = m.unit;
    trend.better = m.better;
    for (const RunData& data : history) {
      for (const ResultRecord& h : data.results) {
        if (h.bench != r.bench || h.params != r.params) continue;
        const Metric& hm = h.metrics.at(r.primary);
        ledger::SeriesPoint& p = trend.points.emplace_back();
        p.run_id = data.run.header.id;
        p.time = data.run.header.time;
        p.label = data.run.label;
        p.commit = data.run.git.commit;
        p.centre = hm.value;
        p.min = hm.summary.min;
        p.max = hm.summary.max;
      }
    }
    trends.push_back({std::move(trend), {}});
  }
  return trends;
}

// A current run against its baseline, with eight earlier runs for the trends.
ReportInput full_input() {
  ReportInput input;
  input.base = fixtures::baseline_run();
  input.runs.push_back(fixtures::current_run());
  input.comparisons.push_back({input.runs[0].run.header.id,
                               compare::compare_sides({{input.base->run}, input.base->results},
                                                      {{input.runs[0].run}, input.runs[0].results},
                                                      {}, compare::CompareOptions{})});
  input.trends = trends_of(fixtures::history_before(fixtures::current_run(), 8));
  return input;
}

}  // namespace

TEST_CASE("the HTML page draws a trend per case, scaling curves and distributions") {
  const ReportInput input = full_input();
  const std::string html = render_html(input);

  const std::size_t cases = input.runs[0].results.size();  // 17
  // One trend per case, and the scaling curves: select1 by concurrency and tpcb by clients
  // (throughput and latency each), pipeline by pages (wall, one line per mode).
  CHECK(count(html, R"(<svg[^>]*class="chart line-chart")") == cases + 5);
  // Every compared case has its distribution (each has samples on at least one side).
  CHECK(count(html, R"(<svg[^>]*class="chart distribution-chart")") ==
        input.comparisons[0].report.cases.size());
  // Every chart has an accessible name and a caption.
  CHECK(count(html, R"(<svg[^>]*role="img" aria-labelledby="chart-\d+")") ==
        count(html, "<figure>"));
  // Verdicts carry a symbol drawn in SVG next to the word.
  CHECK(html.find(R"(<td class="regression"><svg class="icon")") != std::string::npos);
  CHECK(html.find(R"(<td class="improvement"><svg class="icon")") != std::string::npos);
}

TEST_CASE("text from records is escaped in HTML") {
  ReportInput input;
  input.runs.push_back(fixtures::awkward_run());
  const std::string html = render_html(input);
  CHECK(html.find("&lt;b&gt;not bold&lt;/b&gt; &amp; *not emphasis* | not a cell") !=
        std::string::npos);
  CHECK(html.find("<b>not bold") == std::string::npos);
  CHECK(html.find("<title>Benchmark report: my|proj *draft*</title>") != std::string::npos);
  CHECK(html.find("<code>SELECT") == std::string::npos);  // params are text, the bench is code
  CHECK(html.find("<code>odd|suite/a*b_c</code>") != std::string::npos);
}

TEST_CASE("the page declares its charset and viewport and has no script") {
  ReportInput input;
  input.runs.push_back(fixtures::current_run());
  const std::string html = render_html(input);
  CHECK(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n", 0) ==
        0);
  CHECK(html.find(R"(<meta name="viewport" content="width=device-width, initial-scale=1">)") !=
        std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("://") == std::string::npos);
  // Without a base, each case with samples shows their distribution in the reported run.
  CHECK(count(html, R"(<svg[^>]*class="chart distribution-chart")") ==
        input.runs[0].results.size());
}

TEST_CASE("nice_ticks covers the range with steps of 1, 2 or 5 times a power of ten") {
  CHECK(nice_ticks(0, 9.3, 5) == std::vector<double>{0, 2, 4, 6, 8, 10});
  CHECK(nice_ticks(432, 448, 5) == std::vector<double>{430, 435, 440, 445, 450});
  const std::vector<double> small = nice_ticks(0.82, 1.1, 5);
  REQUIRE(small.size() == 7);
  CHECK(small.front() == Approx(0.8));
  CHECK(small.back() == Approx(1.1));
  CHECK(nice_ticks(5, 5, 5).size() >= 2);  // a flat range still gets an axis
}

TEST_CASE("log-scaled scaling charts put ticks at the measured values") {
  LineChart chart;
  chart.title = "t";
  chart.x_label = "clients";
  chart.y_label = "throughput (ops/s)";
  chart.log_x = true;
  ChartSeries series{"scale=1", {}, true};
  for (double c : {1.0, 5.0, 10.0, 20.0, 50.0, 100.0})
    series.points.push_back({c, c * 10, {}, {}, ""});
  chart.series.push_back(series);
  const std::string svg = render_svg(chart, "x");
  for (const char* label : {">1<", ">5<", ">10<", ">20<", ">50<", ">100<"}) {
    INFO(label);
    CHECK(svg.find(label) != std::string::npos);
  }
}

namespace {

struct SvgChart {
  std::string kind;  // line-chart or distribution-chart
  std::string body;
};

std::vector<SvgChart> charts_of(const std::string& html) {
  std::vector<SvgChart> charts;
  const std::regex chart_re(
      R"re(<svg[^>]*class="chart (line-chart|distribution-chart)"[\s\S]*?</svg>)re");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), chart_re);
       it != std::sregex_iterator(); ++it) {
    charts.push_back({(*it)[1], (*it)[0]});
  }
  return charts;
}

// The shape of a marker, whatever its position and colour: the element, and for a path its
// commands with the direction of each step (a triangle pointing up and one pointing down
// differ; two circles do not).
std::string marker_shape(const std::string& element) {
  std::smatch m;
  if (!std::regex_search(element, m, std::regex(R"(^<(\w+))"))) return "?";
  std::string shape = m[1];
  if (shape != "path") return shape;
  REQUIRE(std::regex_search(element, m, std::regex(R"re(d="([^"]*)")re")));
  const std::string d = m[1];
  const std::regex step(R"(([MLZ])(?:(-?[\d.]+),(-?[\d.]+))?)");
  double px = 0, py = 0;
  for (auto it = std::sregex_iterator(d.begin(), d.end(), step); it != std::sregex_iterator();
       ++it) {
    shape += (*it)[1].str();
    if ((*it)[1] == "Z") continue;
    const double x = std::stod((*it)[2]), y = std::stod((*it)[3]);
    const auto sign = [](double v) { return std::fabs(v) < 0.01 ? '0' : v > 0 ? '+' : '-'; };
    shape += sign(x - px);
    shape += sign(y - py);
    px = x, py = y;
  }
  return shape;
}

std::vector<std::string> texts_with(const std::string& svg, const std::string& attribute) {
  std::vector<std::string> texts;
  const std::regex text_re("<text [^>]*" + attribute + "[^>]*>([^<]*)</text>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text_re);
       it != std::sregex_iterator(); ++it) {
    texts.push_back((*it)[1]);
  }
  return texts;
}

const std::regex k_unit_label(R"(^\S.* \(([^()]+)\)$)");

}  // namespace

TEST_CASE(
    "every line chart labels its axes, the value axis with its unit, and says which way is "
    "better") {
  const std::vector<SvgChart> charts = charts_of(render_html(full_input()));
  std::size_t line_charts = 0;
  for (const SvgChart& chart : charts) {
    if (chart.kind != "line-chart") continue;
    ++line_charts;
    INFO(chart.body.substr(0, 400));
    const std::vector<std::string> y_labels = texts_with(chart.body, "transform=\"rotate");
    REQUIRE(y_labels.size() == 1);
    std::smatch unit;
    REQUIRE(std::regex_match(y_labels[0], unit, k_unit_label));
    const std::set<std::string> units{"ns", "µs", "ms", "s", "ops/s"};
    CHECK(units.count(unit[1]) == 1);
    // The x label: the run order of a trend, or the param of a scaling curve.
    const std::vector<std::string> labels = texts_with(chart.body, "font-size=\"13.5\"");
    REQUIRE(labels.size() == 2);
    CHECK(std::regex_match(labels[0],
                           std::regex("run \\(oldest to newest\\)|clients|concurrency|pages")));
    // Throughput is better higher; times (time, wall, latency) lower.
    const std::vector<std::string> notes = texts_with(chart.body, "font-style=\"italic\"");
    REQUIRE(notes.size() == 1);
    CHECK(notes[0] ==
          (y_labels[0].rfind("throughput", 0) == 0 ? "higher is better" : "lower is better"));
  }
  CHECK(line_charts == 19 + 5);  // a trend per case, five scaling curves
}

TEST_CASE("every distribution chart labels its axis with the unit and which way is better") {
  const std::vector<SvgChart> charts = charts_of(render_html(full_input()));
  std::size_t distributions = 0;
  for (const SvgChart& chart : charts) {
    if (chart.kind != "distribution-chart") continue;
    ++distributions;
    // The rows' names come first ("current: n=10, median …"), then the axis label.
    std::vector<std::string> axes;
    for (const std::string& label : texts_with(chart.body, "font-size=\"13.5\"")) {
      if (label.find(": n=") == std::string::npos) axes.push_back(label);
    }
    REQUIRE(axes.size() == 1);
    const std::string& axis = axes[0];
    INFO(axis);
    std::smatch m;
    REQUIRE(std::regex_match(
        axis, m, std::regex(R"(^(\w+) \((ns|µs|ms|s|ops/s)\), (lower|higher) is better$)")));
    CHECK(m[3] == (m[1] == "throughput" ? "higher" : "lower"));
  }
  CHECK(distributions == 20);
}

TEST_CASE("series of a chart differ by marker or dash, not by colour alone") {
  const std::vector<SvgChart> charts = charts_of(render_html(full_input()));
  // Legend entries of line charts: an optional line (dashed or not), a marker, the name.
  const std::regex entry_re(
      R"re((<line [^>]*stroke-width="2"[^>]*/>)?(<(?:circle|rect|path)[^>]*/>)<text [^>]*font-size="13"[^>]*>([^<]*)</text>)re");
  std::size_t multi_series = 0;
  for (const SvgChart& chart : charts) {
    INFO(chart.body.substr(0, 400));
    std::set<std::string> looks;
    std::size_t entries = 0;
    if (chart.kind == "line-chart") {
      for (auto it = std::sregex_iterator(chart.body.begin(), chart.body.end(), entry_re);
           it != std::sregex_iterator(); ++it) {
        ++entries;
        const std::string line = (*it)[1];
        const std::string marker = (*it)[2];
        std::smatch dash;
        const std::string line_look =
            line.empty() ? "no line"
            : std::regex_search(line, dash, std::regex(R"re(stroke-dasharray="([^"]*)")re"))
                ? "dash " + dash[1].str()
                : "solid";
        const bool hollow = marker.find("fill=\"#ffffff\"") != std::string::npos;
        looks.insert(line_look + ", " + marker_shape(marker) + (hollow ? " hollow" : ""));
      }
    } else {
      // Rows of a distribution: the box's outline and the samples' markers.
      const std::regex box_re(R"re(<rect [^>]*height="16"[^>]*/>)re");
      const std::regex sample_re(R"re(<(circle|rect|path)[^>]*><title>[^<]* #1: )re");
      std::vector<std::string> boxes, samples;
      for (auto it = std::sregex_iterator(chart.body.begin(), chart.body.end(), box_re);
           it != std::sregex_iterator(); ++it) {
        std::smatch dash;
        const std::string box = (*it)[0];
        boxes.push_back(
            std::regex_search(box, dash, std::regex(R"re(stroke-dasharray="([^"]*)")re"))
                ? dash[1].str()
                : "solid");
      }
      for (auto it = std::sregex_iterator(chart.body.begin(), chart.body.end(), sample_re);
           it != std::sregex_iterator(); ++it) {
        samples.push_back(marker_shape((*it)[0]));
      }
      REQUIRE(boxes.size() == samples.size());
      entries = boxes.size();
      for (std::size_t i = 0; i < boxes.size(); ++i) looks.insert(boxes[i] + ", " + samples[i]);
    }
    CHECK(entries >= 1);
    CHECK(looks.size() == entries);
    if (entries > 1) ++multi_series;
  }
  // Trends (median, base, reported), scaling curves by mode and the base/current distributions.
  CHECK(multi_series > 30);
}

TEST_CASE("trend ticks stay distinct when runs share a minute or a second") {
  const auto ticks_of = [&](const std::vector<std::string>& times) {
    ReportInput input;
    input.runs.push_back(fixtures::current_run());
    ledger::Series trend;
    trend.bench = "t";
    trend.metric = "time";
    trend.unit = "ms";
    for (std::size_t i = 0; i < times.size(); ++i) {
      ledger::SeriesPoint& p = trend.points.emplace_back();
      p.run_id = "run" + std::to_string(i);
      p.time = times[i];
      p.centre = 1.0 + 0.1 * static_cast<double>(i);
      p.min = 1.0;
      p.max = 2.0;
    }
    input.trends = {{trend, {}}};
    std::vector<std::string> ticks;
    for (const SvgChart& chart : charts_of(render_html(input))) {
      if (chart.body.find(">t: time (ms) by run (oldest to newest)</title>") == std::string::npos)
        continue;
      for (const std::string& text :
           texts_with(chart.body, "text-anchor=\"middle\" font-size=\"12.5\""))
        ticks.push_back(text);
    }
    return ticks;
  };
  CHECK(ticks_of({"2026-11-20T04:27:59.1Z", "2026-11-21T04:27:59.1Z", "2026-11-22T09:00:00.1Z"}) ==
        std::vector<std::string>{"11-20 04:27", "11-21 04:27", "11-22 09:00"});
  CHECK(ticks_of({"2026-11-22T04:27:01.1Z", "2026-11-22T04:27:31.1Z", "2026-11-22T04:28:00.1Z"}) ==
        std::vector<std::string>{"11-22 04:27:01", "11-22 04:27:31", "11-22 04:28:00"});
  CHECK(ticks_of({"2026-11-22T04:27:01.1Z", "2026-11-22T04:27:01.7Z", "2026-11-22T04:28:00.1Z"}) ==
        std::vector<std::string>{"11-22 04:27:01 #1", "11-22 04:27:01 #2", "11-22 04:28:00 #3"});
}

TEST_CASE("the trends' introduction counts its runs in words that agree") {
  ReportInput input = full_input();
  input.history = 1;
  CHECK(render_html(input).find("across the last run of the ledger") != std::string::npos);
  input.history = 20;
  CHECK(render_html(input).find("across the last 20 runs of the ledger") != std::string::npos);
}

TEST_CASE("nice_ticks stays bounded and finite for any finite values a record may hold") {
  // A record may hold any finite double: a span that overflows, a flat range at the greatest
  // double, a span below the precision of its values. Each once looped for ever (a report of
  // a value of 1e308 grew to 16.8 GB before bad_alloc).
  const double most = std::numeric_limits<double>::max();
  const std::vector<std::pair<double, double>> ranges = {
      {-1e308, 1e308}, {-most, most},      {most, most},   {most * 0.95, most}, {-most, -most},
      {1e20, 1e20},    {1e20, 1e20 + 1e5}, {1, 1 + 1e-15}, {0, 5e-324},         {1e308, INFINITY},
      {NAN, 1}};
  for (const auto& [lo, hi] : ranges) {
    INFO(lo << " .. " << hi);
    const std::vector<double> ticks = nice_ticks(lo, hi, 5);
    CHECK(ticks.size() >= 2);
    CHECK(ticks.size() <= 65);
    for (const double t : ticks) CHECK(std::isfinite(t));
    CHECK(std::is_sorted(ticks.begin(), ticks.end()));
    CHECK(ticks.front() < ticks.back());
  }
}

TEST_CASE("an HTML report of results at the greatest doubles is written, with finite charts") {
  ReportInput input;
  input.runs.push_back(fixtures::current_run());
  const double most = std::numeric_limits<double>::max();
  for (ResultRecord& result : input.runs[0].results) {
    Metric& metric = result.metrics.at(result.primary);
    metric.value = most;
    std::vector<double>& samples = metric.samples.emplace();
    samples = {-most, 1, most};
  }
  input.trends = trends_of({input.runs[0]});
  const std::string html = render_html(input);
  CHECK(html.find("<svg") != std::string::npos);
  CHECK(html.find("nan") == std::string::npos);
  CHECK(html.find("inf\"") == std::string::npos);
}

namespace {

// `cases` cases of one bench ("big/case" with param i), 10 samples each; in the current run every
// tenth case is 10% + i‰ slower than in the base.
RunData many_cases(const std::string& run_id, const std::string& label, std::size_t cases,
                   bool current) {
  RunData data = fixtures::current_run();
  data.run.header.id = run_id;
  data.run.label = label;
  data.results.clear();
  for (std::size_t i = 0; i < cases; ++i) {
    ResultRecord r;
    r.header.id = run_id.substr(0, 16) + fmt::format("{:010}", i);
    r.run = run_id;
    r.bench = "big/case";
    r.params = {{"i", static_cast<std::int64_t>(i)}, {"kind", std::string("fixed")}};
    const double slower = current && i % 10 == 0 ? 1.1 + 0.001 * static_cast<double>(i) : 1.0;
    r.metrics = {{"time", fixtures::spread_metric("ns", Better::lower, 1000.0 * slower, 0.02, 10)}};
    r.primary = "time";
    data.results.push_back(std::move(r));
  }
  return data;
}

}  // namespace

TEST_CASE("a report of more cases than it charts says that it summarises and lists every case") {
  const std::size_t cases = k_max_charted_cases + 50;
  ReportInput input;
  input.base = many_cases("01JDQ8Z6X00000000000000BAS", "base", cases, false);
  input.runs.push_back(many_cases("01JDQ8Z6X00000000000000CUR", "now", cases, true));
  input.comparisons.push_back({input.runs[0].run.header.id,
                               compare::compare_sides({{input.base->run}, input.base->results},
                                                      {{input.runs[0].run}, input.runs[0].results},
                                                      {}, compare::CompareOptions{})});
  input.trends = trends_of({*input.base, input.runs[0]});
  const std::string html = render_html(input);

  // Charts for k_max_charted_cases cases, the comparison's largest changes among them.
  CHECK(count(html, R"(<svg[^>]*class="chart distribution-chart")") == k_max_charted_cases);
  CHECK(count(html, R"(<svg[^>]*class="chart line-chart")") <= 2 * k_max_charted_cases);
  const std::size_t regressions = input.comparisons[0].report.count(compare::Verdict::regression);
  REQUIRE(regressions > 0);
  CHECK(count(html, R"(<figcaption>[^<]*i=0\b[^<]*)") >= 1);  // the 10% + 0‰ case is drawn
  // It says so, with the number of cases, in each chart group that left cases out.
  CHECK(count(html, "This report summarises: of " + fmt::format("{}", cases) + " cases") >= 2);
  // The tables still list every case: once in the comparison, once in the results.
  CHECK(count(html, R"(<td><code>big/case</code>)") == 2 * cases);
  // And it is still a page that passes the checks every report passes.
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("://") == std::string::npos);
  CHECK(count(html, R"(<svg[^>]*role="img" aria-labelledby="chart-\d+")") ==
        count(html, "<figure>"));
}

TEST_CASE(
    "a profile chart draws a bar a function, coloured by its change, named in full on hover") {
  const std::string long_name =
      "std::vector<std::pair<int, std::string>>::emplace_back<int, "
      "std::string>(int&&, std::string&&) const";
  ProfileChart chart;
  chart.title = "case";
  chart.bars = {{long_name, 0, 900, 900, "+900", long_name + ": added"},
                {"removed()", 500, 0, -500, "-500", "removed(): gone"},
                {"same()", 2000, 2000, 0, "0", "same(): unchanged"}};
  const std::string svg = render_svg(chart, "p");
  const auto occurrences = [&](const std::string& needle) {
    std::size_t n = 0;
    for (std::size_t at = svg.find(needle); at != std::string::npos; at = svg.find(needle, at + 1))
      ++n;
    return n;
  };
  const std::regex frame(R"(<g class="profile-frame"><title>([^<]*)</title>)");
  std::vector<std::string> tips;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), frame); it != std::sregex_iterator();
       ++it)
    tips.push_back((*it)[1]);
  REQUIRE(tips.size() == 3);
  // The whole name, escaped, in the tooltip; drawn cut to the width with "…".
  CHECK(tips[0] ==
        "std::vector&lt;std::pair&lt;int, std::string&gt;&gt;::emplace_back&lt;int, "
        "std::string&gt;(int&amp;&amp;, std::string&amp;&amp;) const: added");
  CHECK_THAT(svg, Catch::Contains("…</text>"));
  // Slower red, unchanged grey, a bar only where the head has a cost (removed(): its outline).
  CHECK(occurrences(R"(fill="#B2182B" fill-opacity="1")") == 1);
  CHECK(occurrences(R"(fill="#8C8C8C" fill-opacity="0.55")") == 1);
  CHECK(occurrences(R"(fill="#2166AC" fill-opacity)") == 0);
  CHECK(occurrences(R"(fill="none" stroke="#555555" stroke-dasharray="3 2")") ==
        1 + 2);  // the legend's, removed()'s and same()'s
}
