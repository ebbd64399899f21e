// The tail of a program's output that records and comments quote is bounded, redacted, and valid
// UTF-8 without control characters, whatever the program wrote.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "model/output_tail.hpp"
#include "support/scratch_dir.hpp"

using benchledger::model::output_tail;

TEST_CASE("output_tail keeps the last lines and drops blank ones at either end") {
  CHECK(output_tail("one\ntwo\nthree\n\n", 2) == "two\nthree");
  CHECK(output_tail("\n\n  \nonly\n") == "only");
  CHECK(output_tail("a\n\nb") == "a\n\nb");
  CHECK(output_tail(" \n\t\n").empty());
  CHECK(output_tail("").empty());
}

TEST_CASE("output_tail reads at most its bytes, from the start of a line") {
  std::string text;
  for (int i = 1; i <= 1000; ++i) text += "line " + std::to_string(i) + "\n";
  const std::string tail = output_tail(text, 1000, 100);
  CHECK(tail.size() <= 100);
  CHECK(tail.starts_with("line "));
  CHECK(tail.ends_with("line 1000"));
  // One line longer than the bytes: its end is kept.
  CHECK(output_tail(std::string(500, 'x') + "end", 20, 10) == "xxxxxxxend");
}

TEST_CASE("output_tail redacts secrets line by line") {
  CHECK(output_tail("connecting with password=hunter2\nGITHUB_TOKEN=ghp_abc failed") ==
        "connecting with password=***\nGITHUB_TOKEN=*** failed");
}

TEST_CASE("output_tail keeps a progress bar's last state and drops control characters") {
  CHECK(output_tail("10%\r50%\r100%\r\ndone\r\n") == "100%\ndone");
  CHECK(output_tail("\x1b[31mred\x1b[0m\tand\x07 bell") == "[31mred[0m\tand bell");
}

TEST_CASE("output_tail replaces bytes that are not UTF-8") {
  CHECK(output_tail("caf\xc3\xa9 \xff\xfe ok") == "caf\xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd ok");
  // A cut through a character at the byte limit leaves no half of it.
  CHECK(output_tail("\xc3\xa9\xc3\xa9", 20, 3) == "\xef\xbf\xbd\xc3\xa9");
}

TEST_CASE("file_tail reads a log's last lines, redacted, on one line when asked") {
  const benchledger::test_support::ScratchDir dir;
  std::string text;
  for (int i = 1; i <= 5000; ++i) text += "line " + std::to_string(i) + "\n";
  std::ofstream(dir / "log") << text << "connect password=hunter2\n\n";
  CHECK(benchledger::model::file_tail(dir / "log", 2) == "line 5000\nconnect password=***");
  CHECK(benchledger::model::file_tail(dir / "log", 3, " | ") ==
        "line 4999 | line 5000 | connect password=***");
  CHECK(benchledger::model::file_tail(dir / "missing", 3).empty());
}
