// The HTML report holds the Markdown's content plus one chart per trend, scaling slice group
// and compared case, with text from records escaped and nothing outside the file referenced.
#include <regex>

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

// Trends as collect_history would make them: the fixture history of the current run.
std::vector<Trend> trends_of(const std::vector<RunData>& history) {
  std::vector<Trend> trends;
  for (const ResultRecord& r : history.back().results) {
    Trend trend;
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
        trend.points.push_back({data.run.header.id, data.run.header.time, data.run.label, hm.value,
                                hm.summary.min, hm.summary.max});
      }
    }
    trends.push_back(std::move(trend));
  }
  return trends;
}

}  // namespace

TEST_CASE("the HTML page draws a trend per case, scaling curves and distributions") {
  ReportInput input;
  input.base = fixtures::baseline_run();
  input.runs.push_back(fixtures::current_run());
  input.comparisons.push_back({input.runs[0].run.header.id,
                               compare::compare_sides({{input.base->run}, input.base->results},
                                                      {{input.runs[0].run}, input.runs[0].results},
                                                      {}, compare::CompareOptions{})});
  input.trends = trends_of(fixtures::history_before(fixtures::current_run(), 8));
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

TEST_CASE("quantile_sorted interpolates like numpy's default (type 7)") {
  // numpy.quantile([1, 2, 3, 4], [0, .25, .5, .75, 1]) == [1, 1.75, 2.5, 3.25, 4]
  const std::vector<double> v{1, 2, 3, 4};
  CHECK(quantile_sorted(v, 0) == 1);
  CHECK(quantile_sorted(v, 0.25) == Approx(1.75));
  CHECK(quantile_sorted(v, 0.5) == Approx(2.5));
  CHECK(quantile_sorted(v, 0.75) == Approx(3.25));
  CHECK(quantile_sorted(v, 1) == 4);
  CHECK(quantile_sorted({7}, 0.5) == 7);
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
