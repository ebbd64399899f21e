// Inline SVG charts. Coordinates are in a fixed viewBox; CSS scales the element to the width
// of the page, so one drawing serves phones and desktops.
#include "report/svg.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "report/escape.hpp"
#include "report/format.hpp"
#include "stats/order_statistics.hpp"

namespace benchledger::report {
namespace {

enum class Marker { circle, square, triangle, diamond, triangle_down, cross, plus };

struct Style {
  const char* colour;
  const char* dash;  // stroke-dasharray, empty for solid
  Marker marker;
};

// Okabe–Ito, without yellow (too light on white). Blue and orange lead because they are the
// pair furthest apart in lightness, so they stay apart in greyscale (base and current).
constexpr std::array<Style, 7> k_styles{{
    {"#0072B2", "", Marker::circle},
    {"#E69F00", "7 4", Marker::square},
    {"#009E73", "2 3", Marker::triangle},
    {"#D55E00", "9 3 2 3", Marker::diamond},
    {"#CC79A7", "12 4", Marker::triangle_down},
    {"#56B4E9", "4 2 1 2", Marker::cross},
    {"#000000", "1 3", Marker::plus},
}};

constexpr double k_width = 480;
// Font sizes in viewBox units: the drawing is scaled to ~360–400 px on most screens, so these
// come out at about 10–12 px.
constexpr double k_tick_font = 12.5;
constexpr double k_label_font = 13.5;
constexpr double k_legend_font = 13;
constexpr const char* k_text = "#222222";
constexpr const char* k_axis = "#555555";
constexpr const char* k_grid = "#e4e4e4";

const Style& style_at(int index) {
  const int n = static_cast<int>(k_styles.size());
  return k_styles[static_cast<std::size_t>(((index % n) + n) % n)];
}

std::string num(double v) {
  // Two decimals are plenty for coordinates; avoid "-0.00".
  std::string s = fmt::format("{:.2f}", v);
  if (s == "-0.00") s = "0.00";
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

double text_width(std::string_view text, double size) {
  // An estimate for a sans-serif face: wide enough to keep labels from colliding.
  std::size_t chars = 0;
  for (unsigned char c : text) {
    if ((c & 0xC0) != 0x80) ++chars;  // count UTF-8 code points
  }
  return static_cast<double>(chars) * size * 0.58;
}

std::string marker(const Style& style, double x, double y, double r, bool hollow,
                   const std::string& tip) {
  const std::string paint =
      hollow ? fmt::format(R"( fill="#ffffff" stroke="{}" stroke-width="2")", style.colour)
             : fmt::format(R"( fill="{}" stroke="#ffffff" stroke-width="0.8")", style.colour);
  const std::string line_paint = fmt::format(R"( fill="none" stroke="{}" stroke-width="{}")",
                                             style.colour, hollow ? "2.2" : "1.8");
  const std::string title = tip.empty() ? "" : "<title>" + escape_html(tip) + "</title>";
  const auto close = [&](const std::string& open, const std::string& attrs) {
    return title.empty() ? open + attrs + "/>"
                         : open + attrs + ">" + title + "</" + open.substr(1) + ">";
  };
  switch (style.marker) {
    case Marker::circle:
      return close("<circle",
                   fmt::format(R"( cx="{}" cy="{}" r="{}"{})", num(x), num(y), num(r), paint));
    case Marker::square: {
      const double s = r * 0.9;
      return close("<rect", fmt::format(R"( x="{}" y="{}" width="{}" height="{}"{})", num(x - s),
                                        num(y - s), num(2 * s), num(2 * s), paint));
    }
    case Marker::triangle: {
      const double s = r * 1.2;
      return close("<path",
                   fmt::format(R"( d="M{},{}L{},{}L{},{}Z"{})", num(x), num(y - s), num(x + s),
                               num(y + s * 0.8), num(x - s), num(y + s * 0.8), paint));
    }
    case Marker::triangle_down: {
      const double s = r * 1.2;
      return close("<path",
                   fmt::format(R"( d="M{},{}L{},{}L{},{}Z"{})", num(x), num(y + s), num(x + s),
                               num(y - s * 0.8), num(x - s), num(y - s * 0.8), paint));
    }
    case Marker::diamond: {
      const double s = r * 1.25;
      return close("<path",
                   fmt::format(R"( d="M{},{}L{},{}L{},{}L{},{}Z"{})", num(x), num(y - s),
                               num(x + s), num(y), num(x), num(y + s), num(x - s), num(y), paint));
    }
    case Marker::cross: {
      const double s = r * 0.9;
      return close("<path", fmt::format(R"( d="M{},{}L{},{}M{},{}L{},{}"{})", num(x - s),
                                        num(y - s), num(x + s), num(y + s), num(x - s), num(y + s),
                                        num(x + s), num(y - s), line_paint));
    }
    case Marker::plus: {
      const double s = r * 1.1;
      return close("<path",
                   fmt::format(R"( d="M{},{}L{},{}M{},{}L{},{}"{})", num(x - s), num(y), num(x + s),
                               num(y), num(x), num(y - s), num(x), num(y + s), line_paint));
    }
  }
  return {};
}

// `extra`: more attributes, each with its leading space; `fill`: the text's colour (an attribute
// written once: an SVG element may not repeat one).
std::string text(double x, double y, std::string_view content, const char* anchor, double size,
                 const std::string& extra = {}, const char* fill = k_text) {
  return fmt::format(R"(<text x="{}" y="{}" text-anchor="{}" font-size="{}" fill="{}"{}>{}</text>)",
                     num(x), num(y), anchor, num(size), fill, extra, escape_html(content));
}

int decimals_for(double step) {
  if (step <= 0 || !std::isfinite(step)) return 0;
  return std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
}

std::string tick_label(double v, int decimals) {
  return format_fixed(v, decimals);
}

// A linear or log10 mapping from data to pixels.
struct Scale {
  double d0 = 0, d1 = 1, p0 = 0, p1 = 1;
  bool log = false;
  double operator()(double v) const {
    const double t = log ? std::log10(v) : v;
    // Halves: the distance between two finite doubles may overflow, half of it cannot.
    const double span = d1 / 2 - d0 / 2;
    if (!(span > 0)) return (p0 + p1) / 2;
    return p0 + (t / 2 - d0 / 2) / span * (p1 - p0);
  }
};

// Change points: a colour of the palette that no trend series uses (they take styles 0, 1, 3).
constexpr const char* k_mark = "#CC79A7";

// A change point's flag: a downward triangle whose tip is at (x, y).
std::string mark_flag(double x, double y) {
  return fmt::format(
      R"(<path d="M{},{}L{},{}L{},{}Z" fill="{}" stroke="#ffffff" stroke-width="0.8"/>)", num(x),
      num(y), num(x + 6), num(y - 9), num(x - 6), num(y - 9), k_mark);
}

std::string mark_line(double x, double y0, double y1) {
  return fmt::format(
      R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="1.6" stroke-dasharray="5 3"/>)",
      num(x), num(y0), num(x), num(y1), k_mark);
}

// The legend: one entry per named series, then the marks' entry when `mark_name` is not empty,
// wrapped into rows; returns the rows' height.
double legend(std::string& out, const std::vector<std::pair<std::string, int>>& entries, double y0,
              const std::vector<bool>& lines, const std::string& mark_name) {
  double x = 10, y = y0;
  const double row = 19;
  const auto place = [&](const std::string& name) {
    const double w = 30 + text_width(name, k_legend_font) + 14;
    if (x + w > k_width - 8 && x > 10) {
      x = 10;
      y += row;
    }
    return w;
  };
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& [name, style_index] = entries[i];
    const double w = place(name);
    const Style& s = style_at(style_index);
    if (lines[i]) {
      out +=
          fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="2"{}/>)",
                      num(x), num(y), num(x + 24), num(y), s.colour,
                      *s.dash ? fmt::format(R"( stroke-dasharray="{}")", s.dash) : std::string());
    }
    out += marker(s, x + 12, y, lines[i] ? 3.5 : 5, !lines[i], "");
    out += text(x + 30, y + 4.5, name, "start", k_legend_font);
    x += w;
  }
  if (!mark_name.empty()) {
    const double w = place(mark_name);
    out += mark_line(x + 12, y - 7, y + 8) + mark_flag(x + 12, y + 1);
    out += text(x + 30, y + 4.5, mark_name, "start", k_legend_font);
    x += w;
  }
  return y - y0 + row;
}

// The extent of a line chart's data, y widened to show zero when it is near, and to a band
// when every value is the same.
struct DataRange {
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
};

DataRange data_range(const LineChart& chart) {
  DataRange r;
  for (const ChartSeries& s : chart.series) {
    for (const ChartPoint& p : s.points) {
      r.xlo = std::min(r.xlo, p.x);
      r.xhi = std::max(r.xhi, p.x);
      r.ylo = std::min({r.ylo, p.y, p.low.value_or(p.y)});
      r.yhi = std::max({r.yhi, p.y, p.high.value_or(p.y)});
    }
  }
  if (!std::isfinite(r.xlo)) r = {0, 1, 0, 1};
  if (r.ylo >= 0 && r.ylo <= r.yhi * 0.5) r.ylo = 0;  // near zero anyway: show it
  if (r.yhi == r.ylo) {
    const double pad = r.ylo == 0 ? 1 : std::fabs(r.ylo) * 0.1;
    r.ylo -= pad;
    r.yhi += pad;
    if (r.ylo < 0 && r.yhi > 0 && r.ylo + pad >= 0) r.ylo = 0;
  }
  return r;
}

// The x axis's domain (its pixels are the caller's) and its ticks: the chart's own (positions
// are indexes), decades or the values themselves on a log scale, or round numbers.
std::vector<std::pair<double, std::string>> x_axis(const LineChart& chart, const DataRange& r,
                                                   Scale& x) {
  std::vector<std::pair<double, std::string>> xticks = chart.x_ticks;
  if (!chart.x_ticks.empty()) {
    // Positions are indexes: half a step of room on each side.
    x.d0 = r.xlo - 0.5;
    x.d1 = r.xhi + 0.5;
  } else if (chart.log_x && r.xlo > 0) {
    x.log = true;
    const double span = std::max(std::log10(r.xhi) - std::log10(r.xlo), 1e-9);
    x.d0 = std::log10(r.xlo) - span * 0.05;
    x.d1 = std::log10(r.xhi) + span * 0.05;
    std::set<double> values;
    for (const ChartSeries& s : chart.series) {
      for (const ChartPoint& p : s.points) values.insert(p.x);
    }
    if (values.size() <= 12) {
      for (double v : values) xticks.emplace_back(v, fmt::format("{}", v));
    } else {
      // Powers of ten: at most 632 of them from the least to the greatest positive double.
      for (double e = std::ceil(x.d0); e <= x.d1; e += 1)
        xticks.emplace_back(std::pow(10, e), fmt::format("{}", std::pow(10, e)));
    }
  } else {
    const std::vector<double> ticks = nice_ticks(r.xlo, r.xhi == r.xlo ? r.xlo + 1 : r.xhi, 6);
    x.d0 = ticks.front();
    x.d1 = ticks.back();
    const int xdec = decimals_for(ticks.size() > 1 ? ticks[1] - ticks[0] : 1);
    for (double t : ticks) xticks.emplace_back(t, tick_label(t, xdec));
  }
  return xticks;
}

// Where a line chart's plot sits in the drawing.
struct PlotArea {
  double left = 0, right = 12, top = 0, bottom = 0;
};

// The grid and labels of the y ticks, the x ticks (skipping labels that would overlap the
// previous one), the axes and their labels.
void draw_axes(std::string& body, const LineChart& chart, const PlotArea& area, const Scale& x,
               const Scale& y, const std::vector<double>& yticks, int ydec,
               const std::vector<std::pair<double, std::string>>& xticks) {
  for (double t : yticks) {
    const double py = y(t);
    body += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}"/>)", num(area.left),
                        num(py), num(k_width - area.right), num(py), k_grid);
    body += text(area.left - 6, py + 4.5, tick_label(t, ydec), "end", k_tick_font);
  }
  double last_right = -INFINITY;
  for (const auto& [v, label] : xticks) {
    const double px = x(v);
    body += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}"/>)", num(px),
                        num(area.bottom), num(px), num(area.bottom + 5), k_axis);
    const double w = text_width(label, k_tick_font);
    // Keep labels at the edges inside the drawing.
    const double cx = std::min(std::max(px, w / 2 + 2), k_width - w / 2 - 2);
    if (cx - w / 2 < last_right + 6) continue;
    body += text(cx, area.bottom + 19, label, "middle", k_tick_font);
    last_right = cx + w / 2;
  }
  body += fmt::format(R"(<path d="M{},{}V{}H{}" fill="none" stroke="{}"/>)", num(area.left),
                      num(area.top), num(area.bottom), num(k_width - area.right), k_axis);
  body += text((area.left + k_width - area.right) / 2, area.bottom + 40, chart.x_label, "middle",
               k_label_font);
  const double ymid = (area.top + area.bottom) / 2;
  body += text(14, ymid, chart.y_label, "middle", k_label_font,
               fmt::format(R"x( transform="rotate(-90 14 {})")x", num(ymid)));
}

const Style& series_style(const LineChart& chart, std::size_t i) {
  return style_at(i < chart.styles.size() ? chart.styles[i] : static_cast<int>(i));
}

// The series: whiskers for bands, then lines, then markers over both.
void draw_series(std::string& body, const LineChart& chart, const Scale& x, const Scale& y) {
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const ChartSeries& s = chart.series[i];
    const Style& st = series_style(chart, i);
    if (!s.line) continue;
    for (const ChartPoint& p : s.points) {
      if (!p.low || !p.high) continue;
      const double px = x(p.x);
      body += fmt::format(
          R"(<path d="M{},{}V{}M{},{}H{}M{},{}H{}" stroke="{}" stroke-opacity="0.5" fill="none"/>)",
          num(px), num(y(*p.low)), num(y(*p.high)), num(px - 3), num(y(*p.low)), num(px + 3),
          num(px - 3), num(y(*p.high)), num(px + 3), st.colour);
    }
    if (s.points.size() > 1) {
      std::string d;
      for (const ChartPoint& p : s.points)
        d += (d.empty() ? "M" : "L") + num(x(p.x)) + "," + num(y(p.y));
      body +=
          fmt::format(R"(<path d="{}" fill="none" stroke="{}" stroke-width="2"{}/>)", d, st.colour,
                      *st.dash ? fmt::format(R"( stroke-dasharray="{}")", st.dash) : std::string());
    }
  }
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const ChartSeries& s = chart.series[i];
    const Style& st = series_style(chart, i);
    for (const ChartPoint& p : s.points)
      body += marker(st, x(p.x), y(p.y), s.line ? 3.5 : 6.5, !s.line, p.tip);
  }
}

// Marks over the series, each a group whose <title> is the tooltip of its line and flag.
void draw_marks(std::string& body, const LineChart& chart, const PlotArea& area, const Scale& x) {
  for (const ChartMark& m : chart.marks) {
    const double px = x(m.x);
    const double w = text_width(m.label, k_tick_font);
    const bool label_left = px + 8 + w > k_width - area.right;
    body += R"(<g class="change-point">)";
    body += "<title>" + escape_html(m.tip) + "</title>";
    body += mark_line(px, area.top + 2, area.bottom);
    body += mark_flag(px, area.top + 10);
    // A white halo keeps the label readable over the grid and the lines.
    body += text(label_left ? px - 8 : px + 8, area.top + 11, m.label, label_left ? "end" : "start",
                 k_tick_font, R"( stroke="#ffffff" stroke-width="3" paint-order="stroke")");
    body += "</g>";
  }
}

std::string line_chart(const LineChart& chart, const std::string& id) {
  const DataRange range = data_range(chart);
  const std::vector<double> yticks = nice_ticks(range.ylo, range.yhi, 5);
  const int ydec = decimals_for(yticks.size() > 1 ? yticks[1] - yticks[0] : 1);

  std::string body;
  // Legend on top.
  std::vector<std::pair<std::string, int>> entries;
  std::vector<bool> lines;
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    if (chart.series[i].points.empty()) continue;
    const int style = i < chart.styles.size() ? chart.styles[i] : static_cast<int>(i);
    entries.emplace_back(chart.series[i].name, style);
    lines.push_back(chart.series[i].line);
  }
  const double legend_height =
      legend(body, entries, 14, lines, chart.marks.empty() ? std::string() : chart.marks_name);

  double label_width = 0;
  for (double t : yticks)
    label_width = std::max(label_width, text_width(tick_label(t, ydec), k_tick_font));
  PlotArea area;
  area.left = std::max(48.0, label_width + 32);
  area.top = 14 + legend_height + (chart.note.empty() ? 6 : 20);
  if (!chart.note.empty()) {
    body += text(k_width - area.right, area.top - 8, chart.note, "end", k_tick_font,
                 R"( font-style="italic")");
  }
  const double plot_height = 190;
  area.bottom = area.top + plot_height;
  const double height = area.bottom + 50;

  const Scale y{yticks.front(), yticks.back(), area.bottom, area.top, false};
  Scale x;
  x.p0 = area.left;
  x.p1 = k_width - area.right;
  const std::vector<std::pair<double, std::string>> xticks = x_axis(chart, range, x);
  draw_axes(body, chart, area, x, y, yticks, ydec, xticks);
  draw_series(body, chart, x, y);
  draw_marks(body, chart, area, x);
  return fmt::format(
      R"(<svg viewBox="0 0 {} {}" role="img" aria-labelledby="{}" class="chart line-chart"><title id="{}">{}</title>{}</svg>)",
      num(k_width), num(height), id, id,
      escape_html(chart.title + ": " + chart.y_label + " by " + chart.x_label), body);
}

// A horizontal value axis under rows from `top` to `axis_y`: a grid line and a labelled tick at
// each of `ticks`, the axis, and `label` under it, across the scale's pixel range.
std::string value_axis(const Scale& x, const std::vector<double>& ticks, double top, double axis_y,
                       const std::string& label) {
  const int dec = decimals_for(ticks.size() > 1 ? ticks[1] - ticks[0] : 1);
  std::string out;
  for (double t : ticks) {
    const double px = x(t);
    out += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}"/>)", num(px), num(top),
                       num(px), num(axis_y), k_grid);
    out += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}"/>)", num(px),
                       num(axis_y), num(px), num(axis_y + 5), k_axis);
    const double w = text_width(tick_label(t, dec), k_tick_font);
    out += text(std::min(std::max(px, w / 2 + 2), k_width - w / 2 - 2), axis_y + 19,
                tick_label(t, dec), "middle", k_tick_font);
  }
  out += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}"/>)", num(x.p0),
                     num(axis_y), num(x.p1), num(axis_y), k_axis);
  out += text((x.p0 + x.p1) / 2, axis_y + 40, label, "middle", k_label_font);
  return out;
}

std::string distribution_chart(const DistributionChart& chart, const std::string& id) {
  double lo = INFINITY, hi = -INFINITY;
  for (const SampleGroup& g : chart.groups) {
    for (double v : g.samples) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  if (lo == hi) {
    const double pad = lo == 0 ? 1 : std::fabs(lo) * 0.05;
    lo -= pad;
    hi += pad;
  }
  const std::vector<double> ticks = nice_ticks(lo, hi, 5);
  const double left = 16, right = 16;
  const double row = 58;
  const double top = 8;
  const double axis_y = top + row * static_cast<double>(chart.groups.size()) + 4;
  const double height = axis_y + 48;
  Scale x{ticks.front(), ticks.back(), left, k_width - right, false};

  std::string body = value_axis(x, ticks, top, axis_y, chart.axis_label);

  for (std::size_t g = 0; g < chart.groups.size(); ++g) {
    const SampleGroup& group = chart.groups[g];
    const Style& st = style_at(group.style);
    const double row_top = top + row * static_cast<double>(g);
    const double cy = row_top + 34;
    std::vector<double> sorted = group.samples;
    std::sort(sorted.begin(), sorted.end());
    const std::string n_text = fmt::format("{}: n={}", group.name, sorted.size());
    if (sorted.empty()) {
      body += text(left, row_top + 13, n_text, "start", k_label_font);
      continue;
    }
    const double q1 = stats::quantile_sorted(sorted, 0.25),
                 med = stats::quantile_sorted(sorted, 0.5),
                 q3 = stats::quantile_sorted(sorted, 0.75);
    const std::string median = format_number(med, 4) + (chart.unit.empty() ? "" : " " + chart.unit);
    body += text(left, row_top + 13, fmt::format("{}, median {}", n_text, median), "start",
                 k_label_font);
    // Whiskers to the extremes (every sample is drawn too), box from q1 to q3, median line.
    body +=
        fmt::format(R"(<path d="M{},{}H{}M{},{}H{}M{},{}V{}M{},{}V{}" stroke="{}" fill="none"/>)",
                    num(x(sorted.front())), num(cy), num(x(q1)), num(x(q3)), num(cy),
                    num(x(sorted.back())), num(x(sorted.front())), num(cy - 6), num(cy + 6),
                    num(x(sorted.back())), num(cy - 6), num(cy + 6), st.colour);
    body += fmt::format(
        R"(<rect x="{}" y="{}" width="{}" height="16" fill="{}" fill-opacity="0.15" stroke="{}" stroke-width="1.5"{}/>)",
        num(x(q1)), num(cy - 8), num(std::max(x(q3) - x(q1), 1.0)), st.colour, st.colour,
        *st.dash ? fmt::format(R"( stroke-dasharray="{}")", st.dash) : std::string());
    body += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="3"/>)",
                        num(x(med)), num(cy - 10), num(x(med)), num(cy + 10), st.colour);
    // Samples in the order recorded, jittered vertically by the golden-ratio sequence.
    for (std::size_t i = 0; i < group.samples.size(); ++i) {
      const double frac = std::fmod(static_cast<double>(i + 1) * 0.6180339887498949, 1.0);
      body +=
          marker(st, x(group.samples[i]), cy + (frac - 0.5) * 18, 3.2, false,
                 fmt::format("{} #{}: {}{}", group.name, i + 1, format_number(group.samples[i], 4),
                             chart.unit.empty() ? "" : " " + chart.unit));
    }
  }
  return fmt::format(
      R"(<svg viewBox="0 0 {} {}" role="img" aria-labelledby="{}" class="chart distribution-chart"><title id="{}">{}</title>{}</svg>)",
      num(k_width), num(height), id, id,
      escape_html(chart.title + ": distribution of " + chart.axis_label), body);
}

// A ProfileChart's colours: red and blue of ColorBrewer's RdBu (a diverging pair that readers with
// the common colour-vision deficiencies still tell apart), grey for no change. Each row also
// says its change in words, so that colour is never the only signal.
constexpr const char* k_slower = "#B2182B";
constexpr const char* k_faster = "#2166AC";
constexpr const char* k_same = "#8C8C8C";

// `text` cut to about `width` viewBox units at `size`, with "…" when cut (whole code points).
std::string fit_text(const std::string& text, double width, double size) {
  if (text_width(text, size) <= width) return text;
  const auto keep = static_cast<std::size_t>(std::max(width / (size * 0.58) - 1, 1.0));
  std::string out;
  std::size_t chars = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80 && chars++ == keep) break;
    out += c;
  }
  return out + "…";
}

std::string profile_chart(const ProfileChart& chart, const std::string& id) {
  double most = 0;
  for (const ProfileBar& bar : chart.bars) most = std::max({most, bar.base, bar.head});
  const std::vector<double> ticks = nice_ticks(0, most > 0 ? most : 1, 4);
  const double left = 10, right = 10;
  Scale x{0, ticks.back(), left, k_width - right, false};

  std::string body;
  // The legend: what the colours and the outline mean.
  double lx = 10;
  const double ly = 14;
  for (const auto& [colour, name] : {std::pair{k_slower, "slower"}, std::pair{k_faster, "faster"},
                                     std::pair{k_same, "unchanged"}}) {
    body += fmt::format(R"(<rect x="{}" y="{}" width="14" height="10" fill="{}"/>)", num(lx),
                        num(ly - 6), colour);
    body += text(lx + 19, ly + 4, name, "start", k_legend_font);
    lx += 19 + text_width(name, k_legend_font) + 16;
  }
  body += fmt::format(
      R"(<rect x="{}" y="{}" width="14" height="10" fill="none" stroke="{}" stroke-dasharray="3 2"/>)",
      num(lx), num(ly - 6), k_axis);
  body += text(lx + 19, ly + 4, "base", "start", k_legend_font);
  double top = ly + 14;
  if (!chart.note.empty()) {
    body += text(left, top + 10, chart.note, "start", k_tick_font, R"( font-style="italic")");
    top += 18;
  }
  const double row = 34;
  const double axis_y = top + row * static_cast<double>(chart.bars.size()) + 4;
  const double height = axis_y + 48;

  body += value_axis(x, ticks, top, axis_y, "self cost per operation");

  for (std::size_t i = 0; i < chart.bars.size(); ++i) {
    const ProfileBar& bar = chart.bars[i];
    const double row_top = top + row * static_cast<double>(i);
    const char* colour = bar.change > 0 ? k_slower : bar.change < 0 ? k_faster : k_same;
    // Deeper the larger the change against the function's own cost: an added function is the
    // deepest red, a 1% change of a large one pale.
    const double cost = std::max(bar.base, bar.head);
    const double relative = cost > 0 ? std::abs(bar.change) / cost : 0;
    const double opacity = bar.change == 0 ? 0.55 : 0.35 + 0.65 * std::min(1.0, relative / 0.5);
    body += R"(<g class="profile-frame">)";
    body += "<title>" + escape_html(bar.tip) + "</title>";
    const double label_width = text_width(bar.change_label, k_tick_font);
    body += text(left, row_top + 12,
                 fit_text(bar.name, k_width - left - right - label_width - 12, k_tick_font),
                 "start", k_tick_font);
    body += text(k_width - right, row_top + 12, bar.change_label, "end", k_tick_font, "",
                 bar.change == 0 ? k_axis : colour);
    const double bar_y = row_top + 17;
    if (bar.head > 0) {
      body += fmt::format(
          R"(<rect x="{}" y="{}" width="{}" height="12" fill="{}" fill-opacity="{}"/>)", num(left),
          num(bar_y), num(std::max(x(bar.head) - left, 1.0)), colour, num(opacity));
    }
    if (bar.base > 0) {
      body += fmt::format(
          R"(<rect x="{}" y="{}" width="{}" height="12" fill="none" stroke="{}" stroke-dasharray="3 2"/>)",
          num(left), num(bar_y), num(std::max(x(bar.base) - left, 1.0)), k_axis);
    }
    body += "</g>";
  }
  return fmt::format(
      R"(<svg viewBox="0 0 {} {}" role="img" aria-labelledby="{}" class="chart profile-chart"><title id="{}">{}</title>{}</svg>)",
      num(k_width), num(height), id, id,
      escape_html(chart.title + ": self cost per operation of each function, base against head"),
      body);
}

// A differential flame graph: the roots at the bottom, each caller's callees above it, a row a
// call. Colours as the profile chart's, deeper the larger the change against the path's cost.
std::string flame_chart(const FlameChart& chart, const std::string& id) {
  const double left = 10, right = 10, row = 17;
  const double span = k_width - left - right;
  std::string body;
  double top = 8;
  if (!chart.note.empty()) {
    body += text(left, top + 10, chart.note, "start", k_tick_font, R"( font-style="italic")");
    top += 18;
  }
  const double bottom = top + row * static_cast<double>(chart.depth);
  const double scale = chart.width > 0 ? span / chart.width : 0;
  for (const FlameBox& box : chart.boxes) {
    const double width = box.width * scale;
    if (width < 0.5) continue;  // narrower than what a screen shows
    const double x = left + box.start * scale;
    const double y = bottom - row * static_cast<double>(box.depth + 1);
    const char* colour = box.change > 0 ? k_slower : box.change < 0 ? k_faster : k_same;
    const double opacity =
        box.change == 0 ? 0.35 : 0.3 + 0.7 * std::min(1.0, std::abs(box.relative) / 0.5);
    body += R"(<g class="flame-frame">)";
    body += "<title>" + escape_html(box.tip) + "</title>";
    body += fmt::format(
        R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}" fill-opacity="{}" stroke="#FFFFFF" stroke-width="0.5"/>)",
        num(x), num(y), num(width), num(row - 1), colour, num(opacity));
    // White on the deep colours, dark on the pale ones: legible either way.
    if (width > 24) {
      body += text(x + 3, y + 12, fit_text(box.name, width - 6, 10), "start", 10, "",
                   opacity > 0.6 && box.change != 0 ? "#FFFFFF" : k_text);
    }
    body += "</g>";
  }
  return fmt::format(
      R"(<svg viewBox="0 0 {} {}" role="img" aria-labelledby="{}" class="chart flame-chart"><title id="{}">{}</title>{}</svg>)",
      num(k_width), num(bottom + 8), id, id,
      escape_html(chart.title + ": a differential flame graph of the calls"), body);
}

}  // namespace

int style_count() {
  return static_cast<int>(k_styles.size());
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  // Values come from records, which hold any finite double: a span may overflow (1e308 and
  // -1e308), be too small for the doubles around it (1e20 and 1e20 + 1), or a step may not move
  // a tick. Every case ends in at most k_max_ticks ticks, else the two ends alone.
  constexpr int k_max_ticks = 64;
  constexpr double k_most = std::numeric_limits<double>::max();
  if (std::isnan(lo) || std::isnan(hi)) lo = 0, hi = 1;
  lo = std::clamp(lo, -k_most, k_most);  // a padding that overflowed to infinity, say
  hi = std::clamp(hi, -k_most, k_most);
  if (!(hi > lo)) {
    const double pad = std::max(std::fabs(lo) * 0.1, 1.0);
    if (lo + pad > lo && std::isfinite(lo + pad)) {
      hi = lo + pad;
    } else {
      lo = lo - pad;  // no room above the greatest double, or 1 is lost below its precision
    }
  }
  const double span = hi / 2 - lo / 2;  // half the span: finite for any two finite doubles
  const double raw = span / std::max(target, 1) * 2;
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  const double norm = raw / magnitude;
  const double step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * magnitude;
  // Ticks as whole multiples of the step, so that none overflows on the way to the last.
  const double first = std::floor(lo / step + 1e-9);
  const double end = std::ceil(hi / step - 1e-9) * step;
  std::vector<double> ticks;
  if (std::isfinite(step) && step > 0 && std::isfinite(first) && std::isfinite(end)) {
    for (int i = 0; i <= k_max_ticks; ++i) {
      double t = (first + i) * step;
      if (!std::isfinite(t)) break;  // beyond the greatest double: the two ends below
      if (std::fabs(t) < step * 1e-9) t = 0;
      if (!ticks.empty() && !(t > ticks.back())) break;  // the step no longer moves a tick
      ticks.push_back(t);
      if (t >= end - step * 1e-9) return ticks;
    }
  }
  return {lo, hi};
}

std::string render_svg(const Chart& chart, const std::string& id) {
  if (const auto* line = std::get_if<LineChart>(&chart)) return line_chart(*line, id);
  if (const auto* profile = std::get_if<ProfileChart>(&chart)) return profile_chart(*profile, id);
  if (const auto* flame = std::get_if<FlameChart>(&chart)) return flame_chart(*flame, id);
  return distribution_chart(std::get<DistributionChart>(chart), id);
}

}  // namespace benchledger::report
