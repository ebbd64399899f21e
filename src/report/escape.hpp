// Escaping text from records for the markup every output is written in: HTML and SVG (the
// report), XML (JUnit), GitHub-flavoured Markdown (the report, compare's pull-request comment).
// The one home of these rules: an output that escapes anything calls one of these.
#pragma once

#include <string>
#include <string_view>

namespace benchledger::report {

// HTML and SVG content and attribute values: & < > " and ' as entities (' as &#39;).
std::string escape_html(std::string_view text);

// XML 1.0 content and attribute values: & < > " ' as entities (' as &apos;), and the control
// characters XML 1.0 does not allow (all below 0x20 but tab and newline) as spaces.
std::string escape_xml(std::string_view text);

// Markdown text of a line or a table cell: the ASCII punctuation that could start markup
// backslash-escaped (GFM 2.4: any ASCII punctuation may be), line breaks as spaces.
std::string escape_markdown(std::string_view text);

// Text inside a Markdown table cell that is not otherwise escaped (a code span's body, a
// cell of compare's comment): `|` escaped, which would end the cell even in a code span (GFM
// 4.10, example 200), and line breaks (\n, \r) as spaces, which would end the row.
std::string escape_markdown_cell(std::string_view text);

}  // namespace benchledger::report
