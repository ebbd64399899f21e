// The escaping rules of escape.hpp.
#include "report/escape.hpp"

namespace benchledger::report {
namespace {

// The five entities of HTML and XML; `apostrophe` is how ' is written, and `xml` replaces the
// control characters that XML 1.0 forbids.
std::string escape_markup(std::string_view text, const char* apostrophe, bool xml) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += apostrophe;
        break;
      default:
        out += xml && static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' ? ' ' : c;
    }
  }
  return out;
}

bool is_line_break(char c) {
  return c == '\n' || c == '\r';
}

}  // namespace

std::string escape_html(std::string_view text) {
  return escape_markup(text, "&#39;", false);
}

std::string escape_xml(std::string_view text) {
  return escape_markup(text, "&apos;", true);
}

std::string escape_markdown(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (is_line_break(c)) {
      out += ' ';
      continue;
    }
    switch (c) {
      case '\\':
      case '`':
      case '*':
      case '_':
      case '[':
      case ']':
      case '<':
      case '>':
      case '|':
      case '~':
      case '&':
        out += '\\';
        break;
      default:
        break;
    }
    out += c;
  }
  return out;
}

std::string escape_markdown_cell(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '|') {
      out += "\\|";
    } else {
      out += is_line_break(c) ? ' ' : c;
    }
  }
  return out;
}

}  // namespace benchledger::report
