// The one renderer of plain-text tables that commands print on a terminal (run's summary,
// compare's table, ledger show and log, history, detect, explain, env): columns padded to their
// widest cell by display width (display_width: µs and ± are one column each), never by bytes.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "report/document.hpp"

namespace benchledger::report {

using TextRow = std::vector<std::string>;

class TextTable {
 public:
  // `align` per column (left where not given); `indent` before every line; `gap` spaces
  // between columns.
  explicit TextTable(std::vector<Align> align = {}, std::string indent = "", std::size_t gap = 2);

  // Widens the columns to fit a row's cells: for a table streamed in two passes (fit every row,
  // then write each line), where the rows are not all held at once.
  void fit(const TextRow& row);
  void fit(std::span<const std::string_view> row);
  // One row as a line ending in '\n', without trailing spaces. A row shorter than the fitted
  // columns ends in a cell that runs on unpadded (a failed case's message).
  std::string line(const TextRow& row) const;
  std::string line(std::span<const std::string_view> row) const;

  // Every row fitted (a short row's last cell, which runs on, widens nothing), then each as a
  // line.
  std::string render(const std::vector<TextRow>& rows);

 private:
  std::vector<Align> m_align;
  std::string m_indent;
  std::size_t m_gap;
  std::vector<std::size_t> m_widths;
};

}  // namespace benchledger::report
