// Every store keeps the Store contract: batches appended in order and chained, runs found by
// every selector, results and notes read back exactly, imports idempotent by id, nothing
// appended when a batch is refused, and `verify` recomputing the chain.
#include <catch2/catch.hpp>

#include <benchledger/error.hpp>
#include <benchledger/ledger.hpp>

#include "ledger/canonical.hpp"
#include "ledger/store_scans.hpp"
#include "unit/ledger/ledger_support.hpp"

using namespace benchledger;
using namespace benchledger::ledger;
using namespace benchledger::testing;

namespace {

std::vector<std::string> all_bytes(const Store& store) {
  std::vector<std::string> out;
  store.scan_bytes([&](std::int64_t, std::string_view bytes) {
    out.emplace_back(bytes);
    return true;
  });
  return out;
}

Record without_prev(Record record) {
  header_of(record).prev = std::string(k_zero_hash);
  return record;
}

}  // namespace

TEST_CASE("a ledger that does not exist yet reads as empty, and verify refuses it") {
  ScratchDir dir;
  for (const auto& uri : store_uris(dir)) {
    INFO(uri);
    const auto store = open_store(uri);
    CHECK_FALSE(store->find_run(parse_run_selector("latest")));
    CHECK(store->results_of("01JDQ8Z6X0000000000000000A").empty());
    REQUIRE(store->warnings().size() == 1);
    CHECK_THAT(store->warnings()[0], Catch::Contains("does not exist yet"));
    CHECK(store->log(0).empty());
    CHECK_THROWS_WITH(store->verify(std::nullopt), Catch::Contains("does not exist"));
    CHECK_FALSE(std::filesystem::exists(dir / "ledger.ndjson"));
    CHECK_FALSE(std::filesystem::exists(dir / "ledger.db"));
  }
}

TEST_CASE("appended batches come back in order, chained, with their exact bytes") {
  ScratchDir dir;
  for (const auto& uri : store_uris(dir)) {
    INFO(uri);
    const auto store = open_store(uri);
    const auto first = fresh_batch("baseline", 3);
    const auto second = fresh_batch("current", 2);
    const AppendResult a = store->append(first);
    const AppendResult b = store->append(second);
    CHECK(a.appended == 4);
    CHECK(b.appended == 3);

    std::vector<StoredRecord> stored;
    store->scan([&](const StoredRecord& record) {
      stored.push_back(record);
      return true;
    });
    REQUIRE(stored.size() == 7);
    std::string prev(k_zero_hash);
    for (std::size_t i = 0; i < stored.size(); ++i) {
      CHECK(stored[i].position == static_cast<std::int64_t>(i + 1));
      CHECK(header_of(stored[i].record).prev == prev);
      CHECK(serialize(stored[i].record) == stored[i].bytes);
      const Record& original = i < 4 ? first[i] : second[i - 4];
      CHECK(without_prev(stored[i].record) == without_prev(original));
      prev = sha256_hex(stored[i].bytes);
    }
    CHECK(b.head == prev);
    CHECK(a.head == sha256_hex(stored[3].bytes));

    const VerifyReport report = store->verify(a.head);
    CHECK(report.ok);
    CHECK(report.records == 7);
    CHECK(report.head == b.head);
    CHECK(report.problem.empty());
  }
}

TEST_CASE("runs are found by id, label~N, git:COMMIT and latest~N, newest first") {
  ScratchDir dir;
  for (const auto& uri : store_uris(dir)) {
    INFO(uri);
    const auto store = open_store(uri);
    std::vector<std::string> ids;
    for (const auto& [label, commit] :
         std::vector<std::pair<std::string, std::string>>{{"baseline", "aaaa1111"},
                                                          {"current", "bbbb2222"},
                                                          {"baseline", "aaaa3333"},
                                                          {"current", "cccc4444"}}) {
      const auto batch = fresh_batch(label, 1, commit);
      store->append(batch);
      ids.push_back(header_of(batch[0]).id);
    }
    const auto id_of = [&](const std::string& text) -> std::string {
      const auto run = store->find_run(parse_run_selector(text));
      return run ? run->header.id : "none";
    };
    CHECK(id_of(ids[1]) == ids[1]);
    CHECK(id_of("baseline") == ids[2]);
    CHECK(id_of("baseline~1") == ids[0]);
    CHECK(id_of("baseline~2") == "none");
    CHECK(id_of("current") == ids[3]);
    CHECK(id_of("latest") == ids[3]);
    CHECK(id_of("latest~3") == ids[0]);
    CHECK(id_of("latest~4") == "none");
    CHECK(id_of("git:aaaa") == ids[2]);
    CHECK(id_of("git:AAAA1111") == ids[0]);
    CHECK(id_of("git:dddd") == "none");
    CHECK(id_of("nosuchlabel") == "none");
    CHECK(id_of("01JDQ8Z6X0000000000000000A") == "none");

    const auto two = store->find_runs(parse_run_selector("latest~1"), 2);
    REQUIRE(two.size() == 2);
    CHECK(two[0].header.id == ids[2]);
    CHECK(two[1].header.id == ids[1]);
    CHECK(store->find_runs(parse_run_selector("baseline"), 10).size() == 2);
    CHECK(store->find_runs(parse_run_selector("latest"), 0).empty());
  }
}

TEST_CASE("results, notes, single records and the log read back what was appended") {
  ScratchDir dir;
  for (const auto& uri : store_uris(dir)) {
    INFO(uri);
    const auto store = open_store(uri);
    const auto one = fresh_batch("baseline", 3);
    const auto two = fresh_batch("current", 5);
    store->append(one);
    store->append(two);
    const std::string result_id = header_of(one[2]).id;
    const NoteRecord note = fresh_note(result_id);
    store->append({note});

    const auto results = store->results_of(header_of(one[0]).id);
    REQUIRE(results.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK(results[i].header.id == header_of(one[i + 1]).id);
      CHECK(results[i].params == std::get<ResultRecord>(one[i + 1]).params);
    }
    CHECK(store->results_of(header_of(two[0]).id).size() == 5);

    const auto notes = store->notes();
    REQUIRE(notes.size() == 1);
    CHECK(without_prev(notes[0]) == without_prev(note));

    const auto found = store->find_record(result_id);
    REQUIRE(found);
    CHECK(found->position == 3);
    CHECK(std::holds_alternative<ResultRecord>(found->record));
    CHECK_FALSE(store->find_record(new_ulid()));

    const auto log = store->log(0);
    REQUIRE(log.size() == 2);
    CHECK(log[0].run.header.id == header_of(two[0]).id);
    CHECK(log[0].results == 5);
    CHECK(log[1].results == 3);
    CHECK(store->log(1).size() == 1);
  }
}

// scan_results_taking: each result of the run, in order, either taken from its bytes or given
// to visit as scan_results gives it; nothing of another run; never both.
TEST_CASE("results are offered as bytes or given parsed, each once and in order") {
  ScratchDir dir;
  for (const auto& uri : store_uris(dir)) {
    INFO(uri);
    const auto store = open_store(uri);
    const auto one = fresh_batch("baseline", 6);
    store->append(one);
    store->append(fresh_batch("current", 4));
    const std::string run_id = header_of(one[0]).id;
    std::vector<std::string> seen;
    std::size_t offered = 0, taken = 0;
    scan_results_taking(
        *store, run_id,
        [&](std::string_view bytes) {
          const Record record = parse_record(bytes);
          REQUIRE(std::holds_alternative<ResultRecord>(record));
          CHECK(std::get<ResultRecord>(record).run == run_id);
          if (offered++ % 2 == 1) return false;  // left to visit
          seen.push_back(header_of(record).id);
          ++taken;
          return true;
        },
        [&](ResultRecord&& result) {
          seen.push_back(result.header.id);
          return true;
        });
    std::vector<std::string> expected;
    for (std::size_t i = 1; i < one.size(); ++i) expected.push_back(header_of(one[i]).id);
    CHECK(seen == expected);
    // The NDJSON store offers the bytes of every canonical record; the others may offer none.
    if (uri.find("ndjson") != std::string::npos) CHECK(taken == 3);
  }

  // A line that is not a valid record is not offered: reading it fails as scan_results fails.
  const auto path = dir / "damaged.ndjson";
  const auto store = open_store(path.string());
  const auto batch = fresh_batch("damaged", 2);
  store->append(batch);
  std::ofstream(path, std::ios::app) << "{\"type\":\"result\"}\n";
  const std::string run_id = header_of(batch[0]).id;
  std::string read_message, taking_message;
  try {
    store->scan_results(run_id, [](ResultRecord&&) { return true; });
  } catch (const IntegrityError& e) {
    read_message = e.what();
  }
  try {
    scan_results_taking(
        *store, run_id, [](std::string_view) { return true; }, [](ResultRecord&&) { return true; });
  } catch (const IntegrityError& e) {
    taking_message = e.what();
  }
  CHECK_THAT(read_message, Catch::Contains("line 4"));
  CHECK(taking_message == read_message);
}

TEST_CASE("import skips records already present and refuses an id with other content") {
  ScratchDir dir;
  for (const auto& uri : store_uris(dir)) {
    INFO(uri);
    const auto store = open_store(uri);
    const auto batch = fresh_batch("baseline", 2);
    const AppendResult first = store->import(batch);
    CHECK(first.appended == 3);
    const AppendResult again = store->import(batch);
    CHECK(again.appended == 0);
    CHECK(again.skipped == 3);
    CHECK(again.head == first.head);

    // A record whose prev differs is the same record: prev belongs to the store.
    auto moved = batch;
    header_of(moved[1]).prev = std::string(64, 'e');
    CHECK(store->import(moved).skipped == 3);

    auto changed = fresh_batch("current", 1);
    changed.push_back(batch[2]);
    std::get<ResultRecord>(changed.back()).ops += 1;
    const auto before = all_bytes(*store);
    try {
      store->import(changed);
      FAIL("import of a changed record was accepted");
    } catch (const ConflictError& e) {
      CHECK(e.index() == 2);
      CHECK_THAT(e.what(),
                 Catch::Contains(header_of(batch[2]).id) && Catch::Contains("with other content"));
    }
    CHECK(all_bytes(*store) == before);

    auto twice = fresh_batch("current", 1);
    twice.push_back(twice[1]);
    std::get<ResultRecord>(twice.back()).errors += 1;
    CHECK_THROWS_AS(store->import(twice), ConflictError);
    CHECK(all_bytes(*store) == before);
  }
}

TEST_CASE("a refused batch creates nothing when the ledger does not exist yet") {
  ScratchDir dir;
  // In a directory that does not exist either: it is not created.
  for (const std::string& uri : {(dir / "new" / "ledger.ndjson").string(),
                                 "sqlite:" + (dir / "new" / "ledger.db").string()}) {
    INFO(uri);
    const auto store = open_store(uri);
    auto twice = fresh_batch("current", 2);
    twice.push_back(twice[1]);
    std::get<ResultRecord>(twice.back()).errors += 1;
    try {
      store->import(twice);
      FAIL("import of an id twice with different content was accepted");
    } catch (const ConflictError& e) {
      CHECK(e.index() == 3);
      CHECK_THAT(e.what(), Catch::Contains("appears twice with different content"));
    }
    auto invalid = fresh_batch("current", 1);
    std::get<ResultRecord>(invalid[1]).primary = "no-such-metric";
    CHECK_THROWS_WITH(store->append(invalid), Catch::Contains("field \"primary\""));
    CHECK_THROWS_WITH(store->import(invalid), Catch::Contains("field \"primary\""));
    CHECK_FALSE(std::filesystem::exists(dir / "new"));

    // The same id twice with the same content is one record.
    auto same = fresh_batch("current", 1);
    same.push_back(same[1]);
    const AppendResult imported = store->import(same);
    CHECK(imported.appended == 2);
    CHECK(imported.skipped == 1);
    std::filesystem::remove_all(dir / "new");
  }
}

TEST_CASE("an invalid record refuses its whole batch and nothing is appended") {
  ScratchDir dir;
  for (const auto& uri : store_uris(dir)) {
    INFO(uri);
    const auto store = open_store(uri);
    store->append(fresh_batch("baseline", 1));
    const auto before = all_bytes(*store);
    auto batch = fresh_batch("current", 3);
    std::get<ResultRecord>(batch[2]).primary = "no-such-metric";
    CHECK_THROWS_WITH(store->append(batch), Catch::Contains("record 3 of the batch") &&
                                                Catch::Contains("field \"primary\""));
    auto bad_id = fresh_batch("current", 0);
    header_of(bad_id[0]).id = "not-a-ulid";
    CHECK_THROWS_WITH(store->append(bad_id), Catch::Contains("field \"id\""));
    CHECK(all_bytes(*store) == before);

    // A batch large enough to be serialized on several threads still names its first bad
    // record, wherever the slices between threads fall.
    auto large = fresh_batch("current", 999);
    std::get<ResultRecord>(large[700]).primary = "no-such-metric";
    std::get<ResultRecord>(large[300]).bench = "";
    CHECK_THROWS_WITH(store->append(large), Catch::Contains("record 301 of the batch") &&
                                                Catch::Contains("field \"bench\""));
    std::get<ResultRecord>(large[300]).bench = "fixed";
    CHECK_THROWS_WITH(store->append(large), Catch::Contains("record 701 of the batch"));
    CHECK(all_bytes(*store) == before);
  }
}

TEST_CASE("records move between stores with every field but prev kept") {
  ScratchDir dir;
  const auto uris = store_uris(dir);
  const auto from = open_store(uris[0]);
  const auto to = open_store(uris[1]);
  from->append(fresh_batch("baseline", 2));
  from->append({fresh_note(header_of(fresh_batch("x", 0)[0]).id)});
  std::vector<Record> records;
  from->scan([&](const StoredRecord& stored) {
    records.push_back(stored.record);
    return true;
  });
  to->import(records);
  std::vector<Record> copied;
  to->scan([&](const StoredRecord& stored) {
    copied.push_back(stored.record);
    return true;
  });
  REQUIRE(copied.size() == records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    CHECK(without_prev(copied[i]) == without_prev(records[i]));
  }
  CHECK(to->verify(std::nullopt).ok);
  // Both stores chain the same records from 64 zeros, so their bytes agree too.
  CHECK(all_bytes(*to) == all_bytes(*from));
}

TEST_CASE("export of one run is a ledger of its own: run, results and notes, re-chained") {
  ScratchDir dir;
  for (const auto& uri : store_uris(dir)) {
    INFO(uri);
    const auto store = open_store(uri);
    store->append(fresh_batch("baseline", 1));
    const auto wanted = fresh_batch("current", 2);
    store->append(wanted);
    store->append({fresh_note(header_of(wanted[1]).id)});
    store->append(fresh_batch("other", 1));

    const auto lines = export_run(*store, parse_run_selector("current"));
    REQUIRE(lines.size() == 4);
    std::string text;
    for (const auto& line : lines) text += line + "\n";
    const auto file = dir / "export.ndjson";
    write_file(file, text);
    const auto exported = open_store(file.string());
    CHECK(exported->verify(std::nullopt).ok);
    CHECK(exported->results_of(header_of(wanted[0]).id).size() == 2);
    CHECK(exported->notes().size() == 1);
    CHECK_THROWS_WITH(export_run(*store, parse_run_selector("nosuch")),
                      Catch::Contains("no run matches \"nosuch\""));
  }
}

TEST_CASE("a saved head that is no longer in the ledger fails verify") {
  ScratchDir dir;
  for (const auto& uri : store_uris(dir)) {
    INFO(uri);
    const auto store = open_store(uri);
    const AppendResult a = store->append(fresh_batch("baseline", 1));
    CHECK(store->verify(a.head).ok);
    // 64 zeros, the head of the empty ledger, is the prefix of every ledger.
    const AppendResult b = store->append(fresh_batch("current", 2));
    const VerifyReport from_empty = store->verify(std::string(k_zero_hash));
    CHECK(from_empty.ok);
    CHECK(from_empty.records == 5);
    CHECK(from_empty.head == b.head);
    const VerifyReport report = store->verify(std::string(64, 'f'));
    CHECK_FALSE(report.ok);
    CHECK_THAT(report.problem,
               Catch::Contains("saved head ffff") && Catch::Contains("truncated or rewritten"));
  }
}

TEST_CASE("verify reads on past a bad record and lists every break with its position and id") {
  ScratchDir dir;
  const auto path = dir / "ledger.ndjson";
  const auto store = open_store(path.string());
  store->append(fresh_batch("baseline", 2));
  const AppendResult last = store->append(fresh_batch("current", 2));
  auto lines = split_lines(read_file(path));
  const std::string fourth_id(peek_canonical(lines[3])->id);
  lines[2] = "not a record";  // line 3: a break, and line 4's prev no longer matches
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  write_file(path, text);

  const VerifyReport report = store->verify(last.head);
  CHECK_FALSE(report.ok);
  CHECK(report.records == 6);
  CHECK(report.head == last.head);  // the saved head is found: it comes after the breaks
  REQUIRE(report.breaks.size() == 2);
  CHECK(report.break_count == 2);
  CHECK(report.breaks[0].position == 3);
  CHECK(report.breaks[0].id.empty());
  CHECK_THAT(report.breaks[0].problem, Catch::Contains("line 3: not a valid record"));
  CHECK(report.breaks[1].position == 4);
  CHECK(report.breaks[1].id == fourth_id);
  CHECK(report.bad_position == 3);
  CHECK(report.problem == report.breaks[0].problem);
}

TEST_CASE("NDJSON records written by hand, not canonically, are still found") {
  ScratchDir dir;
  const auto path = dir / "hand.ndjson";
  const auto batch = fresh_batch("manual", 1);
  // Sorted keys and spaces: valid records, just not in serialize()'s shape.
  std::string prev(k_zero_hash);
  std::string text;
  for (Record record : batch) {
    header_of(record).prev = prev;
    const std::string line = nlohmann::json::parse(serialize(record)).dump(-1);
    text += line + "\n";
    prev = sha256_hex(line);
  }
  write_file(path, text);
  const auto store = open_store(path.string());
  const auto run = store->find_run(parse_run_selector("manual"));
  REQUIRE(run);
  CHECK(run->header.id == header_of(batch[0]).id);
  CHECK(store->find_run(parse_run_selector("git:0544d13c")));
  CHECK(store->results_of(run->header.id).size() == 1);
  CHECK(store->log(0).at(0).results == 1);
  CHECK(store->verify(std::nullopt).ok);
  // The next append chains onto the hand-written bytes as they are.
  const AppendResult appended = store->append(fresh_batch("after", 0));
  CHECK(appended.appended == 1);
  CHECK(store->verify(std::nullopt).ok);
}

TEST_CASE("unknown ledger URIs are refused with a clear message") {
  CHECK_THROWS_WITH(open_store("ledger.json"), Catch::Contains("expected path.ndjson"));
  CHECK_THROWS_WITH(open_store("sqlite:"), Catch::Contains("needs a path"));
}
