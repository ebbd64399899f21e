// `ledger verify` catches tampering — a flipped bit, a deleted line, two swapped lines, an
// edited number — naming the first bad record by its position and id, exits 1, and with a
// saved `--head` also catches a truncated history.
#include <catch2/catch.hpp>

#include <random>

#include "integration/ledger_process.hpp"
#include "ledger/canonical.hpp"
#include "unit/ledger/ledger_support.hpp"

using namespace benchledger;
using namespace benchledger::ledger;
using namespace benchledger::testing;

namespace {

struct Ledger {
  std::vector<std::string> lines;
  std::string head;
};

// Three batches of a run and three results: 12 lines.
Ledger make_ledger(const std::filesystem::path& path) {
  const auto store = open_store(path.string());
  Ledger ledger;
  for (int i = 0; i < 3; ++i) ledger.head = store->append(fresh_batch("baseline", 3)).head;
  ledger.lines = split_lines(read_file(path));
  return ledger;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  return text;
}

std::string id_in(const std::string& line) {
  const auto peek = peek_canonical(line);
  return peek ? std::string(peek->id) : "";
}

// Runs verify on `lines` and checks it names `position` (and the id there) and exits 1.
void expect_caught(const std::filesystem::path& path, const std::vector<std::string>& lines,
                   std::size_t position) {
  write_file(path, joined(lines));
  const ProcessResult result = run_ledger({"verify", "--ledger", path.string()});
  INFO(result.err);
  CHECK(result.exit_code == 1);
  CHECK(result.out.empty());
  const std::string named = "line " + std::to_string(position);
  const std::string id = id_in(split_lines(joined(lines))[position - 1]);
  if (id.empty()) {
    CHECK_THAT(result.err, Catch::Contains(": " + named + ":"));
  } else {
    CHECK_THAT(result.err, Catch::Contains(": " + named + " (id " + id + "):"));
  }
}

}  // namespace

TEST_CASE("an intact ledger verifies with exit 0 and prints its head") {
  ScratchDir dir;
  const auto path = dir / "ledger.ndjson";
  const Ledger ledger = make_ledger(path);
  const ProcessResult result =
      run_ledger({"verify", "--ledger", path.string(), "--head", ledger.head});
  CHECK(result.exit_code == 0);
  CHECK(result.out == "ok: " + path.string() + ": 12 records, head " + ledger.head + "\n");
}

TEST_CASE("a flipped bit is caught at the record it changed, or at the next one") {
  ScratchDir dir;
  const auto path = dir / "ledger.ndjson";
  const Ledger ledger = make_ledger(path);
  const std::size_t target = 6;  // a result in the middle
  const std::string& original = ledger.lines[target - 1];
  std::mt19937 random(6);
  for (int flip = 0; flip < 40; ++flip) {
    std::string changed = original;
    const std::size_t byte = random() % changed.size();
    changed[byte] = static_cast<char>(changed[byte] ^ (1 << (random() % 8)));
    INFO("byte " << byte << ": " << original[byte] << " -> " << changed[byte]);
    auto lines = ledger.lines;
    lines[target - 1] = changed;
    // A record that still parses, with its prev intact, is only seen changed by its successor,
    // whose prev no longer matches its hash; anything else is caught at the record itself.
    bool parses = changed.find('\n') == std::string::npos;
    try {
      parses =
          parses && header_of(parse_record(changed)).prev == header_of(parse_record(original)).prev;
    } catch (const Error&) {
      parses = false;
    }
    expect_caught(path, lines, parses ? target + 1 : target);
  }
}

TEST_CASE("a deleted line, two swapped lines and an edited number are caught where they are") {
  ScratchDir dir;
  const auto path = dir / "ledger.ndjson";
  const Ledger ledger = make_ledger(path);

  auto deleted = ledger.lines;
  deleted.erase(deleted.begin() + 4);  // line 5 goes: the old line 6 is now line 5
  expect_caught(path, deleted, 5);

  auto first_deleted = ledger.lines;
  first_deleted.erase(first_deleted.begin());
  expect_caught(path, first_deleted, 1);

  auto swapped = ledger.lines;
  std::swap(swapped[6], swapped[7]);  // lines 7 and 8
  expect_caught(path, swapped, 7);

  auto edited = ledger.lines;
  const std::size_t at = edited[5].find("\"ops\":4000");
  REQUIRE(at != std::string::npos);
  edited[5].replace(at, 10, "\"ops\":4001");  // line 6 still parses: line 7 sees the change
  expect_caught(path, edited, 7);
  write_file(path, joined(edited));
  const ProcessResult result = run_ledger({"verify", "--ledger", path.string()});
  CHECK_THAT(result.err, Catch::Contains("line 6 (id " + id_in(edited[5]) + ") hashes to") &&
                             Catch::Contains("line 6 was changed"));
}

TEST_CASE("--head with a saved hash catches a truncated or rewritten history") {
  ScratchDir dir;
  const auto path = dir / "ledger.ndjson";
  const Ledger ledger = make_ledger(path);
  auto truncated = ledger.lines;
  truncated.resize(8);  // the last batch is gone: what is left is a valid chain
  write_file(path, joined(truncated));
  CHECK(run_ledger({"verify", "--ledger", path.string()}).exit_code == 0);
  const ProcessResult result =
      run_ledger({"verify", "--ledger", path.string(), "--head", ledger.head});
  CHECK(result.exit_code == 1);
  CHECK_THAT(result.err, Catch::Contains("saved head " + ledger.head) &&
                             Catch::Contains("truncated or rewritten"));

  auto rewritten = ledger.lines;
  const std::size_t at = rewritten.back().find("\"errors\":2");
  REQUIRE(at != std::string::npos);
  rewritten.back().replace(at, 10, "\"errors\":0");  // the last record: nothing chains after it
  write_file(path, joined(rewritten));
  CHECK(run_ledger({"verify", "--ledger", path.string()}).exit_code == 0);
  CHECK(run_ledger({"verify", "--ledger", path.string(), "--head", ledger.head}).exit_code == 1);

  CHECK(run_ledger({"verify", "--ledger", path.string(), "--head", "abc"}).exit_code == 2);
}

TEST_CASE("SQLite rows changed behind the triggers' back are caught by verify") {
  ScratchDir dir;
  const std::string db = (dir / "ledger.db").string();
  const auto store = open_store("sqlite:" + db);
  for (int i = 0; i < 3; ++i) store->append(fresh_batch("baseline", 3));
  const auto sqlite = [&](const std::string& sql) {
    const ProcessResult result = run_process({"/usr/bin/sqlite3", db, sql});
    INFO(sql << ": " << result.err);
    REQUIRE(result.exit_code == 0);
  };
  const auto verify = [&] { return run_ledger({"verify", "--ledger", "sqlite:" + db}); };
  REQUIRE(verify().exit_code == 0);
  sqlite("DROP TRIGGER records_refuse_update; DROP TRIGGER records_refuse_delete;");
  // The triggers' absence is two breaks by itself; the rows' changes are named besides.

  sqlite("UPDATE records SET label = 'current' WHERE seq = 5");
  ProcessResult result = verify();
  CHECK(result.exit_code == 1);
  CHECK_THAT(result.err, Catch::Contains("record 5 (id ") &&
                             Catch::Contains("indexed columns disagree with its bytes"));
  sqlite("UPDATE records SET label = 'baseline' WHERE seq = 5");

  sqlite("UPDATE records SET bytes = replace(bytes, '\"ops\":4000', '\"ops\":4001') WHERE seq = 6");
  result = verify();
  CHECK(result.exit_code == 1);
  CHECK_THAT(result.err,
             Catch::Contains("record 7 (id ") && Catch::Contains("record 6 was changed"));
  sqlite("UPDATE records SET bytes = replace(bytes, '\"ops\":4001', '\"ops\":4000') WHERE seq = 6");
  result = verify();
  CHECK_THAT(result.err, !Catch::Contains("(id ") && Catch::Contains("broken: 2 breaks"));

  sqlite("DELETE FROM records WHERE seq = 3");
  result = verify();
  CHECK(result.exit_code == 1);
  CHECK_THAT(result.err, Catch::Contains("record 4 (id "));
}

namespace {

// `lines` with every `prev` recomputed from 64 zeros: what an attacker who rewrites the whole
// file does to hide an edit from verify without a saved head.
std::vector<std::string> rechained(std::vector<std::string> lines) {
  std::string prev(k_zero_hash);
  for (auto& line : lines) {
    const std::size_t at = line.find("\"prev\":\"");
    if (at != std::string::npos) line.replace(at + 8, 64, prev);
    prev = sha256_hex(line);
  }
  return lines;
}

}  // namespace

TEST_CASE("verify goes on past a bad line: every break is named, and a saved head is checked") {
  ScratchDir dir;
  const auto path = dir / "ledger.ndjson";
  const Ledger ledger = make_ledger(path);

  // A line that is no record in the middle, and records chained on after it, as appends did
  // before they checked the tail: the head saved after the last of them must still be checked.
  auto lines = ledger.lines;
  lines.insert(lines.begin() + 6, "this is not a record");  // line 7
  const std::string after_junk = sha256_hex(lines[6]);
  lines[7].replace(lines[7].find("\"prev\":\"") + 8, 64, after_junk);
  lines = rechained(lines);  // only the junk line itself is wrong now
  const std::string head = sha256_hex(lines.back());
  write_file(path, joined(lines));
  ProcessResult result = run_ledger({"verify", "--ledger", path.string(), "--head", head});
  INFO(result.err);
  CHECK(result.exit_code == 1);
  CHECK_THAT(result.err, Catch::Contains(": line 7: ") && Catch::Contains("not a valid record"));
  CHECK_THAT(result.err, Catch::Contains("broken: 1 break in 13 records"));
  const std::string whole_history = result.err;

  // Acknowledged records behind the bad line deleted: the saved head catches it.
  lines.resize(11);
  write_file(path, joined(lines));
  result = run_ledger({"verify", "--ledger", path.string(), "--head", head});
  INFO(result.err);
  CHECK(result.exit_code == 1);
  CHECK(result.err != whole_history);
  CHECK_THAT(result.err, Catch::Contains("saved head " + head) &&
                             Catch::Contains("truncated or rewritten") &&
                             Catch::Contains(": line 7: "));

  // Two breaks far apart are both named, each with its position and id.
  auto two = ledger.lines;
  two[2].replace(two[2].find("\"time\":\"") + 8, 1, "x");  // line 3: no longer a valid record
  two[9] = "{\"broken\":";                                 // line 10
  write_file(path, joined(two));
  result = run_ledger({"verify", "--ledger", path.string()});
  INFO(result.err);
  CHECK(result.exit_code == 1);
  CHECK_THAT(result.err, Catch::Contains(": line 3 (id " + id_in(two[2]) + "): "));
  CHECK_THAT(result.err, Catch::Contains(": line 10: "));
  CHECK_THAT(result.err, Catch::Contains(": line 4 (id " + id_in(two[3]) + "): prev is"));
  CHECK_THAT(result.err, Catch::Contains(": line 11 (id " + id_in(two[10]) + "): prev is"));
  CHECK_THAT(result.err, Catch::Contains("broken: 4 breaks in 12 records"));
}

TEST_CASE("verify names an id used twice, even when the chain was recomputed over the copy") {
  ScratchDir dir;
  const auto path = dir / "ledger.ndjson";
  const Ledger ledger = make_ledger(path);
  auto lines = ledger.lines;
  lines.insert(lines.begin() + 9, lines[4]);  // line 5 again, as line 10
  write_file(path, joined(rechained(lines)));
  const ProcessResult result = run_ledger({"verify", "--ledger", path.string()});
  INFO(result.err);
  CHECK(result.exit_code == 1);
  const std::string id = id_in(lines[4]);
  CHECK_THAT(result.err,
             Catch::Contains(": line 10 (id " + id + "): id " + id + " is already used by line 5"));
}

TEST_CASE("nothing is appended onto a ledger whose last record does not verify") {
  ScratchDir dir;
  for (const auto& uri : store_uris(dir)) {
    INFO(uri);
    const auto store = open_store(uri);
    store->append(fresh_batch("baseline", 2));
    // A bad last record, put there as each store allows: a line added to the file, a row the
    // sqlite3 shell may insert (its triggers check where a row goes, not what it holds), a row
    // the table's owner inserts with the chain check switched off.
    const std::string junk = "this is not a record";
    if (uri.ends_with(".ndjson")) {
      write_file(uri, read_file(uri) + junk + "\n");
    } else if (uri.starts_with("sqlite:")) {
      const ProcessResult shell = run_process(
          {"/usr/bin/sqlite3", uri.substr(7),
           "INSERT INTO records (seq, id, type, time, bytes) SELECT max(seq) + 1, 'junk', "
           "'note', 't', '" +
               junk + "' FROM records"});
      REQUIRE(shell.exit_code == 0);
    } else {
      const ProcessResult psql = run_process(
          {"/usr/bin/psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", uri, "-c",
           "BEGIN; ALTER TABLE benchledger_records DISABLE TRIGGER benchledger_append_on; "
           "INSERT INTO benchledger_records (seq, id, type, time, bytes) SELECT max(seq) + 1, "
           "'junk', 'note', 't', '" +
               junk +
               "' FROM benchledger_records; ALTER TABLE benchledger_records ENABLE TRIGGER "
               "benchledger_append_on; COMMIT"});
      REQUIRE(psql.exit_code == 0);
    }
    std::string before;
    store->scan_bytes([&](std::int64_t, std::string_view bytes) {
      before += std::string(bytes) + "\n";
      return true;
    });

    const auto file = dir / "import.ndjson";
    std::filesystem::remove(file);
    open_store(file.string())->append(fresh_batch("current", 2));
    const ProcessResult imported = run_ledger({"import", file.string(), "--ledger", uri});
    INFO(imported.err);
    CHECK(imported.exit_code == 1);
    CHECK_THAT(imported.err,
               Catch::Contains("is not a valid record") && Catch::Contains("nothing was written"));
    CHECK_THROWS_AS(store->append(fresh_batch("current", 1)), IntegrityError);
    std::string after;
    store->scan_bytes([&](std::int64_t, std::string_view bytes) {
      after += std::string(bytes) + "\n";
      return true;
    });
    CHECK(after == before);
  }
}

namespace {

ProcessResult sqlite_shell(const std::string& db, const std::string& sql) {
  return run_process({"/usr/bin/sqlite3", db, sql});
}

std::int64_t sqlite_number(const std::string& db, const std::string& sql) {
  const ProcessResult result = sqlite_shell(db, sql);
  INFO(sql << ": " << result.err);
  REQUIRE(result.exit_code == 0);
  return std::stoll(result.out);
}

// A SQLite ledger of a run labelled `first`, then one labelled `second`, each with 40 results
// (so that each index spans pages of its own); its file is whole (no -wal) when this returns.
void make_sqlite_ledger(const std::string& db, const std::string& first,
                        const std::string& second) {
  const auto store = open_store("sqlite:" + db);
  store->append(fresh_batch(first, 40));
  store->append(fresh_batch(second, 40));
}

// Copies page `from_page` of `from` over page `to_page` of `to`, as dd does.
void copy_page(const std::string& from, std::int64_t from_page, const std::string& to,
               std::int64_t to_page, std::int64_t page_size) {
  const ProcessResult dd =
      run_process({"/usr/bin/dd", "if=" + from, "of=" + to, "bs=" + std::to_string(page_size),
                   "skip=" + std::to_string(from_page - 1), "seek=" + std::to_string(to_page - 1),
                   "count=1", "conv=notrunc", "status=none"});
  INFO(dd.err);
  REQUIRE(dd.exit_code == 0);
}

}  // namespace

TEST_CASE("SQLite file edits are caught: an index page from another copy, or corrupted") {
  ScratchDir dir;
  const std::string a = (dir / "a.db").string();
  const std::string b = (dir / "b.db").string();
  make_sqlite_ledger(a, "baseline", "current");
  make_sqlite_ledger(b, "current", "baseline");
  const auto verify = [&](const std::string& db) {
    return run_ledger({"verify", "--ledger", "sqlite:" + db});
  };
  REQUIRE(verify(a).exit_code == 0);
  const std::string root = "SELECT rootpage FROM sqlite_master WHERE name = 'records_by_label'";
  const std::int64_t page_size = sqlite_number(a, "PRAGMA page_size");

  // The label index of the other copy: `show baseline` now finds the run labelled current.
  copy_page(b, sqlite_number(b, root), a, sqlite_number(a, root), page_size);
  const ProcessResult show = run_ledger({"show", "baseline", "--ledger", "sqlite:" + a});
  REQUIRE(show.exit_code == 0);
  CHECK_THAT(show.out, Catch::Contains("current"));
  ProcessResult result = verify(a);
  INFO(result.err);
  CHECK(result.exit_code == 1);
  CHECK_THAT(result.err,
             Catch::Contains("SQLite's integrity check: ") && Catch::Contains("records_by_label"));

  // A corrupted index page: bytes in the middle of the time index flipped.
  const std::string c = (dir / "c.db").string();
  make_sqlite_ledger(c, "baseline", "current");
  const std::int64_t time_root =
      sqlite_number(c, "SELECT rootpage FROM sqlite_master WHERE name = 'records_by_time'");
  std::string bytes = read_file(c);
  const auto at = static_cast<std::size_t>((time_root - 1) * page_size + page_size / 2);
  for (std::size_t i = 0; i < 16; ++i) bytes[at + i] = static_cast<char>(bytes[at + i] ^ 0x5a);
  write_file(c, bytes);
  result = verify(c);
  INFO(result.err);
  CHECK(result.exit_code == 1);
  CHECK_THAT(result.err, Catch::Contains("SQLite's integrity check: ") ||
                             Catch::Contains("SQLite cannot read on: "));
}

TEST_CASE("SQLite: a dropped or emptied table and dropped or neutered triggers are caught") {
  ScratchDir dir;
  const auto verify = [&](const std::string& db) {
    return run_ledger({"verify", "--ledger", "sqlite:" + db});
  };
  const auto fresh = [&](const std::string& name) {
    const std::string db = (dir / name).string();
    make_sqlite_ledger(db, "baseline", "current");
    REQUIRE(verify(db).exit_code == 0);
    return db;
  };

  const std::string emptied = fresh("emptied.db");
  REQUIRE(
      sqlite_shell(emptied, "DROP TRIGGER records_refuse_delete; DELETE FROM records").exit_code ==
      0);
  ProcessResult result = verify(emptied);
  INFO(result.err);
  CHECK(result.exit_code == 1);
  CHECK(result.out.empty());
  CHECK_THAT(result.err, Catch::Contains("its table of records is empty") &&
                             Catch::Contains("trigger records_refuse_delete is missing"));

  const std::string dropped = fresh("dropped.db");
  REQUIRE(sqlite_shell(dropped, "DROP TABLE records").exit_code == 0);
  result = verify(dropped);
  INFO(result.err);
  CHECK(result.exit_code == 1);
  CHECK_THAT(result.err, Catch::Contains("its table of records is missing"));

  // A trigger rewritten in place through writable_schema: it no longer refuses anything, and
  // the last record deleted leaves a chain that still holds.
  const std::string neutered = fresh("neutered.db");
  REQUIRE(sqlite_shell(neutered,
                       "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = 'CREATE "
                       "TRIGGER records_refuse_delete BEFORE DELETE ON records WHEN 0 BEGIN "
                       "SELECT 1; END' WHERE name = 'records_refuse_delete'")
              .exit_code == 0);
  REQUIRE(sqlite_shell(neutered, "DELETE FROM records WHERE seq = (SELECT max(seq) FROM records)")
              .exit_code == 0);
  result = verify(neutered);
  INFO(result.err);
  CHECK(result.exit_code == 1);
  CHECK_THAT(result.err, Catch::Contains("trigger records_refuse_delete is not the one "
                                         "benchledger creates"));

  // An extra trigger is no part of the ledger either.
  const std::string extra = fresh("extra.db");
  REQUIRE(sqlite_shell(extra, "CREATE TRIGGER mine AFTER INSERT ON records BEGIN SELECT 1; END")
              .exit_code == 0);
  result = verify(extra);
  CHECK(result.exit_code == 1);
  CHECK_THAT(result.err, Catch::Contains("holds a trigger mine that benchledger does not create"));
}

TEST_CASE("a reader without write access verifies a SQLite ledger, or is told why not") {
  ScratchDir dir;
  const auto shared = dir / "shared";
  std::filesystem::create_directory(shared);
  const std::string db = (shared / "ledger.db").string();
  make_sqlite_ledger(db, "baseline", "current");
  // `nobody` may read the file and pass through the directories, and write nothing.
  std::filesystem::permissions(dir.path(), std::filesystem::perms(0755));
  std::filesystem::permissions(shared, std::filesystem::perms(0555));
  std::filesystem::permissions(db, std::filesystem::perms(0444));
  const auto as_nobody = [&] {
    return run_process({"/usr/sbin/runuser", "-u", "nobody", "--", cli_path(), "ledger", "verify",
                        "--ledger", "sqlite:" + db});
  };
  ProcessResult result = as_nobody();
  INFO(result.err);
  CHECK(result.exit_code == 0);
  CHECK_THAT(result.out, Catch::StartsWith("ok: sqlite:" + db + ": 82 records"));

  // A write-ahead log with records in it, held open by a writer: readable only by creating the
  // -shm index, which nobody may not; the message says so and what to do.
  std::filesystem::permissions(shared, std::filesystem::perms(0755));
  std::filesystem::permissions(db, std::filesystem::perms(0644));
  const auto writer = open_store("sqlite:" + db);
  writer->append(fresh_batch("later", 1));
  std::filesystem::permissions(shared, std::filesystem::perms(0555));
  result = as_nobody();
  INFO(result.err);
  CHECK_THAT(result.err, !Catch::Contains("attempt to write a readonly database"));
  if (result.exit_code != 0) {
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains("without write access to its directory"));
  } else {
    CHECK_THAT(result.out, Catch::Contains(": 84 records"));
  }
  std::filesystem::permissions(shared, std::filesystem::perms(0755));
}
