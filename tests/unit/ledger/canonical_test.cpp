// The fixed-offset reads of canonical bytes agree with a full parse, and refuse anything that is
// not shaped exactly as serialize() writes it.
#include <catch2/catch.hpp>

#include <benchledger/record.hpp>

#include "ledger/canonical.hpp"
#include "model_fixtures.hpp"

using namespace benchledger;
using namespace benchledger::ledger;

TEST_CASE("peek_canonical reads type, id, prev and a result's run as parse_record does") {
  RunRecord run = testing::sample_run();
  run.header.prev = std::string(64, 'c');
  ResultRecord result = testing::sample_result();
  result.header.prev = std::string(64, 'd');
  const std::vector<std::pair<Record, RecordType>> cases = {
      {run, RecordType::run},
      {result, RecordType::result},
      {testing::sample_note(), RecordType::note}};
  for (const auto& [record, type] : cases) {
    const std::string bytes = serialize(record);
    const auto peek = peek_canonical(bytes);
    REQUIRE(peek);
    CHECK(peek->type == type);
    CHECK(peek->id == header_of(record).id);
    CHECK(peek->prev == header_of(record).prev);
    CHECK(bytes.substr(prev_offset(bytes), 64) == header_of(record).prev);
  }
  CHECK(peek_canonical(serialize(result))->run == result.run);
}

TEST_CASE("peek_run reads a run's label and commit, null included") {
  RunRecord run = testing::sample_run();
  const std::string bytes = serialize(run);  // the peek's views point into it
  auto peek = peek_run(bytes);
  REQUIRE(peek);
  CHECK(peek->label == std::optional<std::string_view>("baseline"));
  CHECK(peek->commit == std::optional<std::string_view>(*run.git.commit));

  run.label.reset();
  run.git.commit.reset();
  run.project = "quote \" and back\\slash";  // escapes in a field read before git
  const std::string unlabelled = serialize(run);
  peek = peek_run(unlabelled);
  REQUIRE(peek);
  CHECK_FALSE(peek->label);
  CHECK_FALSE(peek->commit);

  CHECK_FALSE(peek_run(serialize(testing::sample_result())));
}

TEST_CASE("records not shaped canonically are left to the full parse") {
  const std::string bytes = serialize(testing::sample_result());
  const auto pretty = nlohmann::json::parse(bytes).dump(1);  // sorted keys and whitespace
  CHECK_FALSE(peek_canonical(pretty));
  CHECK_FALSE(peek_canonical(bytes.substr(0, 60)));
  std::string escaped = bytes;
  escaped.replace(escaped.find("01JDQ8Z6X0000000000000000B"), 1, "\\u0030");
  CHECK_FALSE(peek_canonical(escaped));
  CHECK(prev_offset(pretty) == std::string::npos);
}
