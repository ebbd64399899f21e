// The PostgreSQL store against the throwaway server tools/test starts: psql cannot change
// history, tampering with the triggers switched off is caught, the append-only role can append
// and nothing else, a table or database the ledger cannot trust is refused, a lost connection
// costs one append and no record, and no message shows a password. (The Store contract, the
// ledger commands and the concurrent appenders run on this store in their own tests.)
#include <signal.h>
#include <unistd.h>

#include <chrono>

#include <catch2/catch.hpp>

#include "integration/ledger_census.hpp"
#include "integration/ledger_process.hpp"
#include "ledger/columns.hpp"
#include "ledger/postgres/postgres_store.hpp"
#include "model/redact.hpp"
#include "unit/ledger/ledger_support.hpp"

using namespace benchledger;
using namespace benchledger::ledger;
using namespace benchledger::testing;

namespace {

ProcessResult psql(const std::string& uri, const std::string& sql) {
  return run_process({"/usr/bin/psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", uri, "-c", sql});
}

// The same server and database as `uri`, as another user.
std::string as_user(const std::string& uri, const std::string& user) {
  const std::size_t host = uri.find('@') + 1;
  return "postgresql://" + user + "@" + uri.substr(host);
}

// Waits (up to 20 s) until some session of this database holds (`granted`) or waits for (not
// `granted`) the advisory lock `key`. Each look is its own session: pg_locks is read once a
// transaction.
bool wait_for_advisory_lock(const std::string& uri, const std::string& key, bool granted) {
  const std::string sql =
      "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_locks l JOIN pg_database d ON d.oid = "
      "l.database WHERE d.datname = current_database() AND l.locktype = 'advisory' AND l.objid "
      "= " +
      key + " AND l.granted = " + (granted ? "true" : "false") +
      ") THEN RAISE EXCEPTION 'not yet'; END IF; END $$";
  for (int tries = 0; tries < 400; ++tries) {
    if (psql(uri, sql).exit_code == 0) return true;
    usleep(50'000);
  }
  return false;
}

// A role on the test server (roles belong to the whole server), dropped when the test ends:
// declared before the ScratchDir whose database holds its privileges, so dropped after it.
class ScratchRole {
 public:
  explicit ScratchRole(const ScratchDir& dir, const std::string& prefix = "ci_")
      : m_name(prefix + dir.suffix()) {}
  ~ScratchRole() { run_pg_admin_sql("DROP ROLE IF EXISTS \"" + m_name + "\""); }
  const std::string& name() const { return m_name; }

 private:
  std::string m_name;
};

// A role, and a database of its own holding a ledger of a run and three results. Members go in
// reverse order: the database first, as it holds the role's privileges.
struct RoleAndLedger {
  RoleAndLedger() {
    REQUIRE_FALSE(uri.empty());
    open_store(uri)->append(fresh_batch("baseline", 3));
  }
  ScratchDir dir;
  ScratchRole role{dir};
  std::unique_ptr<ScratchDir> db_dir = std::make_unique<ScratchDir>();
  std::string uri = db_dir->pg_uri();
};

}  // namespace

TEST_CASE("the PostgreSQL tests have a server to run against") {
  INFO("BENCHLEDGER_TEST_PG is not set: run the tests through tools/test, which starts one");
  REQUIRE_FALSE(test_pg_server().empty());
}

TEST_CASE("no message shows the password of a postgresql:// URI") {
  CHECK(model::redact_secrets("postgresql://ci:secret@db/bench") == "postgresql://ci:***@db/bench");
  CHECK(model::redact_secrets("postgres://ci:p%40ss@db:5432/bench?sslmode=require") ==
        "postgres://ci:***@db:5432/bench?sslmode=require");
  CHECK(model::redact_secrets("postgresql://db/bench?user=ci&password=secret&sslmode=off") ==
        "postgresql://db/bench?user=ci&password=***&sslmode=off");
  CHECK(model::redact_secrets("postgresql://ci@db/bench") == "postgresql://ci@db/bench");
  CHECK(model::redact_secrets("postgresql://db:5432/bench") == "postgresql://db:5432/bench");
  // libpq reads the user part up to an '@' met before any '/': a password may hold '?' or ':'.
  CHECK(model::redact_secrets("postgresql://ci:se?c:ret@db/bench?sslmode=off") ==
        "postgresql://ci:***@db/bench?sslmode=off");
  CHECK(model::redact_secrets("postgresql://db/bench?sslpassword=key&pass%77ord=x") ==
        "postgresql://db/bench?sslpassword=***&pass%77ord=***");
  CHECK(model::redact_secrets("postgresql://db/bench?application_name=a@b") ==
        "postgresql://db/bench?application_name=a@b");
  CHECK(model::redact_secrets("postgresql://ci:ab/cd+e=@db/bench") ==
        "postgresql://ci:***@db/bench");

  // Port 1 on loopback: nothing listens there.
  const std::string uri = "postgresql://ci:secret@127.0.0.1:1/bench";
  CHECK(open_store(uri)->uri() == "postgresql://ci:***@127.0.0.1:1/bench");
  CHECK_THROWS_WITH(open_store(uri)->log(0),
                    Catch::Contains("cannot connect to postgresql://ci:***@127.0.0.1:1/bench") &&
                        !Catch::Contains("secret"));
  const ProcessResult cli = run_ledger({"log", "--ledger", uri});
  CHECK(cli.exit_code == 2);
  CHECK_THAT(cli.err, Catch::Contains("cannot connect") && !Catch::Contains("secret"));
  // libpq quotes a password it cannot parse; that message is not shown.
  CHECK_THROWS_WITH(open_store("postgresql://ci:s3cr%zzet@127.0.0.1:1/bench")->log(0),
                    Catch::Contains("cannot connect") && !Catch::Contains("s3cr"));
  // bench-run's own summary line names the ledger as the store does.
  ScratchDir dir;
  const std::string pg = dir.pg_uri();
  REQUIRE_FALSE(pg.empty());
  const std::string with_password = "postgresql://postgres:hunter2@" + pg.substr(pg.find('@') + 1);
  const ProcessResult run = run_process({cli_path(), "run", "--ledger", with_password, "--runs",
                                         "2", "--warmup", "0", "--", "/bin/true"});
  INFO(run.err);
  CHECK(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::Contains("postgres:***@") && !Catch::Contains("hunter2"));

  // The password is in the command line, which the run records: not in the ledger, nor in
  // anything that shows it. Again as --ledger=URI, with a password= parameter too.
  const std::string with_parameter = with_password + "?password=hunter2";
  const ProcessResult second =
      run_process({cli_path(), "run", "--ledger=" + with_parameter, "--runs", "2", "--warmup", "0",
                   "--format", "json", "--", "/bin/true"});
  CHECK(second.exit_code == 0);
  std::vector<ProcessResult> outputs = {run, second};
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"ledger", "export"},
                                             {"ledger", "show", "latest"},
                                             {"ledger", "show", "latest~1"},
                                             {"ledger", "log"},
                                             {"compare", "latest~1", "latest", "--format", "md"},
                                             {"compare", "latest~1", "latest", "--format", "json"},
                                             {"report", "latest", "--format", "html"}}) {
    std::vector<std::string> argv = {cli_path()};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--ledger", with_parameter});
    outputs.push_back(run_process(argv));
  }
  for (const ProcessResult& output : outputs) {
    INFO(output.out << output.err);
    CHECK((output.exit_code == 0 || output.exit_code == 1));  // compare's gate may fail: noise
    CHECK(output.out.find("hunter2") == std::string::npos);
    CHECK(output.err.find("hunter2") == std::string::npos);
  }
  CHECK_THAT(outputs[2].out, Catch::Contains("\"--ledger=postgresql://postgres:***@") &&
                                 Catch::Contains("?password=***\""));
}

TEST_CASE("psql cannot update, delete, truncate or slip records into a PostgreSQL ledger") {
  ScratchDir dir;
  const std::string uri = dir.pg_uri();
  REQUIRE_FALSE(uri.empty());
  open_store(uri)->append(fresh_batch("baseline", 3));
  const auto exported = [&] { return run_ledger({"export", "--ledger", uri}).out; };
  const std::string before = exported();
  REQUIRE_FALSE(before.empty());

  const std::vector<std::pair<std::string, std::string>> attempts = {
      {"UPDATE benchledger_records SET label = 'current' WHERE type = 'run'", "UPDATE is refused"},
      {"UPDATE benchledger_records SET bytes = replace(bytes, '4000', '4001')",
       "UPDATE is refused"},
      {"DELETE FROM benchledger_records WHERE seq = 2", "DELETE is refused"},
      {"DELETE FROM benchledger_records", "DELETE is refused"},
      {"TRUNCATE benchledger_records", "TRUNCATE is refused"},
      {"INSERT INTO benchledger_records (seq, id, type, time, bytes) VALUES (2, "
       "'01JDQ8Z6X0000000000000000Z', 'note', '2026-11-22T04:27:59.123456Z', '{}')",
       "this seq is taken"},
      {"INSERT INTO benchledger_records (seq, id, type, time, bytes) VALUES (2, "
       "'01JDQ8Z6X0000000000000000Z', 'note', '2026-11-22T04:27:59.123456Z', '{}') "
       "ON CONFLICT (seq) DO UPDATE SET bytes = EXCLUDED.bytes",
       "UPDATE is refused"},
      {"INSERT INTO benchledger_records (seq, id, type, time, bytes) SELECT 100, id, type, time, "
       "'{}' FROM benchledger_records WHERE seq = 2",
       "this id is taken"},
  };
  for (const auto& [sql, reason] : attempts) {
    INFO(sql);
    const ProcessResult result = psql(uri, sql);
    CHECK(result.exit_code != 0);
    CHECK_THAT(result.err, Catch::Contains("append-only") && Catch::Contains(reason));
  }
  // Without a position, a row has nowhere to go.
  const ProcessResult no_seq =
      psql(uri,
           "INSERT INTO benchledger_records (id, type, time, bytes) VALUES "
           "('01JDQ8Z6X0000000000000000Z', 'note', '2026-11-22T04:27:59.123456Z', '{}')");
  CHECK(no_seq.exit_code != 0);
  CHECK_THAT(no_seq.err, Catch::Contains("\"seq\"") && Catch::Contains("not-null"));
  CHECK(exported() == before);
  CHECK(run_ledger({"verify", "--ledger", uri}).exit_code == 0);
}

TEST_CASE("a PostgreSQL ledger changed with its triggers switched off fails verify") {
  ScratchDir dir;
  const std::string uri = dir.pg_uri();
  REQUIRE_FALSE(uri.empty());
  open_store(uri)->append(fresh_batch("baseline", 3));
  open_store(uri)->append(fresh_batch("current", 3));
  REQUIRE(run_ledger({"verify", "--ledger", uri}).exit_code == 0);

  SECTION("an edited number in a record's bytes") {
    REQUIRE(psql(uri,
                 "ALTER TABLE benchledger_records DISABLE TRIGGER USER; "
                 "UPDATE benchledger_records SET bytes = replace(bytes, '\"ops\":4000', "
                 "'\"ops\":4001') WHERE seq = 3")
                .exit_code == 0);
    const ProcessResult verify = run_ledger({"verify", "--ledger", uri});
    CHECK(verify.exit_code == 1);
    CHECK_THAT(verify.err, Catch::Contains("record 4") && Catch::Contains("record 3"));
  }
  SECTION("an indexed column that no longer says what the bytes say") {
    REQUIRE(psql(uri,
                 "ALTER TABLE benchledger_records DISABLE TRIGGER USER; "
                 "UPDATE benchledger_records SET label = 'current' WHERE seq = 1")
                .exit_code == 0);
    const ProcessResult verify = run_ledger({"verify", "--ledger", uri});
    CHECK(verify.exit_code == 1);
    CHECK_THAT(verify.err,
               Catch::Contains("record 1") && Catch::Contains("indexed columns disagree"));
  }
  SECTION("the last batch deleted: its points, or else only a saved head, see it") {
    const ProcessResult saved = run_ledger({"verify", "--ledger", uri});
    const std::string head = saved.out.substr(saved.out.rfind("head ") + 5, 64);
    REQUIRE(psql(uri,
                 "ALTER TABLE benchledger_records DISABLE TRIGGER USER; "
                 "DELETE FROM benchledger_records WHERE seq > 4")
                .exit_code == 0);
    const ProcessResult left = run_ledger({"verify", "--ledger", uri});
    CHECK(left.exit_code == 1);
    CHECK_THAT(left.err, Catch::Contains("the table of points holds a point"));
    REQUIRE(psql(uri,
                 "ALTER TABLE benchledger_points DISABLE TRIGGER USER; "
                 "DELETE FROM benchledger_points WHERE seq > 4")
                .exit_code == 0);
    CHECK(run_ledger({"verify", "--ledger", uri}).exit_code == 0);
    CHECK(run_ledger({"verify", "--ledger", uri, "--head", head}).exit_code == 1);
  }
}

TEST_CASE("ledger grant: a CI role reads and appends, and can do nothing else") {
  const RoleAndLedger scratch;
  const ScratchDir& dir = scratch.dir;
  const ScratchRole& role = scratch.role;
  const std::string& uri = scratch.uri;

  const ProcessResult grant = run_ledger({"grant", role.name(), "--ledger", uri});
  INFO(grant.err);
  REQUIRE(grant.exit_code == 0);
  CHECK_THAT(grant.out, Catch::Contains(role.name() + " may now read and append"));
  // Granting again changes nothing and still succeeds.
  REQUIRE(run_ledger({"grant", role.name(), "--ledger", uri}).exit_code == 0);

  const std::string ci = as_user(uri, role.name());
  const ProcessResult note = run_ledger({"note", "baseline", "--kind", "comment", "--text",
                                         "from CI", "--author", "ci", "--ledger", ci});
  INFO(note.err);
  CHECK(note.exit_code == 0);
  CHECK(open_store(ci)->notes().size() == 1);

  for (const std::string sql :
       {"UPDATE benchledger_records SET label = 'x'", "DELETE FROM benchledger_records",
        "TRUNCATE benchledger_records", "ALTER TABLE benchledger_records DISABLE TRIGGER USER",
        "DROP TABLE benchledger_records", "CREATE TABLE other (x int)",
        // The points are the database's to derive: the role writes none, directly or through
        // the function the trigger calls.
        "INSERT INTO benchledger_points SELECT * FROM benchledger_points",
        "UPDATE benchledger_points SET centre = 1", "DELETE FROM benchledger_points",
        "TRUNCATE benchledger_points", "ALTER TABLE benchledger_points DISABLE TRIGGER USER",
        "SELECT benchledger_fill_points(1, 1000)"}) {
    INFO(sql);
    const ProcessResult result = psql(ci, sql);
    CHECK(result.exit_code != 0);
    CHECK_THAT(result.err,
               Catch::Contains("permission denied") || Catch::Contains("must be owner"));
  }
  CHECK(run_ledger({"verify", "--ledger", ci}).exit_code == 0);
  // Its appends get their points all the same, derived in its INSERT.
  open_store(ci)->append(fresh_batch("from-ci", 2));
  const ProcessResult points = run_process(
      {"/usr/bin/psql", "-X", "-q", "-A", "-t", "-d", ci, "-c",
       "SELECT count(*) FROM benchledger_points WHERE label = 'from-ci' AND is_primary"});
  CHECK(points.out == "2\n");
  CHECK(run_ledger({"verify", "--ledger", ci}).exit_code == 0);

  // What INSERT alone can do is append records that chain on: the database checks the chain.
  const std::string bad_row =
      "INSERT INTO benchledger_records (seq, id, type, time, bytes) SELECT max(seq) + 1, "
      "'01JDQ8Z6X0000000000000000Z', 'note', '2026-11-22T04:27:59.123456Z', ";
  const std::vector<std::pair<std::string, std::string>> inserts = {
      {bad_row + "'{\"garbage\":1}' FROM benchledger_records", "is not shaped as a record"},
      {"INSERT INTO benchledger_records (seq, id, type, time, bytes) SELECT seq + 1, "
       "'01JDQ8Z6X0000000000000000Z', 'note', 't', replace(bytes, '\"prev\":\"', "
       "'\"prev\":\"0') FROM benchledger_records WHERE seq = (SELECT max(seq) FROM "
       "benchledger_records)",
       "does not chain on"},
      // Two rows in one statement: the first chains on (but is not a record), the second
      // does not.
      {"INSERT INTO benchledger_records (seq, id, type, time, bytes) SELECT seq + k, id || k, "
       "'note', 't', '{\"schema\":\"benchledger/1\",\"type\":\"note\",\"id\":\"x\","
       "\"time\":\"t\",\"prev\":\"' || CASE k WHEN 1 THEN encode(sha256(convert_to(bytes, "
       "'UTF8')), 'hex') ELSE repeat('0', 64) END || '\"}' FROM benchledger_records, "
       "generate_series(1, 2) AS k WHERE seq = (SELECT max(seq) FROM benchledger_records)",
       "is refused: its type, id or time column disagrees with its bytes"},
      {"INSERT INTO benchledger_records (seq, id, type, time, bytes) SELECT max(seq) + 5, "
       "'01JDQ8Z6X0000000000000000Z', 'note', 't', '{}' FROM benchledger_records",
       "not numbered on from the last one"},
      {"INSERT INTO benchledger_records (seq, id, type, time, bytes) VALUES (-1, "
       "'01JDQ8Z6X0000000000000000Z', 'note', 't', '{}')",
       "positions start at 1"},
  };
  for (const auto& [sql, reason] : inserts) {
    INFO(sql);
    const ProcessResult result = psql(ci, sql);
    CHECK(result.exit_code != 0);
    CHECK_THAT(result.err, Catch::Contains(reason));
  }
  CHECK(run_ledger({"verify", "--ledger", ci}).exit_code == 0);

  const ProcessResult file = run_ledger({"grant", "ci", "--ledger", (dir / "l.ndjson").string()});
  CHECK(file.exit_code == 2);
  CHECK_THAT(file.err, Catch::Contains("for postgresql:// ledgers"));
}

namespace {

// An INSERT of one row with these columns, values quoted with dollar quotes.
std::string insert_row(std::int64_t seq, const Columns& columns, const std::string& bytes) {
  const auto quoted = [](const std::optional<std::string>& value) {
    return value ? "$q$" + *value + "$q$" : std::string("NULL");
  };
  return "INSERT INTO benchledger_records (seq, id, type, time, run, label, bench, params, "
         "git_commit, target, bytes) VALUES (" +
         std::to_string(seq) + ", " + quoted(columns.id) + ", " + quoted(columns.type) + ", " +
         quoted(columns.time) + ", " + quoted(columns.run) + ", " + quoted(columns.label) + ", " +
         quoted(columns.bench) + ", " + quoted(columns.params) + ", " + quoted(columns.git_commit) +
         ", " + quoted(columns.target) + ", " + quoted(bytes) + ")";
}

}  // namespace

TEST_CASE("the CI role cannot insert a row that chains on but is not exactly one record") {
  const RoleAndLedger scratch;
  REQUIRE(run_ledger({"grant", scratch.role.name(), "--ledger", scratch.uri}).exit_code == 0);
  const std::string ci = as_user(scratch.uri, scratch.role.name());
  const VerifyReport before = open_store(ci)->verify(std::nullopt);
  REQUIRE(before.ok);
  const std::int64_t seq = before.records + 1;

  // Each row below carries the right seq and, where it has one, the right prev.
  const Record run = fresh_batch("current", 0)[0];
  const std::string bytes = serialize(run, before.head);
  const Columns columns = columns_of(run);
  Columns baseline = columns;
  baseline.label = "baseline";
  Columns wrong_id = columns;
  wrong_id.id = new_ulid();
  const std::vector<std::tuple<std::string, std::string, std::string>> rows = {
      {"junk after the JSON", insert_row(seq, columns, bytes + "junk"), "is refused"},
      {"a second JSON value", insert_row(seq, columns, bytes + "{}"), "not one JSON value"},
      {"only a header", insert_row(seq, columns, bytes.substr(0, bytes.find(",\"label\"")) + "}"),
       "lacks a field a run record has"},
      {"a label column naming another run", insert_row(seq, baseline, bytes), "indexed columns"},
      {"an id column that is not the record's", insert_row(seq, wrong_id, bytes),
       "column disagrees with its bytes"},
      {"a line break inside", insert_row(seq, columns, bytes.substr(0, bytes.size() - 1) + "\n}"),
       "holds a line break"},
  };
  for (const auto& [what, sql, reason] : rows) {
    INFO(what << ": " << sql);
    const ProcessResult result = psql(ci, sql);
    CHECK(result.exit_code != 0);
    CHECK_THAT(result.err, Catch::Contains("record " + std::to_string(seq) + " is refused") &&
                               Catch::Contains(reason));
  }
  // Nothing got in: the ledger verifies and the CI role appends on as before.
  CHECK(open_store(ci)->verify(before.head).ok);
  CHECK(psql(ci, insert_row(seq, columns, bytes)).exit_code == 0);
  const ProcessResult note = run_ledger({"note", "current", "--kind", "comment", "--text", "on top",
                                         "--author", "ci", "--ledger", ci});
  INFO(note.err);
  CHECK(note.exit_code == 0);
  CHECK(run_ledger({"verify", "--ledger", ci}).exit_code == 0);
}

TEST_CASE("a PostgreSQL ledger refuses a table it did not make and a database that converts") {
  SECTION("a table of the ledger's name that is not a ledger") {
    ScratchDir dir;
    const std::string uri = dir.pg_uri();
    REQUIRE_FALSE(uri.empty());
    REQUIRE(psql(uri,
                 "CREATE TABLE benchledger_records (x int); "
                 "INSERT INTO benchledger_records VALUES (7)")
                .exit_code == 0);
    CHECK_THROWS_WITH(
        open_store(uri)->append(fresh_batch("baseline", 1)),
        Catch::Contains("is not a benchledger ledger") && Catch::Contains("nothing was written"));
    CHECK_THROWS_WITH(open_store(uri)->log(0), Catch::Contains("is not a benchledger ledger"));
    CHECK(psql(uri, "SELECT 1 FROM benchledger_records WHERE x = 7").exit_code == 0);
  }
  SECTION("a LATIN1 database, which would not keep UTF-8 bytes as they are") {
    ScratchDir dir;
    const std::string name = "bl_latin1_" + dir.suffix();
    REQUIRE(run_pg_admin_sql("CREATE DATABASE \"" + name +
                             "\" ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' "
                             "TEMPLATE template0"));
    const std::string uri = test_pg_database(name);
    CHECK_THROWS_WITH(open_store(uri)->append(fresh_batch("baseline", 1)),
                      Catch::Contains("encoding is LATIN1"));
    run_pg_admin_sql("DROP DATABASE \"" + name + "\" WITH (FORCE)");
  }
}

TEST_CASE("a lost connection costs one append, names it, and loses no record") {
  ScratchDir dir;
  const std::string uri = dir.pg_uri();
  REQUIRE_FALSE(uri.empty());
  const auto store = open_store(uri);
  store->append(fresh_batch("baseline", 3));
  const std::string database = uri.substr(uri.rfind('/') + 1);
  REQUIRE(
      run_pg_admin_sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                       "datname = '" +
                       database + "'"));
  CHECK_THROWS_WITH(store->append(fresh_batch("lost", 3)),
                    Catch::Contains("cannot append to") && Catch::Contains("nothing was written"));
  // The next append connects again.
  CHECK(store->append(fresh_batch("current", 3)).appended == 4);
  const Census census = take_census(uri);
  CHECK(census.records == 8);
  CHECK(census.results_of_run.size() == 2);
  CHECK(store->verify(std::nullopt).ok);
}

TEST_CASE("ledger grant refuses a role that REVOKE cannot make append-only") {
  ScratchDir dir;
  const ScratchRole owner(dir, "owner_"), member(dir, "member_"), group(dir, "group_");
  const std::string database = "bl_owned_" + dir.suffix();
  REQUIRE(run_pg_admin_sql("CREATE ROLE \"" + owner.name() + "\" LOGIN"));
  REQUIRE(run_pg_admin_sql("CREATE DATABASE \"" + database + "\" OWNER \"" + owner.name() + "\""));
  const std::string uri = test_pg_database(database);
  const std::string as_owner = as_user(uri, owner.name());
  open_store(as_owner)->append(fresh_batch("baseline", 1));  // the owner makes the table

  const ProcessResult superuser = run_ledger({"grant", "postgres", "--ledger", uri});
  CHECK(superuser.exit_code == 2);
  CHECK_THAT(superuser.err, Catch::Contains("cannot make postgres append-only") &&
                                Catch::Contains("it is a superuser"));
  const ProcessResult owns = run_ledger({"grant", owner.name(), "--ledger", uri});
  CHECK(owns.exit_code == 2);
  CHECK_THAT(owns.err, Catch::Contains("it owns the table, or is a member of its owner"));
  // The refused grant revoked nothing: the owner still has its privileges.
  CHECK(psql(as_owner,
             "DO $$ BEGIN IF NOT has_table_privilege('benchledger_records', 'UPDATE') "
             "THEN RAISE EXCEPTION 'revoked'; END IF; END $$")
            .exit_code == 0);
  REQUIRE(run_pg_admin_sql("CREATE ROLE \"" + group.name() + "\""));
  REQUIRE(
      psql(as_owner, "GRANT UPDATE ON benchledger_records TO \"" + group.name() + "\"").exit_code ==
      0);
  REQUIRE(run_pg_admin_sql("CREATE ROLE \"" + member.name() + "\" LOGIN IN ROLE \"" + group.name() +
                           "\""));
  const ProcessResult through = run_ledger({"grant", member.name(), "--ledger", uri});
  CHECK(through.exit_code == 2);
  CHECK_THAT(through.err, Catch::Contains("still has UPDATE") &&
                              Catch::Contains("through a role it is a member of"));
  // A table whose triggers the owner switched off cannot be promised to anyone.
  REQUIRE(psql(as_owner, "ALTER TABLE benchledger_records DISABLE TRIGGER benchledger_append_on")
              .exit_code == 0);
  const ProcessResult disabled = run_ledger({"grant", "ci_anyone", "--ledger", uri});
  CHECK(disabled.exit_code == 2);
  CHECK_THAT(disabled.err, Catch::Contains("triggers are missing or switched off"));
  CHECK(psql(uri,
             "DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ci_anyone') "
             "THEN RAISE EXCEPTION 'created'; END IF; END $$")
            .exit_code == 0);
  run_pg_admin_sql("DROP DATABASE \"" + database + "\" WITH (FORCE)");
}

TEST_CASE("appends keep their guarantees whatever the database's session defaults") {
  ScratchDir dir;
  const std::string uri = dir.pg_uri();
  REQUIRE_FALSE(uri.empty());
  const std::string database = uri.substr(uri.rfind('/') + 1);

  SECTION("REPEATABLE READ by default: concurrent appenders still read the head after the lock") {
    REQUIRE(run_pg_admin_sql("ALTER DATABASE \"" + database +
                             "\" SET default_transaction_isolation = 'repeatable read'"));
    std::vector<Child> children;
    for (int p = 0; p < 4; ++p) {
      children.push_back(spawn({LEDGER_APPENDER, uri, "25", "2", "rr-" + std::to_string(p)}));
    }
    for (auto& child : children) {
      const ProcessResult result = finish(child);
      INFO(result.err);
      CHECK(result.exit_code == 0);
    }
    CHECK(take_census(uri).records == 4 * 25 * 3);
    CHECK(open_store(uri)->verify(std::nullopt).ok);
  }
  SECTION("REPEATABLE READ by default: a row committed while an appender waits is its head") {
    REQUIRE(run_pg_admin_sql("ALTER DATABASE \"" + database +
                             "\" SET default_transaction_isolation = 'repeatable read'"));
    open_store(uri)->append(fresh_batch("baseline", 1));
    // Made to happen in this order every time: a session H takes the appenders' lock; an
    // appender queues behind it (its snapshot, under REPEATABLE READ, taken before the lock);
    // H commits one more valid record (the last one with a new id, chained on) and lets go.
    // The appender must append after that record. H waits for its cue on a second advisory
    // lock, held by a session G until the appender is seen queued.
    constexpr const char* k_cue = "20261123";
    Child cue = spawn({"/usr/bin/psql", "-X", "-q", "-d", uri, "-c",
                       std::string("SELECT pg_advisory_lock(") + k_cue + "), pg_sleep(60)"});
    REQUIRE(wait_for_advisory_lock(uri, k_cue, true));
    const std::string id = new_ulid();
    Child holder =
        spawn({"/usr/bin/psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", uri, "-c",
               "SELECT pg_advisory_lock(1111838275)", "-c",
               std::string("SELECT pg_advisory_lock(") + k_cue + ")", "-c",
               "INSERT INTO benchledger_records (seq, id, type, time, run, label, bench, params, "
               "git_commit, target, bytes) SELECT seq + 1, '" +
                   id +
                   "', type, time, run, label, bench, params, git_commit, target, "
                   "replace(replace(bytes, id, '" +
                   id +
                   "'), substr(bytes, strpos(bytes, '\"prev\":\"') + 8, 64), "
                   "encode(sha256(convert_to(bytes, 'UTF8')), 'hex')) FROM benchledger_records "
                   "WHERE seq = (SELECT max(seq) FROM benchledger_records)"});
    REQUIRE(wait_for_advisory_lock(uri, "1111838275", true));
    Child appender = spawn({LEDGER_APPENDER, uri, "1", "1", "queued-behind-a-commit"});
    REQUIRE(wait_for_advisory_lock(uri, "1111838275", false));
    // G's session ends (its server process, not only psql, which would leave it sleeping with
    // the lock): H inserts, commits and lets go.
    REQUIRE(run_pg_admin_sql(std::string("SELECT pg_terminate_backend(pid) FROM pg_locks WHERE "
                                         "locktype = 'advisory' AND granted AND objid = ") +
                             k_cue));
    finish(cue);
    const ProcessResult held = finish(holder);
    INFO(held.err);
    REQUIRE(held.exit_code == 0);
    const ProcessResult appended = finish(appender);
    INFO(appended.err);
    CHECK(appended.exit_code == 0);
    CHECK(take_census(uri).records == 5);
    CHECK(open_store(uri)->verify(std::nullopt).ok);
  }
  SECTION("a lock held too long: the appender gives up within lock_timeout, naming why") {
    REQUIRE(run_pg_admin_sql("ALTER DATABASE \"" + database + "\" SET lock_timeout = '1s'"));
    open_store(uri)->append(fresh_batch("baseline", 1));
    // Another session holds the appenders' advisory lock for 20 s.
    Child holder = spawn({"/usr/bin/psql", "-X", "-q", "-d", uri, "-c",
                          "SELECT pg_advisory_lock(1111838275), pg_sleep(20)"});
    bool held = false;
    for (int tries = 0; tries < 400 && !held; ++tries) {
      held = psql(uri,
                  "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_locks l JOIN pg_database d "
                  "ON d.oid = l.database WHERE d.datname = current_database() AND "
                  "l.locktype = 'advisory' AND l.objid = 1111838275 AND l.granted) THEN "
                  "RAISE EXCEPTION 'not yet'; END IF; END $$")
                 .exit_code == 0;
      if (!held) usleep(50'000);
    }
    REQUIRE(held);
    const auto started = std::chrono::steady_clock::now();
    CHECK_THROWS_WITH(open_store(uri)->append(fresh_batch("blocked", 1)),
                      Catch::Contains("another appender held the ledger's lock") &&
                          Catch::Contains("nothing was written"));
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(15));
    ::kill(holder.pid, SIGTERM);
    finish(holder);
    run_pg_admin_sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" +
                     database + "' AND pid <> pg_backend_pid()");
    CHECK(take_census(uri).records == 2);
  }
}

TEST_CASE("a connection lost during COMMIT is reported as unknown, not as nothing written") {
  ScratchDir dir;
  const std::string uri = dir.pg_uri();
  REQUIRE_FALSE(uri.empty());
  const auto store = open_store(uri);
  store->append(fresh_batch("baseline", 1));
  // A deferred constraint trigger runs at COMMIT and ends its own session there.
  REQUIRE(psql(uri,
               "CREATE FUNCTION die() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
               "PERFORM pg_terminate_backend(pg_backend_pid()); RETURN NULL; END $$; "
               "CREATE CONSTRAINT TRIGGER die_at_commit AFTER INSERT ON benchledger_records "
               "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION die()")
              .exit_code == 0);
  const auto lost = fresh_batch("lost", 1);
  CHECK_THROWS_WITH(store->append(lost), Catch::Contains("lost during COMMIT") &&
                                             Catch::Contains("is unknown") &&
                                             Catch::Contains(header_of(lost[0]).id) &&
                                             !Catch::Contains("nothing was written"));
  REQUIRE(psql(uri, "DROP TRIGGER die_at_commit ON benchledger_records").exit_code == 0);
  CHECK(store->append(fresh_batch("current", 1)).appended == 2);
  CHECK(store->verify(std::nullopt).ok);
}
