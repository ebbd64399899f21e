// `ledger verify --since HEAD` checks what was appended after a saved head, on every store: the
// records after it must be valid and chain onto it, the saved head's record must still hash to
// it, an edit after it is caught and one before it is not its concern, and a head that no record
// hashes to is refused with exit 1, while a note that quotes the head is not taken for it. The
// database stores' points are recomputed for the records after it, a result's run before the
// saved head included, and a point edited, missing or extra is named as the whole verify names it.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "integration/ledger_process.hpp"
#include "ledger/canonical.hpp"
#include "unit/ledger/ledger_support.hpp"

using namespace benchledger;
using namespace benchledger::ledger;
using namespace benchledger::testing;

namespace {

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  return text;
}

// Replaces `from` with `to` in the bytes of the record at `position` behind the store's back: a
// line edited in the file, or a row updated by the database's owner with the triggers that refuse
// it switched off for the statement and back on after it, so that the file or table looks as
// benchledger made it apart from the edited bytes.
void edit(const std::string& uri, std::int64_t position, const std::string& from,
          const std::string& to) {
  const auto run = [](const std::vector<std::string>& argv) {
    const ProcessResult result = run_process(argv);
    INFO(argv.back() << ": " << result.err);
    REQUIRE(result.exit_code == 0);
    return result.out;
  };
  const std::string replace =
      fmt::format("bytes = replace(bytes, '{}', '{}') WHERE seq = {}", from, to, position);
  if (uri.rfind("sqlite:", 0) == 0) {
    const std::string db = uri.substr(7);
    const std::string trigger =
        run({"/usr/bin/sqlite3", db,
             "SELECT sql FROM sqlite_master WHERE name = 'records_refuse_update'"});
    REQUIRE_FALSE(trigger.empty());
    run({"/usr/bin/sqlite3", db,
         "DROP TRIGGER records_refuse_update; UPDATE records SET " + replace + "; " + trigger +
             ";"});
  } else if (uri.rfind("postgresql:", 0) == 0) {
    run({"/usr/bin/psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", uri, "-c",
         "BEGIN; ALTER TABLE benchledger_records DISABLE TRIGGER USER; UPDATE "
         "benchledger_records SET " +
             replace + "; ALTER TABLE benchledger_records ENABLE TRIGGER USER; COMMIT;"});
  } else {
    auto lines = split_lines(read_file(uri));
    auto& line = lines.at(static_cast<std::size_t>(position - 1));
    const std::size_t at = line.find(from);
    REQUIRE(at != std::string::npos);
    line.replace(at, from.size(), to);
    write_file(uri, joined(lines));
  }
}

// Runs `statement` on the table of points behind the store's back, by its owner, with the
// triggers that refuse it switched off for the statement and back on after it, as edit() does.
// In the statement, {points} is the table of points and {records} the table of records.
void on_points(const std::string& uri, const std::string& statement) {
  ProcessResult result;
  if (uri.rfind("sqlite:", 0) == 0) {
    const std::string db = uri.substr(7);
    std::string drop, create;
    for (const char* trigger :
         {"points_refuse_update", "points_refuse_delete", "points_of_a_result"}) {
      result =
          run_process({"/usr/bin/sqlite3", db,
                       fmt::format("SELECT sql FROM sqlite_master WHERE name = '{}'", trigger)});
      REQUIRE(result.exit_code == 0);
      REQUIRE_FALSE(result.out.empty());
      drop += fmt::format("DROP TRIGGER {}; ", trigger);
      create += result.out + ";\n";
    }
    result = run_process({"/usr/bin/sqlite3", db,
                          drop +
                              fmt::format(fmt::runtime(statement), fmt::arg("points", "points"),
                                          fmt::arg("records", "records")) +
                              ";\n" + create});
  } else {
    result = run_process(
        {"/usr/bin/psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", uri, "-c",
         "BEGIN; ALTER TABLE benchledger_points DISABLE TRIGGER USER; " +
             fmt::format(fmt::runtime(statement), fmt::arg("points", "benchledger_points"),
                         fmt::arg("records", "benchledger_records")) +
             "; ALTER TABLE benchledger_points ENABLE TRIGGER USER; COMMIT;"});
  }
  INFO(statement << "\n" << result.err);
  REQUIRE(result.exit_code == 0);
}

// Sets the centre of the points of the result at `position` behind the store's back.
void edit_points(const std::string& uri, std::int64_t position) {
  on_points(uri, fmt::format("UPDATE {{points}} SET centre = centre + 1 WHERE seq = {}", position));
}

// Appends three batches of a run and three results (records 1 to 12); returns the heads after
// the second and the third.
std::pair<std::string, std::string> three_batches(Store& store) {
  store.append(fresh_batch("baseline", 3));
  std::string saved = store.append(fresh_batch("baseline", 3)).head;
  return {saved, store.append(fresh_batch("baseline", 3)).head};
}

ProcessResult verify(const std::string& uri, const std::vector<std::string>& more = {}) {
  std::vector<std::string> args = {"verify", "--ledger", uri};
  args.insert(args.end(), more.begin(), more.end());
  return run_ledger(args);
}

}  // namespace

TEST_CASE("verify --since checks the records after a saved head, on every store") {
  const ScratchDir dir;
  for (const std::string& uri : store_uris(dir)) {
    INFO(uri);
    const auto store = open_store(uri);
    // Three batches of a run and three results: records 1 to 12, the head saved at record 8.
    const auto [saved, head] = three_batches(*store);
    const std::string name = store->uri();

    ProcessResult result = verify(uri, {"--since", saved});
    INFO(result.err);
    CHECK(result.exit_code == 0);
    CHECK(result.out ==
          "ok: " + name + ": 4 records after the saved head (position 8), head " + head + "\n");
    CHECK(verify(uri, {"--since", head}).out ==
          "ok: " + name + ": 0 records after the saved head (position 12), head " + head + "\n");
    CHECK(verify(uri, {"--since", std::string(k_zero_hash)}).out ==
          "ok: " + name + ": 12 records after the saved head (position 0), head " + head + "\n");

    // A record before the saved head (not its own) edited: verify sees it, --since does not.
    edit(uri, 6, "\"errors\":2", "\"errors\":0");
    CHECK(verify(uri).exit_code == 1);
    result = verify(uri, {"--since", saved});
    CHECK(result.exit_code == 0);
    CHECK(result.err.empty());

    // A record after it edited: caught at the next one, which no longer chains onto it.
    edit(uri, 10, "\"errors\":2", "\"errors\":0");
    result = verify(uri, {"--since", saved});
    CHECK(result.exit_code == 1);
    CHECK(result.out.empty());
    const std::string unit = uri.find(".ndjson") != std::string::npos ? "line" : "record";
    CHECK_THAT(result.err, Catch::Contains(": " + unit + " 11 (id ") &&
                               Catch::Contains(unit + " 10 was changed") &&
                               !Catch::Contains(unit + " 7") &&
                               Catch::Contains("broken: 1 break in 4 records after the saved "
                                               "head (position 8)"));

    // The saved head's own record edited: the head is gone, and nothing after it can be told.
    edit(uri, 8, "\"errors\":2", "\"errors\":0");
    result = verify(uri, {"--since", saved});
    CHECK(result.exit_code == 1);
    CHECK_THAT(result.err, Catch::Contains("the saved head " + saved +
                                           " is not the hash of any of its 12 records") &&
                               Catch::Contains("broken: the saved head is not in it"));
  }
}

TEST_CASE("verify --since recomputes the points of the results after the saved head") {
  const ScratchDir dir;
  const auto uris = store_uris(dir);
  for (const std::string& uri : {uris[1], uris[2]}) {
    INFO(uri);
    const auto store = open_store(uri);
    const std::string saved = three_batches(*store).first;

    edit_points(uri, 6);  // before the saved head (record 8)
    CHECK(verify(uri).exit_code == 1);
    CHECK(verify(uri, {"--since", saved}).exit_code == 0);
    edit_points(uri, 10);
    const ProcessResult result = verify(uri, {"--since", saved});
    CHECK(result.exit_code == 1);
    CHECK_THAT(result.err, Catch::Contains(": record 10 (id ") &&
                               Catch::Contains("disagrees with its bytes (centre)") &&
                               !Catch::Contains("record 6"));
  }
}

TEST_CASE("verify --since names a point edited, missing or extra, its run before the head or not") {
  const ScratchDir dir;
  const auto uris = store_uris(dir);
  for (const std::string& uri : {uris[1], uris[2]}) {
    INFO(uri);
    const auto store = open_store(uri);
    // Records 1 to 3: a run and two results; the head saved after them.
    const auto first = fresh_batch("nightly", 2);
    const std::string saved = store->append(first).head;
    // Records 4 and 5: results of that run, which is before the saved head.
    const std::string run = header_of(first[0]).id;
    std::vector<Record> later;
    for (std::int64_t i = 2; i < 4; ++i) {
      ResultRecord result = sample_result(run, new_ulid());
      result.header.time = now_rfc3339();
      result.params["i"] = i;
      later.emplace_back(std::move(result));
    }
    store->append(later);
    // Records 6 to 8: a result appended before its run (which has no points), the run, a result.
    auto swapped = fresh_batch("nightly", 2);
    std::swap(swapped[0], swapped[1]);
    store->import(swapped);
    const std::string name = store->uri();
    const std::string head = store->verify(std::nullopt).head;

    // Every point of records 4, 5 and 8 is as their records and runs give it, and record 6 has
    // none.
    ProcessResult result = verify(uri, {"--since", saved});
    INFO(result.err);
    CHECK(result.exit_code == 0);
    CHECK(result.out ==
          "ok: " + name + ": 5 records after the saved head (position 3), head " + head + "\n");

    // A break's line as verify prints it, naming a SQLite ledger by its file.
    const std::string ledger = uri.rfind("sqlite:", 0) == 0 ? uri.substr(7) : name;
    const auto line = [&](const std::string& record, const std::string& problem) {
      return "benchledger: " + ledger + ": record " + record + ": " + problem +
             ": the table of points was changed outside benchledger, and `history` reads it\n";
    };
    const auto id = [&](std::size_t i) { return header_of(later.at(i)).id; };
    const std::string edited =
        line("4 (id " + id(0) + ")", "its point for metric time disagrees with its bytes (centre)");
    const std::string missing =
        line("5 (id " + id(1) + ")", "its point for metric latency is missing");
    const std::string forged =
        line("5", "the table of points holds a point (metric forged) that the records do not give");
    const std::string before_run =
        line("6", "the table of points holds a point (metric time) that the records do not give");
    const auto broken = [&](int breaks) {
      return fmt::format(
          "benchledger: {}: broken: {} {} in 5 records after the saved head "
          "(position 3) (head {})\n",
          name, breaks, breaks == 1 ? "break" : "breaks", head);
    };

    // A point edited, of a result whose run is before the saved head.
    on_points(uri, "UPDATE {points} SET centre = centre + 1 WHERE seq = 4 AND metric = 'time'");
    result = verify(uri, {"--since", saved});
    CHECK(result.exit_code == 1);
    CHECK(result.err == edited + broken(1));
    // A point missing.
    on_points(uri, "DELETE FROM {points} WHERE seq = 5 AND metric = 'latency'");
    result = verify(uri, {"--since", saved});
    CHECK(result.exit_code == 1);
    CHECK(result.err == edited + missing + broken(2));
    // Points extra: a metric no record gives, and a point of the result appended before its run.
    on_points(uri,
              "CREATE TEMP TABLE forged AS SELECT * FROM {points} WHERE seq = 5 AND metric = "
              "'time'; UPDATE forged SET metric = 'forged', is_primary = (1 = 0); INSERT INTO "
              "{points} SELECT * FROM forged; DELETE FROM forged; INSERT INTO forged SELECT * "
              "FROM {points} WHERE seq = 8 AND metric = 'time'; UPDATE forged SET seq = 6, "
              "result = (SELECT id FROM {records} WHERE seq = 6), params = (SELECT params FROM "
              "{records} WHERE seq = 6); INSERT INTO {points} SELECT * FROM forged");
    result = verify(uri, {"--since", saved});
    CHECK(result.exit_code == 1);
    CHECK(result.err == edited + forged + missing + before_run + broken(4));
    // The whole verify finds the same.
    CHECK_THAT(verify(uri).err, Catch::StartsWith(edited + forged + missing + before_run));
  }
}

TEST_CASE("verify --since refuses a head of no record, a malformed one, and --head beside it") {
  const ScratchDir dir;
  for (const std::string& uri : store_uris(dir)) {
    INFO(uri);
    const auto store = open_store(uri);
    store->append(fresh_batch("baseline", 2));
    const std::string head = store->append(fresh_batch("baseline", 2)).head;
    const std::string unknown = sha256_hex("not a record of this ledger");

    ProcessResult result = verify(uri, {"--since", unknown});
    CHECK(result.exit_code == 1);
    CHECK(result.out.empty());
    CHECK_THAT(result.err, Catch::Contains("the saved head " + unknown +
                                           " is not the hash of any of its 6 records: its "
                                           "history was truncated or rewritten"));

    // A note that quotes the head, appended after it, is not taken for the record after it.
    const auto batch = fresh_batch("baseline", 1);
    store->append(batch);
    NoteRecord quoting = fresh_note(header_of(batch.front()).id);
    quoting.text = "verified up to " + head;
    store->append({quoting});
    store->append(fresh_batch("baseline", 1));
    result = verify(uri, {"--since", head});
    INFO(result.err);
    CHECK(result.exit_code == 0);
    CHECK_THAT(result.out, Catch::StartsWith("ok: " + store->uri() +
                                             ": 5 records after the saved head (position 6)"));

    result = verify(uri, {"--since", "5be0"});
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains("--since 5be0: expected 64 lower-case hex characters"));
    CHECK(verify(uri, {"--since", head, "--head", head}).exit_code == 2);
  }
}
