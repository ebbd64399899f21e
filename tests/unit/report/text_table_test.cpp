// Every table a command prints lines up on a terminal: columns padded by display width (µs and
// ± are one column), figures on the right where asked, no trailing spaces, a failed row's
// message running on.
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "report/text_table.hpp"

using namespace benchledger::report;

TEST_CASE("columns are as wide as their widest cell on a terminal, not in bytes") {
  TextTable table({Align::left, Align::right});
  const std::string out = table.render({{"case", "median"}, {"µs-case", "8.78 µs"}, {"b", "1 s"}});
  CHECK(out ==
        "case      median\n"
        "µs-case  8.78 µs\n"
        "b            1 s\n");
}

TEST_CASE("no line ends in spaces, and an indent and a gap apply to every line") {
  const std::string out = TextTable({}, "  ", 1).render({{"a", "bb", ""}, {"ccc", "d", "e"}});
  CHECK(out ==
        "  a   bb\n"
        "  ccc d  e\n");
}

TEST_CASE("a short row's last cell runs on past its column and widens nothing") {
  const std::string out = TextTable({Align::left, Align::right, Align::right})
                              .render({{"case", "median", "p99"},
                                       {"x", "1 ms", "2 ms"},
                                       {"failing", "FAILED: exit 1 after a very long time"}});
  CHECK(out ==
        "case     median   p99\n"
        "x          1 ms  2 ms\n"
        "failing  FAILED: exit 1 after a very long time\n");
}

TEST_CASE("rows fitted one by one and written later line up as a rendered table does") {
  const std::vector<TextRow> rows{{"BENCH", "VALUE"}, {"±-bench", "12"}, {"b", "3"}};
  TextTable streamed;
  for (const TextRow& row : rows) streamed.fit(row);
  std::string out;
  for (const TextRow& row : rows) out += streamed.line(row);
  CHECK(out == TextTable().render(rows));
  const std::vector<std::string_view> views{"±-bench", "12"};
  CHECK(streamed.line(views) == "±-bench  12\n");
}
