// Text from records cannot break the markup of any output: HTML, SVG, XML and Markdown escape
// it by the one set of rules in report/escape.hpp.
#include <catch2/catch.hpp>

#include "report/escape.hpp"

namespace br = benchledger::report;

TEST_CASE("escape_html writes the five special characters as entities and keeps the rest") {
  CHECK(br::escape_html("a<b & \"c\" 'd'>\x01") ==
        "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;\x01");
}

TEST_CASE("escape_xml writes the five entities and replaces what XML 1.0 forbids by spaces") {
  CHECK(br::escape_xml("a<b & \"c\" 'd'>") == "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;");
  CHECK(br::escape_xml("tab\tline\nbell\x07 cr\r") == "tab\tline\nbell  cr ");
}

TEST_CASE("escape_markdown backslash-escapes what could start markup and joins lines") {
  CHECK(br::escape_markdown("*a* _b_ `c` [d] <e> f|g ~h~ &i \\") ==
        "\\*a\\* \\_b\\_ \\`c\\` \\[d\\] \\<e\\> f\\|g \\~h\\~ \\&i \\\\");
  CHECK(br::escape_markdown("one\ntwo\rthree") == "one two three");
}

TEST_CASE(
    "escape_markdown_cell keeps a table row one row: pipes escaped, every line break a space") {
  CHECK(br::escape_markdown_cell("a|b *c*") == "a\\|b *c*");
  // A carriage return ends a line in Markdown (GFM 2.2) as a newline does.
  CHECK(br::escape_markdown_cell("note\r\nsecond\rthird") == "note  second third");
}
