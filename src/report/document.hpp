// The content of a report before it becomes Markdown or HTML: headings, paragraphs, lists and
// tables of already formatted text, plus chart specifications that only the HTML form draws.
// Building the content once and rendering it twice keeps the two forms saying the same thing.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace benchledger::report {

struct Span {
  enum class Style { plain, code, strong, link };
  std::string text;
  Style style = Style::plain;
  std::string target;  // a link's address (an absolute URL); empty for the other styles
};
using Text = std::vector<Span>;

inline Span plain(std::string text) {
  return {std::move(text), Span::Style::plain, {}};
}
inline Span code(std::string text) {
  return {std::move(text), Span::Style::code, {}};
}
inline Span strong(std::string text) {
  return {std::move(text), Span::Style::strong, {}};
}
inline Span link_to(std::string text, std::string target) {
  return {std::move(text), Span::Style::link, std::move(target)};
}

struct Cell {
  Text text;
  std::string mark;  // a class for HTML (`regression`, `differs`, …); the text carries the meaning
  // A symbol drawn before the text: a verdict (`regression`, `improvement`, `unchanged`,
  // `inconclusive`, `new`, `missing`, `accepted`). Markdown shows it as an emoji, HTML as an
  // inline SVG symbol (no font on the reader's machine needs to have the emoji).
  std::string icon;
};

enum class Align { left, right };

struct Table {
  std::vector<std::string> header;
  std::vector<Align> align;
  std::vector<std::vector<Cell>> rows;
};

struct Heading {
  int level = 2;
  std::string text;
};

struct Paragraph {
  Text text;
  std::string mark;  // a class for HTML (`summary`, `note`)
};

struct BulletList {
  std::vector<Text> items;
};

// Charts (HTML only). Values are already in the unit named by the axis label.
struct ChartPoint {
  double x = 0;
  double y = 0;
  std::optional<double> low, high;  // a band around y, when known
  std::string tip;                  // tooltip text (an SVG <title>)
};

struct ChartSeries {
  std::string name;
  std::vector<ChartPoint> points;
  bool line = true;  // joined by a line, or markers only
};

// A vertical mark between two x positions of a line chart: a change point of a trend, drawn
// before the first run after the change, with a short label and a tooltip.
struct ChartMark {
  double x = 0;       // where the mark stands (between two runs: half-way)
  std::string label;  // drawn at the top of the mark: "+30.1%"
  std::string tip;    // tooltip text (an SVG <title>)
};

struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::string note;  // a short remark above the plot: "lower is better"
  bool log_x = false;
  // Tick labels at given x positions (a trend's run dates); empty: numeric ticks.
  std::vector<std::pair<double, std::string>> x_ticks;
  std::vector<ChartSeries> series;  // series i uses style i of the palette
  // Style index per series, when a series must keep its meaning across charts (base, current).
  std::vector<int> styles;
  std::vector<ChartMark> marks;  // with a legend entry `marks_name` when there are any
  std::string marks_name;
};

struct SampleGroup {
  std::string name;
  std::vector<double> samples;
  int style = 0;
};

// Box plot with every sample drawn over it, one row per group, on a shared axis.
struct DistributionChart {
  std::string title;
  std::string axis_label;
  std::string unit;  // the unit the samples are in, for the medians printed over each row
  std::vector<SampleGroup> groups;
};

// One function of a ProfileChart: its self cost on each side (0 where a side does not name it).
struct ProfileBar {
  std::string name;
  double base = 0, head = 0;
  double change = 0;         // head - base
  std::string change_label;  // drawn at the end of the row: "+1,000,010"
  std::string tip;           // tooltip text (an SVG <title>): function, base, head, change
};

// Where a case's cost went, base against head: a bar a function, its length the head's self
// cost, the base's outlined, coloured by the change (red slower, blue faster, grey the same),
// deeper the larger the change is against the function's cost. Profiles keep self cost per
// function and no call stacks, so it is a differential bar chart of functions, not a flame
// graph: no bar stands on another.
struct ProfileChart {
  std::string title;
  std::string note;  // a short remark above the bars: what the lengths are
  std::vector<ProfileBar> bars;
};

// One frame of a FlameChart: a function on one path of calls, `depth` calls from a root.
struct FlameBox {
  std::string name;
  std::size_t depth = 0;
  double start = 0, width = 0;  // in the head's cost, of FlameChart::width
  double change = 0;            // head - base on this path
  double relative = 0;          // the change against the larger side, -1 to 1
  std::string tip;              // tooltip text: function, path cost on both sides, change
};

// A differential flame graph (profile/flame_graph.hpp): each function stacked on its caller, its
// width what the head spends on that path, coloured by the change since the base as the
// ProfileChart's bars are.
struct FlameChart {
  std::string title;
  std::string note;
  double width = 0;
  std::size_t depth = 0;
  std::vector<FlameBox> boxes;
};

using Chart = std::variant<LineChart, DistributionChart, ProfileChart, FlameChart>;

// Charts with an optional heading and introduction, all of it drawn in HTML only.
struct ChartGroup {
  std::string heading;  // empty: no heading
  int level = 2;
  Text intro;
  std::vector<Chart> charts;
};

using Block = std::variant<Heading, Paragraph, BulletList, Table, ChartGroup>;

struct Document {
  std::string title;
  std::vector<Block> blocks;
};

}  // namespace benchledger::report
