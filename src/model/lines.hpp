// Line-delimited input (NDJSON, a harness's text output) read line by line, by one rule that
// every reader of such input follows, so that a file written on another platform, by an editor
// that adds blank lines or by a program killed before its last newline reads the same everywhere:
//
// - a line ends at '\n' (or the end of the input), and one '\r' at its end is not part of it
//   (CRLF line ends);
// - a blank line (nothing but spaces, tabs and carriage returns: text converted to CRLF twice
//   ends its lines in "\r\r\n") is skipped, but counted, so that a line's number is the one an
//   editor shows;
// - a last line without '\n' is read like any other; `terminated` says that it had none, for a
//   reader whose input may have been cut short in the middle of a line.
//
// The ledger's own file is not read by this rule: every byte of it is checked and bytes after its
// last '\n' are a torn tail, never a line (ledger/ndjson/line_reader.hpp).
//
// A view over the caller's text, in the style of a memchr loop: nothing is copied or allocated
// per line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string_view>

namespace benchledger::model {

struct TextLine {
  std::string_view text;    // without its '\n' and the one '\r' before it; never blank
  std::int64_t number = 0;  // 1-based, blank lines counted
  std::int64_t offset = 0;  // of its first byte in the input
  bool terminated = true;   // ended by '\n': false only for a last line without one
};

// `for (const model::TextLine& line : model::Lines(text))`: the lines of `text` that are not
// blank, in order. `text` must outlive the loop.
class Lines {
 public:
  explicit Lines(std::string_view text) : m_text(text) {}

  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = TextLine;
    using difference_type = std::ptrdiff_t;
    using pointer = const TextLine*;
    using reference = const TextLine&;

    iterator() = default;
    explicit iterator(std::string_view text) : m_text(text) { advance(); }

    const TextLine& operator*() const { return m_line; }
    const TextLine* operator->() const { return &m_line; }
    iterator& operator++() {
      advance();
      return *this;
    }
    void operator++(int) { advance(); }
    bool operator==(std::default_sentinel_t) const { return m_done; }

   private:
    void advance() {
      while (m_at < m_text.size()) {
        const char* begin = m_text.data() + m_at;
        const std::size_t left = m_text.size() - m_at;
        const void* newline = std::memchr(begin, '\n', left);
        const std::size_t length =
            newline == nullptr
                ? left
                : static_cast<std::size_t>(static_cast<const char*>(newline) - begin);
        std::string_view text(begin, length);
        if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
        m_line.number += 1;
        m_line.offset = static_cast<std::int64_t>(m_at);
        m_line.terminated = newline != nullptr;
        m_at += length + 1;
        if (text.find_first_not_of(" \t\r") == std::string_view::npos) continue;  // blank
        m_line.text = text;
        return;
      }
      m_done = true;
    }

    std::string_view m_text;
    std::size_t m_at = 0;  // the first byte not read yet
    TextLine m_line;
    bool m_done = false;
  };

  iterator begin() const { return iterator(m_text); }
  std::default_sentinel_t end() const { return {}; }

 private:
  std::string_view m_text;
};

}  // namespace benchledger::model
