// A comparison too long for a pull-request comment is cut at a line, with a note, under the limit.
#include <catch2/catch.hpp>

#include <string>

#include "report/compare_render.hpp"

using benchledger::report::fit_comment;

TEST_CASE("a comment within the limit is left as it is") {
  CHECK(fit_comment("# gate: pass\n| a | b |\n", 100, "x") == "# gate: pass\n| a | b |\n");
}

TEST_CASE("a comment over the limit is cut at a line and says where the whole of it is") {
  std::string markdown = "# gate: FAIL\n";
  for (int row = 0; row < 5000; ++row)
    markdown += "| bench/" + std::to_string(row) + " | +1.0% |\n";
  const std::string fitted = fit_comment(markdown, 65000, "comparison.md in the artifacts");
  CHECK(fitted.size() <= 65000);
  CHECK(fitted.starts_with("# gate: FAIL\n"));
  CHECK_THAT(fitted, Catch::EndsWith("the whole of it is comparison.md in the artifacts.\n"));
  // Every row kept is whole.
  const std::size_t note = fitted.find("\n\n**Comparison cut at 65000 characters**");
  REQUIRE(note != std::string::npos);
  CHECK(markdown.compare(0, note + 1, fitted, 0, note + 1) == 0);
  CHECK(fitted[note - 1] == '|');
}
