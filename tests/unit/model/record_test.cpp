// The record model round-trips every record kind through its canonical bytes, and refuses
// every kind of bad record with the offending field named.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include <benchledger/error.hpp>
#include <benchledger/record.hpp>

#include "model/record_parse_fast.hpp"
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

TEST_CASE("env.runtimes.benchledger is written last among the runtimes, and only when known") {
  RunRecord run = sample_run();
  CHECK(serialize(run).find("\"benchledger\":") == std::string::npos);  // older records' bytes
  run.env.runtimes.benchledger = "0.1.0 (git v0.1.0-2-g0b0e41e5d2a1-dirty)";
  const std::string bytes = serialize(run);
  CHECK(bytes.find(R"x("postgres_server":null,"benchledger":"0.1.0 (git v0.1.0-2-g0b0e41e5d2a1-)x"
                   R"x(dirty)"},"load_avg")x") != std::string::npos);
  REQUIRE(model::parse_record_fast(bytes).has_value());
  CHECK(*model::parse_record_fast(bytes) == Record(run));
  CHECK(model::parse_record_slow(bytes) == Record(run));
  // Absent means unknown; null would not survive a round trip, so both paths refuse it.
  CHECK(refusal(with_field(run, "/env/runtimes/benchledger", nullptr)) ==
        "field \"env.runtimes.benchledger\": expected a string");
  CHECK(refusal(with_field(run, "/env/runtimes/benchledger", 1)) ==
        "field \"env.runtimes.benchledger\": expected a string");
}

TEST_CASE("env.runtimes.java follows benchledger, and is written only when known") {
  RunRecord run = sample_run();
  CHECK(serialize(run).find("\"java\":") == std::string::npos);  // older records' bytes
  run.env.runtimes.benchledger = "0.1.0";
  run.env.runtimes.java = "OpenJDK 64-Bit Server VM 17.0.15+6-Debian-1deb12u1";
  const std::string bytes = serialize(run);
  CHECK(bytes.find(R"x("benchledger":"0.1.0","java":"OpenJDK 64-Bit Server VM 17.0.15+6-)x"
                   R"x(Debian-1deb12u1"},"load_avg")x") != std::string::npos);
  REQUIRE(model::parse_record_fast(bytes).has_value());
  CHECK(*model::parse_record_fast(bytes) == Record(run));
  CHECK(model::parse_record_slow(bytes) == Record(run));
  CHECK(refusal(with_field(run, "/env/runtimes/java", nullptr)) ==
        "field \"env.runtimes.java\": expected a string");
}

// Why the nlohmann path stays beside simdjson's: the fast path declines every line it cannot
// read exactly, and what it declines is either a record of a later minor version, whose unknown
// fields only the full path keeps, or bad input, which only the full path words by field.
TEST_CASE("the full path is needed: it keeps what the fast path declines, or names what is wrong") {
  NoteRecord later = sample_note();
  later.header.extra = {{"added_later", nlohmann::json{{"x", 1}}}};
  const std::string kept = serialize(later);
  CHECK_FALSE(model::parse_record_fast(kept).has_value());
  CHECK(parse_record(kept) == Record(later));
  CHECK(serialize(parse_record(kept)) == kept);

  const std::vector<std::pair<std::string, std::string>> refused = {
      {without_field(sample_run(), "/env/cpu/governor"), "field \"env.cpu.governor\": missing"},
      {with_field(sample_result(), "/ops", 1.5), "field \"ops\": expected an integer"},
      {with_field(sample_note(), "/id", "not-a-ulid"), "field \"id\": expected a ULID"},
      {with_field(sample_result(), "/primary", "memory"), "field \"primary\": names no metric"},
      {with_field(sample_run(), "/schema", "benchledger/2"), "field \"schema\""},
      {serialize(sample_note()).substr(0, 40), "malformed JSON"},
  };
  for (const auto& [line, says] : refused) {
    INFO(line);
    CHECK_FALSE(model::parse_record_fast(line).has_value());
    CHECK_THAT(refusal(line), Catch::Contains(says));
  }
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
        "field \"metrics.time.value\": the number 1e999 is out of the range of a double (about "
        "±1.8e308)");

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

TEST_CASE("a long string is written as nlohmann writes it, in about its own length") {
  NoteRecord note = sample_note();
  for (const std::size_t escape_at :
       {std::size_t{0}, std::size_t{1} << 19, (std::size_t{1} << 20) - 1}) {
    note.text = std::string(std::size_t{1} << 20, 'x');
    note.text[escape_at] = '\n';
    note.text += "\t\"\\\x01";  // and a few escapes at the very end
    const std::string bytes = serialize(note);
    CHECK(nlohmann::ordered_json::parse(bytes).dump() == bytes);
    // The writer asks for room for the worst case of escapes only once one appears, and then
    // only for the rest of the string: not six times a long string's length.
    CHECK(bytes.capacity() < 2 * bytes.size() + 4096);
  }
}

TEST_CASE("a NUL byte is refused, wherever it is") {
  const std::string line = serialize(sample_note());
  // After a complete record: nlohmann's parser stops at a NUL and would not see the rest.
  CHECK(refusal(line + std::string("\0garbage", 8)) ==
        "malformed JSON: a NUL byte at byte " + std::to_string(line.size() + 1));
  std::string inside = line;
  inside.insert(inside.find("price"), 1, '\0');
  CHECK_THAT(refusal(inside), Catch::StartsWith("malformed JSON: a NUL byte at byte "));
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

TEST_CASE("metric_from_samples refuses a NaN or an infinity, naming the sample") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH(metric_from_samples("ms", Better::lower, {1, 2, nan}),
                    "sample 2 is nan, not a finite number");
  CHECK_THROWS_WITH(metric_from_samples("ms", Better::lower, {nan}),
                    "sample 0 is nan, not a finite number");
  CHECK_THROWS_WITH(metric_from_samples("ms", Better::lower, {-inf, 1}),
                    "sample 0 is -inf, not a finite number");
}

TEST_CASE("metric_from_samples summarises samples near the top of a double's range") {
  // Squares of 1e200 overflow a double; the summary scales before it sums.
  const Metric big = metric_from_samples("s", Better::lower, {1e300, 3e300});
  CHECK(big.summary.mean == Approx(2e300));
  CHECK(big.summary.median == Approx(2e300));
  CHECK(big.summary.stddev == Approx(std::sqrt(2.0) * 1e300));
  const double top = std::numeric_limits<double>::max();
  CHECK(metric_from_samples("s", Better::lower, {top, top}).summary.median == top);
  CHECK(metric_from_samples("s", Better::lower, {top, top}).summary.stddev == 0);
  // A spread a double cannot hold is refused, not written as infinity.
  CHECK_THROWS_WITH(metric_from_samples("s", Better::lower, {-top, top}),
                    Catch::Contains("spread beyond the range of a double"));
}

TEST_CASE("case_key identifies a case by bench and sorted params") {
  CHECK(case_key("sort", {{"n", std::int64_t{2}}, {"a", std::string("x")}}) ==
        R"(sort{"a":"x","n":2})");
  CHECK(case_key("sort", {}) == "sort{}");
}

namespace {

// A random valid UTF-8 string: ASCII (control characters, quotes and backslashes included),
// two-, three- and four-byte sequences, the edges of each range, and runs of plain ASCII.
std::string random_utf8(std::mt19937_64& rng) {
  static constexpr std::uint32_t k_edges[] = {0x00,   0x1F,   0x20,   0x22,    0x5C,
                                              0x7F,   0x80,   0x7FF,  0x800,   0xD7FF,
                                              0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x10FFFF};
  std::string text;
  const std::size_t length = rng() % 12;
  for (std::size_t i = 0; i < length; ++i) {
    if (rng() % 4 == 0) {  // a run of plain ASCII, which the writer copies eight bytes at a time
      text.append(rng() % 20, static_cast<char>('a' + rng() % 26));
      continue;
    }
    std::uint32_t cp = 0;
    switch (rng() % 5) {
      case 0:
        cp = k_edges[rng() % std::size(k_edges)];
        break;
      case 1:
        cp = static_cast<std::uint32_t>(rng() % 0x80);
        break;
      case 2:
        cp = static_cast<std::uint32_t>(0x80 + rng() % (0x800 - 0x80));
        break;
      case 3:
        do cp = static_cast<std::uint32_t>(0x800 + rng() % (0x10000 - 0x800));
        while (cp >= 0xD800 && cp <= 0xDFFF);
        break;
      default:
        cp = static_cast<std::uint32_t>(0x10000 + rng() % (0x110000 - 0x10000));
    }
    if (cp < 0x80) {
      text += static_cast<char>(cp);
    } else if (cp < 0x800) {
      text += static_cast<char>(0xC0 | (cp >> 6));
      text += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      text += static_cast<char>(0xE0 | (cp >> 12));
      text += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      text += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      text += static_cast<char>(0xF0 | (cp >> 18));
      text += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      text += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      text += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  return text;
}

// A random finite double: any bit pattern (denormals, huge and tiny exponents), or a value
// of the kind timings take.
double random_double(std::mt19937_64& rng) {
  static constexpr double k_edges[] = {0.0,
                                       -0.0,
                                       1.0,
                                       0.1,
                                       1e-7,
                                       1e21,
                                       1e-5,
                                       123456789012345680.0,
                                       5e-324,
                                       1.7976931348623157e308,
                                       2.2250738585072014e-308};
  for (;;) {
    double value = 0;
    switch (rng() % 3) {
      case 0:
        value = k_edges[rng() % std::size(k_edges)];
        break;
      case 1: {
        const std::uint64_t bits = rng();
        std::memcpy(&value, &bits, sizeof value);
        break;
      }
      default:
        value = std::ldexp(static_cast<double>(rng() % 1000000), static_cast<int>(rng() % 40) - 20);
    }
    if (std::isfinite(value)) return value;
  }
}

}  // namespace

// The writer is hand-made for speed; nlohmann's dump() is the oracle of its bytes: an ordered
// parse keeps the key order, so dumping it again reproduces the bytes exactly when every string
// is escaped and every number formatted as dump() does.
TEST_CASE("canonical bytes are the ones nlohmann's dump writes, for random strings and numbers") {
  std::mt19937_64 rng(20261122);
  for (int trial = 0; trial < 2000; ++trial) {
    RunRecord run = sample_run();
    run.project = random_utf8(rng);
    run.warnings = {random_utf8(rng), random_utf8(rng)};
    run.env.cpu.mhz = random_double(rng);
    run.env.load_avg = std::vector<double>{random_double(rng), random_double(rng), 0};
    ResultRecord result = sample_result();
    result.bench = "bench/" + random_utf8(rng);
    result.params = {{random_utf8(rng), random_double(rng)},
                     {random_utf8(rng), random_utf8(rng)},
                     {random_utf8(rng), static_cast<std::int64_t>(rng())}};
    Metric& time = result.metrics["time"];
    time.samples = std::vector<double>{random_double(rng), random_double(rng), random_double(rng)};
    time.value = random_double(rng);
    time.summary.p999 = random_double(rng);
    result.metrics[random_utf8(rng)] = time;
    NoteRecord note = sample_note();
    note.text = random_utf8(rng);
    note.header.extra = {{"later_" + random_utf8(rng), random_double(rng)}};

    for (const Record& record : std::vector<Record>{run, result, note}) {
      const std::string bytes = serialize(record);
      INFO(bytes);
      REQUIRE(nlohmann::ordered_json::parse(bytes).dump() == bytes);
      CHECK(serialize(parse_record(bytes)) == bytes);
    }
  }
}

TEST_CASE("parse_record's fast path takes every record kind as benchledger writes it") {
  RunRecord bare = sample_run();
  bare.label.reset();
  bare.env = Env{};  // every env field null
  bare.env.fingerprint = std::string(64, 'a');
  ResultRecord single = sample_result();
  single.metrics["time"].samples.reset();
  single.params = {{"s", std::string("x")}, {"b", true}, {"i", std::int64_t{-3}}, {"d", 0.5}};
  for (const Record& record :
       std::vector<Record>{sample_run(), bare, sample_result(), single, sample_note()}) {
    const std::string bytes = serialize(record);
    INFO(bytes);
    const auto fast = model::parse_record_fast(bytes);
    REQUIRE(fast.has_value());
    CHECK(*fast == model::parse_record_slow(bytes));
    CHECK(serialize(*fast) == bytes);
  }
  // A record over 1 MiB (after which the fast path lets its buffers go), then a small one.
  ResultRecord large = sample_result();
  large.bench = std::string(3 << 20, 'b');
  CHECK(model::parse_record_fast(serialize(large)) == std::optional<Record>(large));
  CHECK(model::parse_record_fast(serialize(sample_note())) == std::optional<Record>(sample_note()));
  // Unknown top-level fields are the full path's: it keeps them.
  NoteRecord later = sample_note();
  later.header.extra = {{"later", 1}};
  CHECK_FALSE(model::parse_record_fast(serialize(later)).has_value());
  CHECK(parse_record(serialize(later)) == Record(later));
}

namespace {

// A random record of any kind (trial % 3: run, result, note), damaged three times in four: a
// byte, a cut, a value, a member.
std::string random_record_line(std::mt19937_64& rng, int trial) {
  static const std::string k_tokens[] = {"-0",
                                         "-0.0",
                                         "1e400",
                                         "null",
                                         "true",
                                         "\"x\"",
                                         "[]",
                                         "{}",
                                         "1.5",
                                         "7",
                                         "-7",
                                         "\"\\ud800\"",
                                         "18446744073709551615",
                                         "9223372036854775808"};
  RunRecord run = sample_run();
  run.project = random_utf8(rng);
  run.env.cpu.mhz = random_double(rng);
  run.env.load_avg = std::vector<double>{random_double(rng), random_double(rng), 0};
  if (trial % 2 == 0) run.env.runtimes.benchledger = random_utf8(rng);
  if (trial % 3 == 0) run.env.runtimes.java = random_utf8(rng);
  ResultRecord result = sample_result();
  result.bench = "bench/" + random_utf8(rng);
  result.params = {{random_utf8(rng), random_double(rng)},
                   {random_utf8(rng), static_cast<std::int64_t>(rng())}};
  Metric& time = result.metrics["time"];
  time.samples = std::vector<double>{random_double(rng), random_double(rng)};
  time.value = random_double(rng);
  NoteRecord note = sample_note();
  note.text = random_utf8(rng);
  const Record records[] = {run, result, note};
  std::string line = serialize(records[trial % 3]);
  if (trial % 4 != 0) {  // three in four damaged: a byte, a cut, a value, a member
    const std::size_t at = rng() % line.size();
    switch (rng() % 4) {
      case 0:
        line[at] = static_cast<char>(rng());
        break;
      case 1:
        line.erase(at, 1 + rng() % 8);
        break;
      case 2: {
        const std::size_t colon = line.find(':', at);
        if (colon == std::string::npos) break;
        const std::size_t end = line.find_first_of(",}]", colon + 1);
        line.replace(colon + 1, end - colon - 1, k_tokens[rng() % std::size(k_tokens)]);
        break;
      }
      default: {
        const std::size_t brace = line.find('{', at);
        if (brace != std::string::npos) line.insert(brace + 1, "\"bench\":\"twice\",");
      }
    }
  }
  return line;
}

}  // namespace

// parse_record() reads the records benchledger writes through simdjson and leaves anything
// else to nlohmann; the nlohmann path is the oracle. Random records and random damage to them:
// whatever the fast path accepts, the full path must accept as the same record, and nothing the
// full path refuses may get through.
TEST_CASE("parse_record's fast path reads random records and their mutations as the full path") {
  std::mt19937_64 rng(20261123);
  int fast_reads = 0, agreed_refusals = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const std::string line = random_record_line(rng, trial);
    INFO(line);
    const auto fast = model::parse_record_fast(line);
    std::optional<Record> full;
    try {
      full = model::parse_record_slow(line);
    } catch (const Error&) {
    }
    if (!full) {
      CHECK_FALSE(fast.has_value());
      ++agreed_refusals;
    } else if (fast) {
      CHECK(*fast == *full);
      CHECK(serialize(*fast) == serialize(*full));  // == does not tell -0.0 from 0.0; bytes do
      ++fast_reads;
    }
  }
  // Both branches were taken often: a test that never reaches one of them checks nothing there.
  CHECK(fast_reads > 700);
  CHECK(agreed_refusals > 700);
}

// compare reads most results through read_result_fast(), which must take exactly the results
// parse_record_fast() takes, with the same values; the full path is the oracle of those.
TEST_CASE("read_result_fast reads a result exactly when the fast path does, with its values") {
  const auto check_same = [](const model::ResultView& view, const ResultRecord& result) {
    CHECK(view.id == result.header.id);
    CHECK(view.time == result.header.time);
    CHECK(view.prev == result.header.prev);
    CHECK(view.run == result.run);
    CHECK(view.bench == result.bench);
    CHECK(*view.params == result.params);
    REQUIRE(view.metrics.size() == result.metrics.size());
    for (const auto& [name, metric] : view.metrics) {
      const auto found = result.metrics.find(std::string(name));
      REQUIRE(found != result.metrics.end());
      CHECK(metric == found->second);
      CHECK(to_json(metric).dump() == to_json(found->second).dump());  // -0.0 is not 0.0 here
    }
    CHECK(view.primary == result.primary);
    CHECK(view.ops == result.ops);
    CHECK(view.errors == result.errors);
  };
  std::mt19937_64 rng(20261124);
  int reads = 0, refusals = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const std::string line = random_record_line(rng, trial);
    INFO(line);
    const auto fast = model::parse_record_fast(line);
    const auto* result = fast ? std::get_if<ResultRecord>(&*fast) : nullptr;
    const auto view = model::read_result_fast(line);
    CHECK(view.has_value() == (result != nullptr));
    if (view && result != nullptr) {
      check_same(*view, *result);
      ++reads;
    } else if (trial % 3 == 1) {
      ++refusals;
    }
  }
  CHECK(reads > 200);
  CHECK(refusals > 200);

  // Metrics with and without samples one after the other, through the storage it reuses; a
  // record over 1 MiB is left to parse_record().
  ResultRecord single = sample_result();
  single.metrics["time"].samples.reset();
  single.metrics["memory"] = single.metrics["time"];
  for (const ResultRecord& result : {sample_result(), single, sample_result()}) {
    const auto view = model::read_result_fast(serialize(result));
    REQUIRE(view);
    check_same(*view, result);
  }
  ResultRecord large = sample_result();
  large.bench = std::string(3 << 20, 'b');
  CHECK_FALSE(model::read_result_fast(serialize(large)));
  CHECK_FALSE(model::read_result_fast(serialize(sample_note())));
}

TEST_CASE("a string that is not UTF-8 is refused when written, naming the field") {
  NoteRecord note = sample_note();
  note.text =
      "pr\xC3\x28"
      "ce";
  CHECK_THROWS_WITH(serialize(note),
                    "field \"text\": a string is not valid UTF-8 (byte 0xC3 at offset 2)");
  ResultRecord result = sample_result();
  result.params["e\xED\xA0\x80"] = true;  // an encoded surrogate
  CHECK_THROWS_WITH(serialize(result), Catch::StartsWith("field \"params.e"));
  for (const char* bad : {"\xC0\xAF", "\xE0\x80\xAF", "\xF4\x90\x80\x80", "\xF0\x9F\x98", "\xFF"}) {
    note.text = bad;
    CHECK_THROWS_WITH(serialize(note), Catch::Contains("is not valid UTF-8"));
  }
}

// Ledgers written before this writer hold bytes that nlohmann's tree and dump() wrote: the
// lines below came from that writer (commit f4d64bf) for records with every kind of value a
// record holds, unknown fields (one named like a known field) and escapes. Any change of key
// order, of where unknown fields go, or of a number's or string's form would change the hashes
// of chains written since, and fails here.
TEST_CASE("canonical bytes are the ones the ledger's earlier writer wrote") {
  RunRecord run = sample_run();
  run.label.reset();
  run.warnings = {"tab\there \"quoted\" back\\slash", "ctl \x01\x1f é 漢 😀"};
  run.env.cpu.quota = 1.5;
  run.env.cpu.turbo = false;
  run.env.memory.limit_bytes = 1073741824;
  run.env.load_avg.reset();
  run.header.extra = {{"zz_later", {{"b", 2}, {"a", {1.5, nullptr, true}}}},
                      {"aa_first", "x"},
                      {"label", "ignored"}};
  ResultRecord result = sample_result();
  result.params["é/ünï"] = std::string("v\n2");
  result.params["neg"] = -0.0;
  result.params["big"] = std::int64_t{-9007199254740993};
  result.params["tiny"] = 5e-324;
  result.params["exp"] = 1e21;
  result.metrics["time"].summary.p999 = 1e-7;
  result.header.extra = {{"z", {{"k", "v"}}}};
  NoteRecord note = sample_note();
  note.bench.reset();

  const std::string golden[] = {
      R"({"schema":"benchledger/1","type":"run","id":"01JDQ8Z6X0000000000000000A","time":"2026-11-2)"
      R"(2T04:27:59.123456Z","prev":"00000000000000000000000000000000000000000000000000000000000000)"
      R"(00","label":null,"project":"benchledger","git":{"commit":"0544d13c0ffee0544d13c0ffee0544d1)"
      R"(3c0ffee0","branch":"main","dirty":false},"env":{"host":"bench-01","cpu":{"model":"AMD EPYC)"
      R"( 7B13","vendor":"AuthenticAMD","arch":"x86_64","logical":2,"physical":1,"sockets":1,"onlin)"
      R"(e":2,"affinity":2,"quota":1.5,"mhz":2449.998,"governor":null,"turbo":false,"smt":true,"cac)"
      R"(he_bytes":{"l1d":32768,"l2":524288,"l3":33554432}},"memory":{"total_bytes":25769803776,"li)"
      R"(mit_bytes":1073741824},"os":{"name":"Debian GNU/Linux","version":"12","kernel":"6.1.0-27-c)"
      R"(loud-amd64"},"virtualization":"kvm","container":{"kind":"docker","docker_version":null},"c)"
      R"(lock":{"source":"kvm-clock","read_ns":24.5},"runtimes":{"compiler":"gcc 12.2.0","build_typ)"
      R"(e":"Release","node":"v20.20.2","python":null,"postgres_client":null,"postgres_server":null)"
      R"(},"load_avg":null,"fingerprint":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa)"
      R"(aaaaaaa"},"warnings":["tab\there \"quoted\" back\\slash","ctl \u0001\u001f é 漢 😀"],"comman)"
      R"(d":["bench-run","--suite","executors"],"source":"native","aa_first":"x","zz_later":{"a":[1)"
      R"(.5,null,true],"b":2}})",
      R"({"schema":"benchledger/1","type":"result","id":"01JDQ8Z6X0000000000000000B","time":"2026-1)"
      R"(1-22T04:28:00.000001Z","prev":"00000000000000000000000000000000000000000000000000000000000)"
      R"(00000","run":"01JDQ8Z6X0000000000000000A","bench":"executors/sort","params":{"big":-900719)"
      R"(9254740993,"executor":"pool","exp":1e+21,"mixed":false,"n":2000,"neg":-0.0,"ratio":0.5,"ti)"
      R"(ny":5e-324,"é/ünï":"v\n2"},"metrics":{"latency":{"unit":"ns","better":"lower","samples":[9)"
      R"(00.0,950.0,1000.0],"value":950.0,"summary":{"n":3,"mean":950.0,"median":950.0,"stddev":50.)"
      R"(0,"min":900.0,"max":1000.0,"p50":950.0,"p99":1000.0}},"throughput":{"unit":"ops/s","better)"
      R"(":"higher","value":9377.62,"summary":{"n":1,"mean":9377.62,"median":9377.62,"stddev":0.0,")"
      R"(min":9377.62,"max":9377.62}},"time":{"unit":"ns","better":"lower","samples":[1200.5,1190.2)"
      R"(5,1210.0,1205.125],"value":1202.8125,"summary":{"n":4,"mean":1201.46875,"median":1202.8125)"
      R"(,"stddev":8.425145275700988,"min":1190.25,"max":1210.0,"p999":1e-07}}},"primary":"time","o)"
      R"(ps":4000,"errors":2,"z":{"k":"v"}})",
      R"({"schema":"benchledger/1","type":"note","id":"01JDQ8Z6X0000000000000000C","time":"2026-11-)"
      R"(22T05:00:00.000000Z","prev":"0000000000000000000000000000000000000000000000000000000000000)"
      R"(000","target":"01JDQ8Z6X0000000000000000B","bench":null,"kind":"accept-regression","text":)"
      R"("the pool now checks bounds; 3% is the price","author":"ci"})"};
  CHECK(serialize(run) == golden[0]);
  CHECK(serialize(result) == golden[1]);
  CHECK(serialize(note) == golden[2]);
}

TEST_CASE("a key repeated in one object is refused by name, by both reading paths") {
  // nlohmann keeps the last of repeated keys: a result with two "run" keys would count under
  // whichever run a reader happened to keep. Both paths refuse it, wherever it is.
  const std::string result = serialize(sample_result());
  const std::string run = serialize(sample_run());
  const auto insert_after = [](std::string line, const std::string& anchor,
                               const std::string& text) {
    const std::size_t at = line.find(anchor);
    REQUIRE(at != std::string::npos);
    return line.insert(at + anchor.size(), text);
  };
  struct Case {
    std::string line, message;
  };
  const std::vector<Case> cases = {
      {insert_after(result, "{", R"("run":"01JDQ8Z6X0000000000000000Z",)"),
       "field \"run\": appears more than once in its object"},
      {insert_after(result, R"("unit":"ns",)", R"("unit":"ms",)"),
       "field \"metrics.latency.unit\": appears more than once in its object"},
      {insert_after(result, R"("params":{)", R"("n":1,)"),
       "field \"params.n\": appears more than once in its object"},
      {insert_after(run, R"("cpu":{)", R"("model":"x",)"),
       "field \"env.cpu.model\": appears more than once in its object"},
      // Inside a member neither path reads, and inside an array: refused all the same.
      {insert_after(run, R"("env":{)", R"("gpu":[{"a":1,"a":2}],)"),
       "field \"env.gpu[0].a\": appears more than once in its object"},
      {insert_after(run, R"("git":{)", R"("extra":{"b":{"c":1,"c":1}},)"),
       "field \"git.extra.b.c\": appears more than once in its object"},
  };
  for (const Case& c : cases) {
    INFO(c.line);
    CHECK_FALSE(model::parse_record_fast(c.line).has_value());
    CHECK_THROWS_WITH(model::parse_record_slow(c.line), c.message);
    CHECK(refusal(c.line) == c.message);
  }
  // The same members once each are read as before.
  CHECK(refusal(insert_after(run, R"("env":{)", R"("gpu":[{"a":1},{"a":2}],)")).empty());
}

TEST_CASE("a record nested deeper than 512 levels is refused by name, by both reading paths") {
  // Copying or writing a value nested 300,000 deep overflows the stack: both paths refuse it
  // while parsing. The record is the first level, so 510 arrays in a metric make 513 levels.
  const std::string result = serialize(sample_result());
  const auto in_metric = [&](std::size_t arrays) {
    std::string line = result;
    const std::string anchor = R"("unit":"ns",)";
    return line.insert(line.find(anchor) + anchor.size(),
                       R"("x":)" + std::string(arrays, '[') + std::string(arrays, ']') + ",");
  };
  CHECK(model::parse_record_fast(in_metric(509)).has_value());  // 512 levels: read as before
  CHECK(refusal(in_metric(509)).empty());
  for (const std::size_t arrays : {std::size_t{510}, std::size_t{300000}}) {
    INFO(arrays);
    CHECK_FALSE(model::parse_record_fast(in_metric(arrays)).has_value());
    CHECK_THROWS_WITH(model::parse_record_slow(in_metric(arrays)),
                      "field \"metrics.latency.x[0][0][0][0][0]…\": nested deeper than 512 levels "
                      "of arrays and objects");
  }
  const std::string deep_line = std::string(300000, '[') + std::string(300000, ']');
  CHECK(refusal(deep_line) ==
        "field \"[0][0][0][0][0][0][0][0]…\": nested deeper than 512 levels of arrays and objects");
}

TEST_CASE("a run's PostgreSQL settings round-trip by both reading paths, absent when unknown") {
  RunRecord run = sample_run();
  const std::string without = serialize(run);
  CHECK(without.find("\"postgres\":{") == std::string::npos);  // older records keep their bytes
  CHECK(parse_record(without) == Record(run));

  PostgresSettings& pg = run.env.postgres.emplace();
  pg.shared_buffers = "128MB";
  pg.synchronous_commit = "on";
  pg.fsync = "off";
  pg.max_connections = "100";
  pg.wal_level = "replica";
  pg.same_host = true;  // work_mem unknown: null
  const std::string bytes = serialize(run);
  CHECK(bytes.find("\"postgres_server\":null},\"postgres\":{\"shared_buffers\":\"128MB\","
                   "\"synchronous_commit\":\"on\",\"fsync\":\"off\",\"max_connections\":\"100\","
                   "\"wal_level\":\"replica\",\"work_mem\":null,\"same_host\":true},") !=
        std::string::npos);
  const auto fast = model::parse_record_fast(bytes);
  REQUIRE(fast.has_value());
  CHECK(*fast == Record(run));
  CHECK(model::parse_record_slow(bytes) == Record(run));
  CHECK(refusal(with_field(run, "/env/postgres/fsync", 1)) ==
        "field \"env.postgres.fsync\": expected a string or null");
}

TEST_CASE(
    "a deterministic count round-trips by both reading paths; other metrics keep their bytes") {
  ResultRecord result = sample_result();
  const std::string before = serialize(result);
  CHECK(before.find("deterministic") == std::string::npos);  // older records keep their bytes
  CHECK(before.find("counter") == std::string::npos);

  Metric count = single_value_metric("count", Better::lower, 1325.5);
  count.deterministic = true;
  count.counter = "valgrind";
  result.metrics["instructions"] = count;
  const std::string bytes = serialize(result);
  CHECK(bytes.find(R"("instructions":{"unit":"count","better":"lower","deterministic":true,)"
                   R"("counter":"valgrind","value":1325.5,)") != std::string::npos);
  const auto fast = model::parse_record_fast(bytes);
  REQUIRE(fast.has_value());
  CHECK(*fast == Record(result));
  CHECK(model::parse_record_slow(bytes) == Record(result));
  CHECK(serialize(*fast) == bytes);

  CHECK(refusal(with_field(result, "/metrics/instructions/deterministic", false)) ==
        "field \"metrics.instructions.deterministic\": expected true (the member is absent "
        "otherwise)");
  CHECK(refusal(with_field(result, "/metrics/instructions/counter", "")) ==
        "field \"metrics.instructions.counter\": must not be empty");
  CHECK(refusal(with_field(result, "/metrics/instructions/counter", 1)) ==
        "field \"metrics.instructions.counter\": expected a string");
}
