// Run selectors parse into the kind, value and steps back the stores query by, and bad ones are
// refused with the selector named.
#include <catch2/catch.hpp>

#include <benchledger/error.hpp>
#include <benchledger/ledger.hpp>

using benchledger::Error;
using benchledger::ledger::parse_run_selector;
using Kind = benchledger::ledger::RunSelector::Kind;

TEST_CASE("selectors name runs by id, label, label~N, git:COMMIT and latest~N") {
  auto s = parse_run_selector("01JDQ8Z6X0000000000000000A");
  CHECK(s.kind == Kind::id);
  CHECK(s.value == "01JDQ8Z6X0000000000000000A");

  s = parse_run_selector("baseline");
  CHECK(s.kind == Kind::label);
  CHECK(s.value == "baseline");
  CHECK(s.back == 0);

  s = parse_run_selector("release-1.2_rc~3");
  CHECK(s.kind == Kind::label);
  CHECK(s.value == "release-1.2_rc");
  CHECK(s.back == 3);

  s = parse_run_selector("git:ABCdef12");
  CHECK(s.kind == Kind::git);
  CHECK(s.value == "abcdef12");

  s = parse_run_selector("latest");
  CHECK(s.kind == Kind::latest);
  CHECK(s.back == 0);
  s = parse_run_selector("latest~12");
  CHECK(s.kind == Kind::latest);
  CHECK(s.back == 12);
  CHECK(s.text == "latest~12");
}

TEST_CASE("malformed selectors are refused with the selector named") {
  for (const char* bad : {"", "latest~", "latest~x", "latest~-1", "base line", "git:xyz1", "git:ab",
                          "01JDQ8Z6X0000000000000000A~1", "a/b"}) {
    INFO(bad);
    CHECK_THROWS_WITH(parse_run_selector(bad),
                      Catch::Contains("run selector \"" + std::string(bad) + "\""));
  }
}
