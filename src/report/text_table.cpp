#include "report/text_table.hpp"

#include <algorithm>
#include <utility>

#include "report/format.hpp"

namespace benchledger::report {

TextTable::TextTable(std::vector<Align> align, std::string indent, std::size_t gap)
    : m_align(std::move(align)), m_indent(std::move(indent)), m_gap(gap) {}

namespace {

std::vector<std::string_view> views(const TextRow& row) {
  return {row.begin(), row.end()};
}

}  // namespace

void TextTable::fit(const TextRow& row) {
  fit(views(row));
}

void TextTable::fit(std::span<const std::string_view> row) {
  m_widths.resize(std::max(m_widths.size(), row.size()), 0);
  for (std::size_t i = 0; i < row.size(); ++i)
    m_widths[i] = std::max(m_widths[i], display_width(row[i]));
}

std::string TextTable::line(const TextRow& row) const {
  return line(views(row));
}

std::string TextTable::line(std::span<const std::string_view> row) const {
  std::string text = m_indent;
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (i > 0) text.append(m_gap, ' ');
    const bool runs_on = row.size() < m_widths.size() && i + 1 == row.size();
    const std::size_t width = display_width(row[i]);
    const std::size_t column = i < m_widths.size() ? m_widths[i] : 0;
    const std::size_t pad = runs_on || width >= column ? 0 : column - width;
    const bool right = i < m_align.size() && m_align[i] == Align::right;
    if (right) text.append(pad, ' ');
    text += row[i];
    if (!right) text.append(pad, ' ');
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  text += '\n';
  return text;
}

std::string TextTable::render(const std::vector<TextRow>& rows) {
  std::size_t columns = 0;
  for (const TextRow& row : rows) columns = std::max(columns, row.size());
  for (const TextRow& row : rows) {
    if (row.size() < columns && !row.empty()) {
      fit(std::span<const std::string_view>(views(row)).first(row.size() - 1));
    } else {
      fit(row);
    }
  }
  m_widths.resize(columns, 0);
  std::string out;
  for (const TextRow& row : rows) out += line(row);
  return out;
}

}  // namespace benchledger::report
