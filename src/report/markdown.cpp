// The report as GitHub-flavoured Markdown (https://github.github.com/gfm/): ATX headings,
// pipe tables, bullet lists. Text from records is escaped, so a `|` in a parameter or a `*` in
// a CPU model cannot break a table or start emphasis.
#include <string>

#include "report/content.hpp"
#include "report/escape.hpp"
#include "report/report.hpp"

namespace benchledger::report {
namespace {

// A code span. A `|` must still be escaped inside a table cell (GFM 4.10, example 200); a
// backtick in the text needs a longer fence.
std::string code_span(const std::string& text) {
  const std::string body = escape_markdown_cell(text);
  std::string fence = "`";
  while (body.find(fence) != std::string::npos) fence += '`';
  const bool pad = body.front() == '`' || body.back() == '`';
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

std::string render(const Text& text) {
  std::string out;
  for (const Span& span : text) {
    if (span.text.empty()) continue;
    switch (span.style) {
      case Span::Style::plain:
        out += escape_markdown(span.text);
        break;
      case Span::Style::code:
        out += code_span(span.text);
        break;
      case Span::Style::strong:
        out += "**" + escape_markdown(span.text) + "**";
        break;
      case Span::Style::link:
        // An inline link whose destination is in pointy brackets: a space or `)` in it cannot
        // end it early (GFM 6.3).
        out += "[" + escape_markdown(span.text) + "](<" + span.target + ">)";
        break;
    }
  }
  return out;
}

}  // namespace

// Verdict symbols as emoji, which GitHub and most Markdown viewers draw.
std::string markdown_icon(const std::string& icon) {
  if (icon == "failed") return "💥 ";
  if (icon == "regression") return "❌ ";
  if (icon == "improvement") return "✅ ";
  if (icon == "unchanged") return "➖ ";
  if (icon == "inconclusive") return "❔ ";
  if (icon == "new") return "🆕 ";
  if (icon == "missing") return "🚫 ";
  if (icon == "accepted") return "☑️ ";
  return {};
}

std::string render_markdown_text(const Text& text) {
  return render(text);
}

std::string render_markdown_row(const std::vector<Cell>& row) {
  std::string out = "|";
  for (const Cell& cell : row) {
    const std::string text = markdown_icon(cell.icon) + render(cell.text);
    out += text.empty() ? " |" : " " + text + " |";
  }
  return out + "\n";
}

namespace {

std::string render_table(const Table& table) {
  std::string out = "|";
  for (const std::string& h : table.header) out += " " + escape_markdown(h) + " |";
  out += "\n|";
  for (const Align a : table.align) out += a == Align::right ? " ---: |" : " --- |";
  out += "\n";
  for (const auto& row : table.rows) out += render_markdown_row(row);
  return out;
}

}  // namespace

std::string render_markdown_blocks(const std::vector<Block>& blocks) {
  std::string out;
  for (const Block& block : blocks) {
    if (const auto* h = std::get_if<Heading>(&block)) {
      out += "\n" + std::string(static_cast<std::size_t>(h->level), '#') + " " +
             escape_markdown(h->text) + "\n";
    } else if (const auto* p = std::get_if<Paragraph>(&block)) {
      out += "\n" + render(p->text) + "\n";
    } else if (const auto* list = std::get_if<BulletList>(&block)) {
      out += "\n";
      for (const Text& item : list->items) out += "- " + render(item) + "\n";
    } else if (const auto* table = std::get_if<Table>(&block)) {
      out += "\n" + render_table(*table);
    }
    // Charts are drawn in HTML only.
  }
  return out;
}

std::string render_markdown(const ReportInput& input) {
  const Document doc = build_document(input);
  return "# " + escape_markdown(doc.title) + "\n" + render_markdown_blocks(doc.blocks);
}

}  // namespace benchledger::report
