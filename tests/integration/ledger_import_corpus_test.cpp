// `ledger import` refuses every file of the bad-input corpus whole — with exit 2, the file and
// line named, and the field where there is one — and leaves the ledger byte-identical.
#include <catch2/catch.hpp>

#include "integration/ledger_process.hpp"
#include "unit/ledger/ledger_support.hpp"

using namespace benchledger;
using namespace benchledger::ledger;
using namespace benchledger::testing;

namespace {

struct BadFile {
  std::string name;
  std::string content;
  std::string expected;  // after "FILE:"
};

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::vector<BadFile> corpus(const std::string& existing_result) {
  const auto good = fresh_batch("current", 2);
  const std::string one = serialize(good[0]) + "\n";
  const std::string two = serialize(good[1]) + "\n";
  const std::string three = serialize(good[2]);
  const std::string start = one + two;  // two good lines, then the bad line 3
  std::string huge = three;
  huge.insert(huge.size() - 1, ",\"padding\":\"" + std::string(100u << 20, 'x') + "\"");
  return {
      {"malformed", start + R"({"schema":"benchledger/1","type":)" + "\n", "3: malformed JSON"},
      {"missing-field", start + replaced(three, R"("bench":"executors/sort",)", "") + "\n",
       "3: field \"bench\": missing"},
      {"mistyped-field", start + replaced(three, R"("ops":4000)", R"("ops":"many")") + "\n",
       "3: field \"ops\": expected an integer"},
      {"mistyped-nested", start + replaced(three, R"("better":"lower")", R"("better":1)") + "\n",
       "3: field \"metrics.latency.better\": expected a string"},
      {"nan", start + replaced(three, R"("value":950)", R"("value":NaN)") + "\n",
       "3: malformed JSON"},
      {"infinity", start + replaced(three, R"("value":950)", R"("value":Infinity)") + "\n",
       "3: malformed JSON"},
      {"overflow-to-infinity", start + replaced(three, R"("value":950)", R"("value":1e999)") + "\n",
       "3: field \"metrics.latency.value\": the number 1e999 is out of the range of a double"},
      {"invalid-utf8", start + replaced(three, "executors/sort", "executors/\xff\xfesort") + "\n",
       "3: malformed JSON"},
      {"huge-line", start + huge + "\n", "3: record is "},
      {"other-schema", start + replaced(three, "benchledger/1", "benchledger/2") + "\n",
       "3: field \"schema\": \"benchledger/2\" is a schema version this benchledger cannot read"},
      {"duplicate-id", start + replaced(existing_result, R"("ops":4000)", R"("ops":4001)") + "\n",
       "3: field \"id\": "},
      {"empty", "", " empty file"},
      {"no-final-newline", start + three, "3: the last line has no final newline"},
  };
}

}  // namespace

TEST_CASE("every file of the bad-input corpus is refused whole, the ledger byte-identical") {
  ScratchDir dir;
  for (const std::string& uri : store_uris(dir)) {
    INFO(uri);
    const auto store = open_store(uri);
    const auto existing = fresh_batch("baseline", 2);
    store->append(existing);
    std::string existing_result;
    store->scan_bytes([&](std::int64_t position, std::string_view bytes) {
      if (position == 2) existing_result = std::string(bytes);
      return true;
    });
    const auto snapshot = [&] {
      const bool ndjson = uri.ends_with(".ndjson");
      return ndjson ? read_file(uri) : run_ledger({"export", "--ledger", uri}).out;
    };
    const std::string before = snapshot();
    for (const auto& bad : corpus(existing_result)) {
      INFO(bad.name);
      const auto path = dir / (bad.name + ".ndjson");
      write_file(path, bad.content);
      const ProcessResult result = run_ledger({"import", path.string(), "--ledger", uri});
      INFO(result.err);
      CHECK(result.exit_code == 2);
      CHECK(result.out.empty());
      CHECK_THAT(result.err, Catch::Contains(path.string() + ":" + bad.expected));
      CHECK(snapshot() == before);
      std::filesystem::remove(path);
    }
    // A good file after all that imports, and the ledger verifies.
    const auto path = dir / "good.ndjson";
    std::string good;
    for (const auto& record : fresh_batch("current", 2)) good += serialize(record) + "\n";
    write_file(path, good);
    const ProcessResult result = run_ledger({"import", path.string(), "--ledger", uri});
    CHECK(result.exit_code == 0);
    CHECK(run_ledger({"verify", "--ledger", uri}).exit_code == 0);
  }
}

TEST_CASE("one bad file among several refuses them all") {
  ScratchDir dir;
  const auto ledger = dir / "ledger.ndjson";
  open_store(ledger.string())->append(fresh_batch("baseline", 1));
  const std::string before = read_file(ledger);
  std::string good;
  for (const auto& record : fresh_batch("current", 1)) good += serialize(record) + "\n";
  write_file(dir / "a.ndjson", good);
  write_file(dir / "b.ndjson", good.substr(0, good.size() - 1));
  const ProcessResult result =
      run_ledger({"import", (dir / "a.ndjson").string(), (dir / "b.ndjson").string(), "--ledger",
                  ledger.string()});
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.err, Catch::Contains("b.ndjson:2: the last line has no final newline"));
  CHECK(read_file(ledger) == before);
}

TEST_CASE("a refused import leaves no file behind when the ledger did not exist") {
  ScratchDir dir;
  const auto good = fresh_batch("current", 2);
  std::string twice;
  for (const auto& record : good) twice += serialize(record) + "\n";
  // Line 4 repeats the id of line 3 with other content.
  auto changed = std::get<ResultRecord>(good[2]);
  changed.ops += 1;
  twice += serialize(changed) + "\n";
  write_file(dir / "twice.ndjson", twice);
  write_file(dir / "malformed.ndjson", serialize(good[0]) + "\n{\"schema\":\n");
  const std::vector<std::string> uris = {(dir / "new" / "ledger.ndjson").string(),
                                         "sqlite:" + (dir / "new" / "ledger.db").string(),
                                         dir.pg_uri()};
  for (const std::string& uri : uris) {
    INFO(uri);
    const ProcessResult result =
        run_ledger({"import", (dir / "twice.ndjson").string(), "--ledger", uri});
    INFO(result.err);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains("twice.ndjson:4: field \"id\": ") &&
                               Catch::Contains("appears twice with different content"));
    const ProcessResult malformed =
        run_ledger({"import", (dir / "malformed.ndjson").string(), "--ledger", uri});
    CHECK(malformed.exit_code == 2);
    CHECK_THAT(malformed.err, Catch::Contains("malformed.ndjson:2: malformed JSON"));
    CHECK_FALSE(std::filesystem::exists(dir / "new"));
    // A database ledger: no table was created.
    const auto store = open_store(uri);
    CHECK(store->log(0).empty());
    CHECK_THAT(store->warnings().at(0), Catch::Contains("does not exist yet"));
  }
}
