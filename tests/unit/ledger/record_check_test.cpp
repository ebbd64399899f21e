// check_record(), which append() runs instead of parsing every record back, refuses exactly
// what parse_record() refuses in the serialized record, with the same message.
#include <catch2/catch.hpp>

#include <functional>

#include <benchledger/error.hpp>

#include "ledger/record_check.hpp"
#include "model_fixtures.hpp"

using namespace benchledger;
using benchledger::ledger::check_record;

namespace {

std::string refusal(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

template <class T>
Record changed(T record, const std::function<void(T&)>& change) {
  change(record);
  return record;
}

}  // namespace

TEST_CASE("check_record and parse_record agree on valid records") {
  for (const Record& record : {Record(testing::sample_run()), Record(testing::sample_result()),
                               Record(testing::sample_note())}) {
    CHECK(refusal([&] { check_record(record); }).empty());
    CHECK(refusal([&] { parse_record(serialize(record)); }).empty());
  }
}

TEST_CASE("check_record refuses what parse_record refuses, with the same message") {
  using testing::sample_note;
  using testing::sample_result;
  using testing::sample_run;
  const std::vector<Record> broken = {
      changed<RunRecord>(sample_run(), [](auto& r) { r.header.id = "not-a-ulid"; }),
      changed<RunRecord>(sample_run(), [](auto& r) { r.header.id = "01JDQ8Z6X0000000000000000I"; }),
      changed<RunRecord>(sample_run(), [](auto& r) { r.header.time = "2026-11-22 04:27:59"; }),
      changed<RunRecord>(sample_run(), [](auto& r) { r.header.time = "2026-11-22T04:27:59Z"; }),
      changed<RunRecord>(sample_run(), [](auto& r) { r.label = "has space"; }),
      changed<RunRecord>(sample_run(), [](auto& r) { r.label = ""; }),
      changed<RunRecord>(sample_run(), [](auto& r) { r.label = std::string(65, 'a'); }),
      changed<RunRecord>(sample_run(),
                         [](auto& r) {
                           r.env.load_avg = {{1.0, 2.0}};
                         }),
      changed<RunRecord>(sample_run(), [](auto& r) { r.source = ""; }),
      changed<ResultRecord>(sample_result(), [](auto& r) { r.run = "run-1"; }),
      changed<ResultRecord>(sample_result(), [](auto& r) { r.bench = ""; }),
      changed<ResultRecord>(sample_result(), [](auto& r) { r.metrics.at("time").unit = ""; }),
      changed<ResultRecord>(sample_result(), [](auto& r) { r.metrics.at("time").summary.n = -1; }),
      changed<ResultRecord>(sample_result(), [](auto& r) { r.primary = "nope"; }),
      changed<ResultRecord>(sample_result(), [](auto& r) { r.metrics.clear(); }),
      changed<ResultRecord>(sample_result(), [](auto& r) { r.ops = -1; }),
      changed<ResultRecord>(sample_result(), [](auto& r) { r.errors = -2; }),
      changed<NoteRecord>(sample_note(), [](auto& r) { r.target = "01J"; }),
  };
  for (const Record& record : broken) {
    const std::string parsed = refusal([&] { parse_record(serialize(record)); });
    INFO(parsed);
    REQUIRE_FALSE(parsed.empty());
    CHECK(refusal([&] { check_record(record); }) == parsed);
  }
}
