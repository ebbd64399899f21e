// The XML a harness writes (Catch2's `-r xml`), read into a tree of elements: enough XML for a
// reporter's output (elements, attributes, character and entity references, comments,
// processing instructions, CDATA, a DOCTYPE without an internal subset), and strict about the
// rest. Text between elements is not kept.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace benchledger::import::detail {

struct XmlElement {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;  // in document order, decoded
  std::vector<XmlElement> children;
  std::size_t line = 0;  // where its start tag begins, from 1

  // The attribute's decoded value, or nullopt when the element has no such attribute.
  std::optional<std::string> attribute(std::string_view name) const;
};

// The document's root element. Throws Error as `ORIGIN:LINE:COLUMN: not XML: PROBLEM` for
// anything malformed, a truncated document included (`... (the document ends here): the output
// looks cut short`), and for elements nested deeper than
// k_max_nesting (benchledger/record.hpp).
XmlElement parse_xml(std::string_view text, const std::string& origin);

}  // namespace benchledger::import::detail
