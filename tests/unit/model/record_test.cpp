// The record model round-trips every record kind through its canonical bytes, and refuses
// every kind of bad record with the offending field named.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include <benchledger/error.hpp>
#include <benchledger/record.hpp>

#include "model_fixtures.hpp"

using namespace benchledger;
using benchledger::testing::sample_note;
using benchledger::testing::sample_result;
using benchledger::testing::sample_run;

namespace {

// The message parse_record throws for a line, or "" when it parses.
std::string refusal(std::string_view line) {
  try {
    parse_record(line);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string with_field(const Record& record, const std::string& pointer,
                       const nlohmann::json& value) {
  auto json = nlohmann::json::parse(serialize(record));
  json[nlohmann::json::json_pointer(pointer)] = value;
  return json.dump();
}

std::string without_field(const Record& record, const std::string& pointer) {
  auto json = nlohmann::json::parse(serialize(record));
  const nlohmann::json::json_pointer ptr(pointer);
  json[ptr.parent_pointer()].erase(ptr.back());
  return json.dump();
}

}  // namespace

TEST_CASE("every record kind round-trips through its canonical bytes") {
  const std::vector<Record> records = {sample_run(), sample_result(), sample_note()};
  for (const auto& record : records) {
    const std::string bytes = serialize(record);
    const Record parsed = parse_record(bytes);
    CHECK(parsed == record);
    CHECK(serialize(parsed) == bytes);
    CHECK(bytes.find('\n') == std::string::npos);
  }
}

TEST_CASE("canonical bytes are fixed: key order, integers, shortest round-trip numbers") {
  CHECK(serialize(sample_note()) ==
        R"({"schema":"benchledger/1","type":"note","id":"01JDQ8Z6X0000000000000000C",)"
        R"("time":"2026-11-22T05:00:00.000000Z","prev":")" +
            std::string(64, '0') +
            R"(","target":"01JDQ8Z6X0000000000000000B","bench":"executors/sort",)"
            R"("kind":"accept-regression","text":"the pool now checks bounds; 3% is the price",)"
            R"("author":"ci"})");
  const std::string result = serialize(sample_result());
  CHECK(result.find(R"("params":{"executor":"pool","mixed":false,"n":2000,"ratio":0.5})") !=
        std::string::npos);
  CHECK(result.find(R"("samples":[1200.5,1190.25,1210.0,1205.125],"value":1202.8125)") !=
        std::string::npos);
  CHECK(result.find(R"("summary":{"n":3,"mean":950.0,"median":950.0,"stddev":50.0,"min":900.0,)"
                    R"("max":1000.0,"p50":950.0,"p99":1000.0})") != std::string::npos);
  const std::string run = serialize(sample_run());
  CHECK(run.rfind(R"({"schema":"benchledger/1","type":"run","id":)", 0) == 0);
  CHECK(run.find(R"("cpu":{"model":"AMD EPYC 7B13","vendor":"AuthenticAMD","arch":"x86_64",)"
                 R"("logical":2,"physical":1,"sockets":1,"online":2,"affinity":2,"quota":null,)"
                 R"("mhz":2449.998,"governor":null,"turbo":null,"smt":true,)") !=
        std::string::npos);
}

TEST_CASE("a metric without samples has no samples field") {
  const std::string bytes = serialize(sample_result());
  CHECK(bytes.find(R"("throughput":{"unit":"ops/s","better":"higher","value":9377.62,)") !=
        std::string::npos);
}

TEST_CASE("fields a reader does not know are kept and written back") {
  auto json = nlohmann::json::parse(serialize(sample_note()));
  json["zz_added_later"] = {{"x", 1}};
  json["aa_added_later"] = "kept";
  const Record parsed = parse_record(json.dump());
  const std::string bytes = serialize(parsed);
  CHECK(bytes.find(R"("author":"ci","aa_added_later":"kept","zz_added_later":{"x":1}})") !=
        std::string::npos);
}

TEST_CASE("a missing field is refused by name") {
  CHECK(refusal(without_field(sample_run(), "/project")) == "field \"project\": missing");
  CHECK(refusal(without_field(sample_run(), "/env/cpu/governor")) ==
        "field \"env.cpu.governor\": missing");
  CHECK(refusal(without_field(sample_result(), "/metrics/time/summary/stddev")) ==
        "field \"metrics.time.summary.stddev\": missing");
  CHECK(refusal(without_field(sample_note(), "/bench")) == "field \"bench\": missing");
  CHECK(refusal(without_field(sample_note(), "/prev")) == "field \"prev\": missing");
}

TEST_CASE("a field of the wrong type is refused by name") {
  CHECK(refusal(with_field(sample_result(), "/metrics/time/samples/3", "fast")) ==
        "field \"metrics.time.samples[3]\": expected a number");
  CHECK(refusal(with_field(sample_result(), "/ops", 1.5)) == "field \"ops\": expected an integer");
  CHECK(refusal(with_field(sample_result(), "/errors", -1)) ==
        "field \"errors\": must not be negative");
  CHECK(refusal(with_field(sample_run(), "/git/dirty", "yes")) ==
        "field \"git.dirty\": expected true, false or null");
  CHECK(refusal(with_field(sample_run(), "/label", "has space")) ==
        "field \"label\": expected 1 to 64 characters of [A-Za-z0-9._-]");
  CHECK(refusal(with_field(sample_result(), "/params/n", nlohmann::json::array())) ==
        "field \"params.n\": expected a string, number or boolean");
  CHECK(refusal(with_field(sample_result(), "/metrics/time/better", "faster")) ==
        "field \"metrics.time.better\": expected \"lower\" or \"higher\"");
  CHECK(refusal(with_field(sample_result(), "/primary", "memory")) ==
        "field \"primary\": names no metric of this result: \"memory\"");
  CHECK(refusal(with_field(sample_note(), "/id", "not-a-ulid")) ==
        "field \"id\": expected a ULID (26 Crockford base32 characters)");
  CHECK(
      refusal(with_field(sample_note(), "/time", "2026-11-22 05:00:00")) ==
      "field \"time\": expected RFC 3339 UTC with microseconds, like 2026-11-22T04:27:59.123456Z");
  CHECK(refusal(with_field(sample_note(), "/type", "verdict")) ==
        "field \"type\": expected \"run\", \"result\" or \"note\", found \"verdict\"");
  CHECK(refusal("[1,2]") == "field \"(record)\": expected an object");
}

TEST_CASE("NaN and infinity are refused when read and when written") {
  std::string line = with_field(sample_result(), "/metrics/time/value", 1.0);
  const auto at = line.find("\"value\":1.0");
  REQUIRE(at != std::string::npos);
  CHECK_THAT(refusal(line.replace(at, 11, "\"value\":NaN")), Catch::Contains("malformed JSON"));
  line = with_field(sample_result(), "/metrics/time/value", 1.0);
  CHECK(refusal(line.replace(at, 11, "\"value\":1e999")) ==
        "malformed JSON: number overflow parsing '1e999'");

  ResultRecord result = sample_result();
  (*result.metrics["time"].samples)[2] = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_WITH(serialize(result), Catch::Contains("field \"metrics.time.samples[2]\""));
  result = sample_result();
  result.params["ratio"] = std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH(serialize(result), Catch::Contains("field \"params.ratio\""));
}

TEST_CASE("another schema major version is refused with a clear message") {
  CHECK(refusal(with_field(sample_note(), "/schema", "benchledger/2")) ==
        "field \"schema\": \"benchledger/2\" is a schema version this benchledger cannot read (it "
        "reads benchledger/1); upgrade benchledger");
  CHECK(refusal(with_field(sample_note(), "/schema", "other")) ==
        "field \"schema\": expected \"benchledger/1\", found \"other\"");
}

TEST_CASE("invalid UTF-8 is refused") {
  std::string line = serialize(sample_note());
  line.replace(line.find("price"), 5,
               "pr\xC3\x28"
               "ce");
  CHECK_THAT(refusal(line), Catch::Contains("malformed JSON") && Catch::Contains("UTF-8"));
}

TEST_CASE("a line over 16 MiB is refused before it is parsed") {
  const std::string line(k_max_line_bytes + 1, ' ');
  CHECK(refusal(line) == "record is 16777217 bytes, over the limit of 16777216 bytes a line");
}

TEST_CASE("metric_from_samples computes the median, mean and sample stddev") {
  const Metric m = metric_from_samples("ms", Better::lower, {4, 1, 3, 2});
  CHECK(m.value == 2.5);
  CHECK(m.summary.median == 2.5);
  CHECK(m.summary.mean == 2.5);
  CHECK(m.summary.stddev == Approx(std::sqrt(5.0 / 3.0)));
  CHECK(m.summary.min == 1);
  CHECK(m.summary.max == 4);
  CHECK(m.summary.n == 4);
  CHECK(m.samples == std::vector<double>{4, 1, 3, 2});
  CHECK_THROWS_AS(metric_from_samples("ms", Better::lower, {}), Error);
}

TEST_CASE("case_key identifies a case by bench and sorted params") {
  CHECK(case_key("sort", {{"n", std::int64_t{2}}, {"a", std::string("x")}}) ==
        R"(sort{"a":"x","n":2})");
  CHECK(case_key("sort", {}) == "sort{}");
}
