// The report as one self-contained HTML file: inline CSS, inline SVG, no script, no font, no
// image and no link to anything outside the file, so that it opens the same offline, in a CI
// artefact viewer or attached to a ticket.
#include <cctype>
#include <map>
#include <string>

#include <fmt/format.h>

#include "report/content.hpp"
#include "report/escape.hpp"
#include "report/report.hpp"
#include "report/svg.hpp"

namespace benchledger::report {
namespace {

// Narrow screens get a single column of charts and tables that scroll sideways inside their
// own box; wide screens get a grid. Verdict and "differs" marks carry a symbol and a word as
// well as a background, so colour is never the only signal.
constexpr const char* k_css = R"css(
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; background: #ffffff; color: #1b1b1b;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1240px; margin: 0 auto; padding: 16px 20px 40px; }
h1 { font-size: 1.7em; margin: 0.4em 0 0.3em; line-height: 1.25; }
h2 { font-size: 1.35em; margin: 1.6em 0 0.5em; padding-bottom: 0.2em; border-bottom: 1px solid #d0d7de; }
h3 { font-size: 1.15em; margin: 1.3em 0 0.4em; }
h4 { font-size: 1em; margin: 1.2em 0 0.4em; }
p { margin: 0.5em 0 0.9em; }
p.note { color: #4a4a4a; font-size: 0.9em; }
p.summary { background: #f3f6f9; border-left: 4px solid #0072B2; padding: 0.6em 0.9em; }
code { font: 0.9em/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  background: #f2f2f2; padding: 0.05em 0.3em; border-radius: 3px; overflow-wrap: break-word; }
svg.icon { vertical-align: -3px; }
.table-wrap { overflow-x: auto; margin: 0 0 0.6em; -webkit-overflow-scrolling: touch; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; font-size: 0.92em; }
th, td { padding: 4px 10px; border-bottom: 1px solid #d8dee4; text-align: left; vertical-align: top; }
th { background: #f6f8fa; font-weight: 600; white-space: nowrap; }
td.num, th.num { text-align: right; white-space: nowrap; }
td:first-child { min-width: 9em; }
td.differs { background: #fff3cd; }
td.regression { background: #fde2dd; font-weight: 600; }
td.improvement { background: #dcefe6; }
td.inconclusive { background: #fdf3d8; }
td.missing, td.new { background: #ececec; }
ul { padding-left: 1.3em; }
.charts { margin: 0.6em 0 1.2em; }
.chart-grid { display: grid; gap: 14px; grid-template-columns: repeat(auto-fill, minmax(min(100%, 380px), 1fr)); }
figure { margin: 0; padding: 8px 10px 6px; border: 1px solid #d8dee4; border-radius: 6px; background: #ffffff; }
figcaption { font-size: 0.88em; font-weight: 600; overflow-wrap: anywhere; margin-bottom: 4px; }
svg.chart { display: block; width: 100%; height: auto; font-family: inherit; }
@media (max-width: 640px) {
  body { font-size: 14px; }
  main { padding: 10px 10px 28px; }
  th, td { padding: 3px 6px; }
  h1 { font-size: 1.4em; }
}
@media print { .chart-grid { grid-template-columns: 1fr 1fr; } figure { break-inside: avoid; } }
)css";

std::string render(const Text& text) {
  std::string out;
  for (const Span& span : text) {
    switch (span.style) {
      case Span::Style::plain:
        out += escape_html(span.text);
        break;
      case Span::Style::code:
        out += "<code>" + escape_html(span.text) + "</code>";
        break;
      case Span::Style::strong:
        out += "<strong>" + escape_html(span.text) + "</strong>";
        break;
      case Span::Style::link:
        out += "<a href=\"" + escape_html(span.target) + "\">" + escape_html(span.text) + "</a>";
        break;
    }
  }
  return out;
}

// Verdict symbols drawn in SVG: a shape per verdict (exclamation mark, cross, tick, equals,
// question mark, plus, minus) on an Okabe–Ito disc, so that neither colour nor an emoji font is
// needed to tell them apart.
std::string icon_svg(const std::string& icon) {
  struct Symbol {
    const char* name;
    const char* colour;
    const char* shape;  // drawn in white on the disc, in a 16×16 box
  };
  static const Symbol symbols[] = {
      {"failed", "#000000",
       R"(<path d="M8 3.8V9.4" stroke="#fff" stroke-width="2.2"/><circle cx="8" cy="12" r="1.2" fill="#fff"/>)"},
      {"regression", "#D55E00",
       R"(<path d="M5 5L11 11M11 5L5 11" stroke="#fff" stroke-width="2.2"/>)"},
      {"improvement", "#009E73",
       R"(<path d="M4.5 8.5L7 11L11.5 5.5" fill="none" stroke="#fff" stroke-width="2.2"/>)"},
      {"unchanged", "#6E6E6E",
       R"(<path d="M4.5 6.5H11.5M4.5 9.5H11.5" stroke="#fff" stroke-width="1.8"/>)"},
      {"inconclusive", "#E69F00",
       R"(<path d="M6 6.2A2 2 0 1 1 8.6 8.2C8 8.5 8 9 8 9.8" fill="none" stroke="#fff" stroke-width="1.8"/><circle cx="8" cy="12" r="1.1" fill="#fff"/>)"},
      {"new", "#0072B2", R"(<path d="M8 4.5V11.5M4.5 8H11.5" stroke="#fff" stroke-width="2.2"/>)"},
      {"missing", "#000000", R"(<path d="M4.5 8H11.5" stroke="#fff" stroke-width="2.2"/>)"},
      {"accepted", "#CC79A7",
       R"(<path d="M4.5 8.5L7 11L11.5 5.5" fill="none" stroke="#fff" stroke-width="2.2"/>)"},
  };
  for (const Symbol& s : symbols) {
    if (icon != s.name) continue;
    return fmt::format(
        R"(<svg class="icon" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true"><circle cx="8" cy="8" r="8" fill="{}"/>{}</svg> )",
        s.colour, s.shape);
  }
  return {};
}

// An id for a heading, so that sections can be linked (`report.html#trends`): lower-case
// letters and digits of its text joined by '-', numbered when the same text comes again.
std::string anchor_of(const std::string& text, std::map<std::string, int>& used) {
  std::string slug;
  for (unsigned char c : text) {
    if (std::isalnum(c) != 0) {
      slug += static_cast<char>(std::tolower(c));
    } else if (!slug.empty() && slug.back() != '-') {
      slug += '-';
    }
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  if (slug.empty()) slug = "section";
  const int n = ++used[slug];
  return n == 1 ? slug : slug + "-" + std::to_string(n);
}

std::string render_table(const Table& table) {
  std::string out = "<div class=\"table-wrap\"><table>\n<thead><tr>";
  for (std::size_t i = 0; i < table.header.size(); ++i) {
    const bool num = i < table.align.size() && table.align[i] == Align::right;
    out += (num ? "<th class=\"num\" scope=\"col\">" : "<th scope=\"col\">") +
           escape_html(table.header[i]) + "</th>";
  }
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : table.rows) {
    out += "<tr>";
    for (std::size_t i = 0; i < row.size(); ++i) {
      std::string classes;
      if (i < table.align.size() && table.align[i] == Align::right) classes = "num";
      if (!row[i].mark.empty()) classes += (classes.empty() ? "" : " ") + row[i].mark;
      out += (classes.empty() ? "<td>" : "<td class=\"" + escape_html(classes) + "\">") +
             icon_svg(row[i].icon) + render(row[i].text) + "</td>";
    }
    out += "</tr>\n";
  }
  out += "</tbody></table></div>\n";
  return out;
}

}  // namespace

std::string render_html(const ReportInput& input) {
  const Document doc = build_document(input);
  std::string out;
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<title>" + escape_html(doc.title) + "</title>\n";
  out += "<style>" + std::string(k_css) + "</style>\n</head>\n<body>\n<main>\n";
  out += "<h1>" + escape_html(doc.title) + "</h1>\n";
  int chart_index = 0;
  std::map<std::string, int> anchors;
  for (const Block& block : doc.blocks) {
    if (const auto* h = std::get_if<Heading>(&block)) {
      out += fmt::format("<h{0} id=\"{1}\">{2}</h{0}>\n", h->level, anchor_of(h->text, anchors),
                         escape_html(h->text));
    } else if (const auto* p = std::get_if<Paragraph>(&block)) {
      out += (p->mark.empty() ? "<p>" : "<p class=\"" + escape_html(p->mark) + "\">") +
             render(p->text) + "</p>\n";
    } else if (const auto* list = std::get_if<BulletList>(&block)) {
      out += "<ul>\n";
      for (const Text& item : list->items) out += "<li>" + render(item) + "</li>\n";
      out += "</ul>\n";
    } else if (const auto* table = std::get_if<Table>(&block)) {
      out += render_table(*table);
    } else if (const auto* group = std::get_if<ChartGroup>(&block)) {
      if (group->charts.empty()) continue;
      out += "<section class=\"charts\">\n";
      if (!group->heading.empty())
        out += fmt::format("<h{0} id=\"{1}\">{2}</h{0}>\n", group->level,
                           anchor_of(group->heading, anchors), escape_html(group->heading));
      if (!group->intro.empty()) out += "<p class=\"note\">" + render(group->intro) + "</p>\n";
      out += "<div class=\"chart-grid\">\n";
      for (const Chart& chart : group->charts) {
        const std::string& title =
            std::visit([](const auto& c) -> const std::string& { return c.title; }, chart);
        const std::string id = fmt::format("chart-{}", ++chart_index);
        out += "<figure><figcaption>" + escape_html(title) + "</figcaption>" +
               render_svg(chart, id) + "</figure>\n";
      }
      out += "</div>\n</section>\n";
    }
  }
  out += "</main>\n</body>\n</html>\n";
  return out;
}

}  // namespace benchledger::report
