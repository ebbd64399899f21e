// A strict reader of the XML subset reporters write.
#include "import/xml_input.hpp"

#include <benchledger/error.hpp>
#include <benchledger/record.hpp>

namespace benchledger::import::detail {

std::optional<std::string> XmlElement::attribute(std::string_view wanted) const {
  for (const auto& [key, value] : attributes)
    if (key == wanted) return value;
  return std::nullopt;
}

namespace {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.' || c == ':' || static_cast<unsigned char>(c) >= 0x80;
}

void append_utf8(std::string& out, unsigned long code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

class XmlReader {
 public:
  XmlReader(std::string_view text, const std::string& origin) : m_text(text), m_origin(origin) {}

  XmlElement document() {
    if (m_text.substr(0, 3) == "\xEF\xBB\xBF") m_pos = 3;
    skip_misc(true);
    if (at_end()) fail("no root element");
    if (peek() != '<') fail("expected '<' of the root element");
    XmlElement root = element();
    skip_misc(false);
    if (!at_end()) fail("content after the root element");
    return root;
  }

 private:
  // `ORIGIN:LINE:COLUMN: KIND PROBLEM`, where m_pos is.
  [[noreturn]] void fail(const std::string& problem, std::string_view kind = "not XML: ") const {
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < m_pos && i < m_text.size(); ++i) {
      if (m_text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    throw Error(m_origin + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " +
                std::string(kind) + problem +
                (at_end() ? " (the document ends here): the output looks cut short" : ""));
  }

  bool at_end() const { return m_pos >= m_text.size(); }
  char peek() const { return m_text[m_pos]; }
  bool starts(std::string_view s) const { return m_text.substr(m_pos, s.size()) == s; }
  // Counted on from where it was last asked: m_pos only moves forward.
  std::size_t line() {
    for (; m_counted < m_pos && m_counted < m_text.size(); ++m_counted)
      m_line += m_text[m_counted] == '\n' ? 1 : 0;
    return m_line;
  }

  void skip_space() {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\r' || peek() == '\n'))
      ++m_pos;
  }

  // Past `terminator`, or fail naming what was not closed.
  void skip_past(std::string_view terminator, const char* what) {
    const std::size_t end = m_text.find(terminator, m_pos);
    if (end == std::string_view::npos) {
      m_pos = m_text.size();
      fail(std::string(what) + " is not closed");
    }
    m_pos = end + terminator.size();
  }

  // Whitespace, comments, processing instructions and (in the prolog) a DOCTYPE.
  void skip_misc(bool prolog) {
    while (true) {
      skip_space();
      if (starts("<!--")) {
        skip_past("-->", "a comment");
      } else if (starts("<?")) {
        skip_past("?>", "a processing instruction");
      } else if (prolog && starts("<!DOCTYPE")) {
        skip_past(">", "the DOCTYPE");
      } else {
        return;
      }
    }
  }

  std::string name() {
    const std::size_t start = m_pos;
    while (!at_end() && is_name_char(peek())) ++m_pos;
    if (m_pos == start)
      fail(at_end() ? "expected a name" : "expected a name, got '" + std::string(1, peek()) + "'");
    return std::string(m_text.substr(start, m_pos - start));
  }

  // An entity or character reference after its '&'.
  void reference(std::string& out) {
    const std::size_t semicolon = m_text.find(';', m_pos);
    if (semicolon == std::string_view::npos || semicolon - m_pos > 12)
      fail("'&' starts no entity reference");
    const std::string_view entity = m_text.substr(m_pos, semicolon - m_pos);
    if (entity == "lt") {
      out += '<';
    } else if (entity == "gt") {
      out += '>';
    } else if (entity == "amp") {
      out += '&';
    } else if (entity == "quot") {
      out += '"';
    } else if (entity == "apos") {
      out += '\'';
    } else if (entity.size() > 1 && entity[0] == '#') {
      const bool hex = entity[1] == 'x';
      const std::string digits(entity.substr(hex ? 2 : 1));
      std::size_t used = 0;
      unsigned long code = 0;
      try {
        code = std::stoul(digits, &used, hex ? 16 : 10);
      } catch (const std::logic_error&) {
        used = 0;
      }
      if (digits.empty() || used != digits.size() || code > 0x10FFFF)
        fail("\"&" + std::string(entity) + ";\" is not a character");
      append_utf8(out, code);
    } else {
      fail("unknown entity \"&" + std::string(entity) + ";\"");
    }
    m_pos = semicolon + 1;
  }

  std::string attribute_value() {
    if (at_end() || (peek() != '"' && peek() != '\'')) fail("expected a quoted attribute value");
    const char quote = m_text[m_pos++];
    std::string value;
    while (true) {
      if (at_end()) fail("an attribute value is not closed");
      const char c = m_text[m_pos++];
      if (c == quote) return value;
      if (c == '<') {
        --m_pos;
        fail("'<' in an attribute value");
      }
      if (c == '&') {
        reference(value);
      } else {
        value += c;
      }
    }
  }

  // The elements open around the one being read, as `Catch2TestRun/Group/TestCase/…`.
  std::string open_path() const {
    std::string path;
    for (std::size_t i = 0; i < m_open.size(); ++i) {
      if (i == 6) return path + "/…";
      path += (i == 0 ? "" : "/") + *m_open[i];
    }
    return path;
  }

  // Recursive, one call an element, so bounded: k_max_nesting elements deep at most (the tree
  // this builds is freed recursively too).
  XmlElement element() {
    XmlElement e;
    e.line = line();
    ++m_pos;  // '<'
    e.name = name();
    if (m_open.size() == k_max_nesting) {
      fail("<" + e.name + "> in " + open_path() + " is nested deeper than " +
               std::to_string(k_max_nesting) + " levels of elements",
           "");
    }
    m_open.push_back(&e.name);
    struct Close {
      std::vector<const std::string*>& open;
      ~Close() { open.pop_back(); }
    } close{m_open};
    while (true) {
      const std::size_t before = m_pos;
      skip_space();
      if (at_end()) fail("the start tag of <" + e.name + "> is not closed");
      if (starts("/>")) {
        m_pos += 2;
        return e;
      }
      if (peek() == '>') {
        ++m_pos;
        break;
      }
      if (m_pos == before) fail("expected a space before an attribute of <" + e.name + ">");
      std::string key = name();
      skip_space();
      if (at_end() || peek() != '=') fail("expected '=' after attribute " + key);
      ++m_pos;
      skip_space();
      e.attributes.emplace_back(std::move(key), attribute_value());
    }
    while (true) {
      if (at_end()) fail("<" + e.name + "> is not closed");
      if (starts("</")) {
        m_pos += 2;
        const std::string closing = name();
        if (closing != e.name) fail("</" + closing + "> closes <" + e.name + ">");
        skip_space();
        if (at_end() || peek() != '>') fail("expected '>' after </" + closing);
        ++m_pos;
        return e;
      }
      if (starts("<!--")) {
        skip_past("-->", "a comment");
      } else if (starts("<![CDATA[")) {
        skip_past("]]>", "a CDATA section");
      } else if (starts("<?")) {
        skip_past("?>", "a processing instruction");
      } else if (peek() == '<') {
        e.children.push_back(element());
      } else if (peek() == '&') {
        ++m_pos;
        std::string ignored;
        reference(ignored);
      } else {
        ++m_pos;
      }
    }
  }

  std::string_view m_text;
  const std::string& m_origin;
  std::size_t m_pos = 0;
  std::size_t m_counted = 0, m_line = 1;
  std::vector<const std::string*> m_open;  // the names of the elements being read, outermost first
};

}  // namespace

XmlElement parse_xml(std::string_view text, const std::string& origin) {
  return XmlReader(text, origin).document();
}

}  // namespace benchledger::import::detail
