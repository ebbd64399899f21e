// The PostgreSQL store against the throwaway server tools/test starts: psql cannot change
// history, tampering with the triggers switched off is caught, the append-only role can append
// and nothing else, a table or database the ledger cannot trust is refused, a lost connection
// costs one append and no record, and no message shows a password. (The Store contract, the
// ledger commands and the concurrent appenders run on this store in their own tests.)
#include <catch2/catch.hpp>

#include "integration/ledger_census.hpp"
#include "integration/ledger_process.hpp"
#include "ledger/postgres/postgres_store.hpp"
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

// A role on the test server (roles belong to the whole server), dropped when the test ends:
// declared before the ScratchDir whose database holds its privileges, so dropped after it.
class ScratchRole {
 public:
  explicit ScratchRole(const ScratchDir& dir)
      : m_name("ci_" + dir.path().filename().string().substr(19)) {}
  ~ScratchRole() { run_pg_admin_sql("DROP ROLE IF EXISTS \"" + m_name + "\""); }
  const std::string& name() const { return m_name; }

 private:
  std::string m_name;
};

}  // namespace

TEST_CASE("the PostgreSQL tests have a server to run against") {
  INFO("BENCHLEDGER_TEST_PG is not set: run the tests through tools/test, which starts one");
  REQUIRE_FALSE(test_pg_server().empty());
}

TEST_CASE("no message shows the password of a postgresql:// URI") {
  CHECK(postgres::without_password("postgresql://ci:secret@db/bench") ==
        "postgresql://ci:***@db/bench");
  CHECK(postgres::without_password("postgres://ci:p%40ss@db:5432/bench?sslmode=require") ==
        "postgres://ci:***@db:5432/bench?sslmode=require");
  CHECK(postgres::without_password("postgresql://db/bench?user=ci&password=secret&sslmode=off") ==
        "postgresql://db/bench?user=ci&password=***&sslmode=off");
  CHECK(postgres::without_password("postgresql://ci@db/bench") == "postgresql://ci@db/bench");
  CHECK(postgres::without_password("postgresql://db:5432/bench") == "postgresql://db:5432/bench");

  // Port 1 on loopback: nothing listens there.
  const std::string uri = "postgresql://ci:secret@127.0.0.1:1/bench";
  CHECK(open_store(uri)->uri() == "postgresql://ci:***@127.0.0.1:1/bench");
  CHECK_THROWS_WITH(open_store(uri)->log(0),
                    Catch::Contains("cannot connect to postgresql://ci:***@127.0.0.1:1/bench") &&
                        !Catch::Contains("secret"));
  const ProcessResult cli = run_ledger({"log", "--ledger", uri});
  CHECK(cli.exit_code == 2);
  CHECK_THAT(cli.err, Catch::Contains("cannot connect") && !Catch::Contains("secret"));
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
  SECTION("the last batch deleted: only a saved head sees it") {
    const ProcessResult saved = run_ledger({"verify", "--ledger", uri});
    const std::string head = saved.out.substr(saved.out.rfind("head ") + 5, 64);
    REQUIRE(psql(uri,
                 "ALTER TABLE benchledger_records DISABLE TRIGGER USER; "
                 "DELETE FROM benchledger_records WHERE seq > 4")
                .exit_code == 0);
    CHECK(run_ledger({"verify", "--ledger", uri}).exit_code == 0);
    CHECK(run_ledger({"verify", "--ledger", uri, "--head", head}).exit_code == 1);
  }
}

TEST_CASE("ledger grant: a CI role reads and appends, and can do nothing else") {
  ScratchDir dir;
  const ScratchRole role(dir);
  std::unique_ptr<ScratchDir> db_dir = std::make_unique<ScratchDir>();
  const std::string uri = db_dir->pg_uri();
  REQUIRE_FALSE(uri.empty());
  open_store(uri)->append(fresh_batch("baseline", 3));

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
        "DROP TABLE benchledger_records", "CREATE TABLE other (x int)"}) {
    INFO(sql);
    const ProcessResult result = psql(ci, sql);
    CHECK(result.exit_code != 0);
    CHECK_THAT(result.err,
               Catch::Contains("permission denied") || Catch::Contains("must be owner"));
  }
  CHECK(run_ledger({"verify", "--ledger", ci}).exit_code == 0);

  const ProcessResult file = run_ledger({"grant", "ci", "--ledger", (dir / "l.ndjson").string()});
  CHECK(file.exit_code == 2);
  CHECK_THAT(file.err, Catch::Contains("for postgresql:// ledgers"));
  db_dir.reset();  // the database goes before the role whose privileges it holds
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
    const std::string name = "bl_latin1_" + dir.path().filename().string().substr(19);
    REQUIRE(run_pg_admin_sql("CREATE DATABASE \"" + name +
                             "\" ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' "
                             "TEMPLATE template0"));
    const std::string server = test_pg_server();
    const std::string uri = server.substr(0, server.rfind('/') + 1) + name;
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
