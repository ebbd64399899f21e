// A SQLite ledger refuses UPDATE, DELETE and out-of-order inserts even from the sqlite3 shell,
// with a message that says why, and its records stay as they were.
#include <catch2/catch.hpp>

#include "integration/ledger_process.hpp"
#include "unit/ledger/ledger_support.hpp"

using namespace benchledger;
using namespace benchledger::ledger;
using namespace benchledger::testing;

TEST_CASE("the sqlite3 shell cannot update, delete or slip records into a SQLite ledger") {
  ScratchDir dir;
  const std::string db = (dir / "ledger.db").string();
  open_store("sqlite:" + db)->append(fresh_batch("baseline", 3));
  const auto exported = [&] { return run_ledger({"export", "--ledger", "sqlite:" + db}).out; };
  const std::string before = exported();
  REQUIRE_FALSE(before.empty());

  const std::vector<std::pair<std::string, std::string>> attempts = {
      {"UPDATE records SET label = 'current' WHERE type = 'run'", "UPDATE is refused"},
      {"UPDATE records SET bytes = replace(bytes, '4000', '4001')", "UPDATE is refused"},
      {"DELETE FROM records WHERE seq = 2", "DELETE is refused"},
      {"DELETE FROM records", "DELETE is refused"},
      {"INSERT OR REPLACE INTO records (seq, id, type, time, bytes) SELECT seq, id, type, time, "
       "'{}' FROM records WHERE seq = 2",
       "a record goes after the last one"},
      {"INSERT INTO records (id, type, time, bytes) VALUES ('01JDQ8Z6X0000000000000000Z', "
       "'note', '2026-11-22T04:27:59.123456Z', '{}')",
       "a record goes after the last one"},
  };
  for (const auto& [sql, reason] : attempts) {
    INFO(sql);
    const ProcessResult result = run_process({"/usr/bin/sqlite3", db, sql});
    CHECK(result.exit_code != 0);
    CHECK_THAT(result.err, Catch::Contains("append-only") && Catch::Contains(reason));
  }
  CHECK(exported() == before);
  CHECK(run_ledger({"verify", "--ledger", "sqlite:" + db}).exit_code == 0);
}
