// The one rule of line-delimited input (model/lines.hpp): a line ends at '\n' without one '\r'
// before it, blank lines are skipped but counted, a last line without '\n' is read; and the
// records a program prints (parse_record_lines) are read by it.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <benchledger/error.hpp>
#include <benchledger/record.hpp>

#include "model/lines.hpp"
#include "model/record_lines.hpp"
#include "model_fixtures.hpp"

using namespace benchledger;
using benchledger::model::Lines;
using namespace benchledger::testing;
using benchledger::model::TextLine;
using Catch::Matchers::Contains;

namespace {

struct Seen {
  std::string text;
  std::int64_t number, offset;
  bool terminated;
  bool operator==(const Seen&) const = default;
};

std::ostream& operator<<(std::ostream& out, const Seen& s) {
  return out << "{\"" << s.text << "\", " << s.number << ", " << s.offset << ", "
             << (s.terminated ? "terminated" : "unterminated") << "}";
}

std::vector<Seen> seen_lines(std::string_view text) {
  std::vector<Seen> out;
  for (const TextLine& line : Lines(text)) {
    out.push_back({std::string(line.text), line.number, line.offset, line.terminated});
  }
  return out;
}

}  // namespace

TEST_CASE("each line with its number and offset, without its newline") {
  CHECK(seen_lines("a\nbb\nccc\n") ==
        std::vector<Seen>{{"a", 1, 0, true}, {"bb", 2, 2, true}, {"ccc", 3, 5, true}});
  CHECK(seen_lines("").empty());
}

TEST_CASE("one carriage return before the newline is not part of the line") {
  CHECK(seen_lines("a\r\nb\n") == std::vector<Seen>{{"a", 1, 0, true}, {"b", 2, 3, true}});
  // Only one, and only at the end: the rest is the line's.
  CHECK(seen_lines("a\r\r\nb\rc\n") ==
        std::vector<Seen>{{"a\r", 1, 0, true}, {"b\rc", 2, 4, true}});
}

TEST_CASE("blank lines are skipped but counted") {
  CHECK(seen_lines("\na\n\n \t\r\n\r\nb\n\n") ==
        std::vector<Seen>{{"a", 2, 1, true}, {"b", 6, 10, true}});
  CHECK(seen_lines("\n\n \n\r\r\n").empty());
  // Leading and trailing blanks of a line that is not blank stay.
  CHECK(seen_lines(" a \n") == std::vector<Seen>{{" a ", 1, 0, true}});
}

TEST_CASE("a last line without its newline is read, and says so") {
  CHECK(seen_lines("a\nb") == std::vector<Seen>{{"a", 1, 0, true}, {"b", 2, 2, false}});
  CHECK(seen_lines("a\nb\r") == std::vector<Seen>{{"a", 1, 0, true}, {"b", 2, 2, false}});
  CHECK(seen_lines("only") == std::vector<Seen>{{"only", 1, 0, false}});
  // A blank one is skipped like any blank line.
  CHECK(seen_lines("a\n  ") == std::vector<Seen>{{"a", 1, 0, true}});
}

TEST_CASE("a line is a view of the input, nothing copied") {
  const std::string text = "first\nsecond";
  for (const TextLine& line : Lines(text)) {
    CHECK(line.text.data() == text.data() + line.offset);
  }
}

TEST_CASE("printed records: CRLF, blank lines and no final newline read as written") {
  const std::vector<std::string> lines = {serialize(sample_run()), serialize(sample_result()),
                                          serialize(sample_note())};
  const std::string as_written = lines[0] + "\n" + lines[1] + "\n" + lines[2] + "\n";
  const std::string reshaped = lines[0] + "\r\n\n \t\r\n" + lines[1] + "\n" + lines[2];
  const auto records = model::parse_record_lines(as_written, "prog");
  REQUIRE(records.size() == 3);
  CHECK(model::parse_record_lines(reshaped, "prog") == records);

  // A bad line is named by the line an editor shows, blank lines counted.
  const std::string bad = lines[0] + "\r\n\n \t\r\n{\"type\":\"result\"}\r\n" + lines[2];
  CHECK_THROWS_WITH(model::parse_record_lines(bad, "prog"), Contains("prog: output line 4: "));
}
