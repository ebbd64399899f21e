// The `sqlite` suite: an embedded-database workload on a real SQLite file —
// 2,000 rows inserted with one transaction per row and in one batch, and a window selected
// over them, under each `synchronous` mode (journal_mode WAL).
//
// - sqlite/insert_per_row (OPS): one INSERT in its own transaction is one operation; the
//   measured repetitions share `rows`=2,000 inserts, whatever their number (the record's `ops`
//   is the rows measured; `--param rows=N` measures N; warm-up inserts its own rows before
//   them, untimed), and the latency percentiles show what each commit's sync costs.
// - sqlite/insert_batched (BENCH): one iteration inserts `rows` rows in one transaction into
//   an emptied table (the emptying is not timed).
// - sqlite/select_window (OPS): one SELECT of `window` rows at a random offset of a table of
//   `rows` rows.
//
// The database lives in a fresh directory under TMPDIR (or /tmp), removed when the case ends:
// set TMPDIR to measure another disk.
#include <sqlite3.h>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "suites/suites.hpp"

namespace benchledger::suites {

namespace {

// The suite's workload (docs/engine.md): 2,000 rows inserted one transaction each, and batched.
constexpr std::int64_t k_rows = 2000;

class Database {
 public:
  Database(const std::string& synchronous, const std::string& journal) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/benchledger-sqlite-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw Error(fmt::format("sqlite suite: cannot create a directory like {}: {}", pattern,
                              std::error_code(errno, std::generic_category()).message()));
    }
    m_dir = pattern;
    const std::string path = m_dir + "/bench.db";
    if (sqlite3_open(path.c_str(), &m_db) != SQLITE_OK) {
      const std::string message = m_db != nullptr ? sqlite3_errmsg(m_db) : "out of memory";
      cleanup();
      throw Error("sqlite suite: cannot open " + path + ": " + message);
    }
    exec("PRAGMA journal_mode=" + journal);
    exec("PRAGMA synchronous=" + synchronous);
    exec(
        "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, value REAL NOT NULL, "
        "payload TEXT NOT NULL)");
    m_insert = prepare("INSERT INTO items (name, value, payload) VALUES (?1, ?2, ?3)");
  }
  ~Database() { cleanup(); }
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  void exec(const std::string& sql) {
    char* error = nullptr;
    if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
      const std::string message = error != nullptr ? error : sqlite3_errmsg(m_db);
      sqlite3_free(error);
      throw Error("sqlite suite: " + sql + ": " + message);
    }
  }

  sqlite3_stmt* prepare(const std::string& sql) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
      throw Error("sqlite suite: " + sql + ": " + sqlite3_errmsg(m_db));
    }
    m_statements.push_back(statement);
    return statement;
  }

  // Inserts one row (in the current transaction, or its own when none is open).
  void insert(std::int64_t n) {
    const std::string name = fmt::format("item-{:08d}", n);
    const std::string payload = fmt::format("{:0>96}", n * 7919);
    sqlite3_bind_text(m_insert, 1, name.c_str(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
    sqlite3_bind_double(m_insert, 2, static_cast<double>(n) * 1.25);
    sqlite3_bind_text(m_insert, 3, payload.c_str(), static_cast<int>(payload.size()),
                      SQLITE_TRANSIENT);
    const int rc = sqlite3_step(m_insert);
    sqlite3_reset(m_insert);
    if (rc != SQLITE_DONE)
      throw Error(std::string("sqlite suite: insert: ") + sqlite3_errmsg(m_db));
  }

  sqlite3* handle() const { return m_db; }

 private:
  void cleanup() {
    for (sqlite3_stmt* statement : m_statements) sqlite3_finalize(statement);
    m_statements.clear();
    if (m_db != nullptr) sqlite3_close(m_db);
    m_db = nullptr;
    std::error_code ignored;
    std::filesystem::remove_all(m_dir, ignored);  // nothing to do if a temp file stays behind
  }

  std::string m_dir;
  sqlite3* m_db = nullptr;
  sqlite3_stmt* m_insert = nullptr;
  std::vector<sqlite3_stmt*> m_statements;
};

std::vector<ParamValue> synchronous_modes() {
  return {std::string("OFF"), std::string("NORMAL"), std::string("FULL"), std::string("EXTRA")};
}

}  // namespace

void define_sqlite(Registry& registry) {
  registry
      .ops("sqlite/insert_per_row",
           [](State& state) {
             auto db = std::make_shared<Database>(state.string_param("synchronous"),
                                                  state.string_param("journal"));
             state.set_items_per_op(1);
             return [db, n = std::int64_t{0}]() mutable { db->insert(++n); };
           })
      .param("synchronous", synchronous_modes())
      .param("journal", {"wal"})
      .param("rows", {k_rows})
      .ops_per_case("rows");

  registry
      .bench("sqlite/insert_batched",
             [](State& state) {
               Database db(state.string_param("synchronous"), state.string_param("journal"));
               const std::int64_t rows = state.int_param("rows");
               if (rows < 1) state.fail("rows must be at least 1");
               state.set_items_per_op(static_cast<double>(rows));
               std::int64_t n = 0;
               for (auto _ : state) {
                 state.pause_timing();
                 db.exec("DELETE FROM items");
                 state.resume_timing();
                 db.exec("BEGIN");
                 for (std::int64_t i = 0; i < rows; ++i) db.insert(++n);
                 db.exec("COMMIT");
               }
             })
      .param("rows", {k_rows})
      .param("synchronous", synchronous_modes())
      .param("journal", {"wal"});

  registry
      .ops("sqlite/select_window",
           [](State& state) {
             auto db = std::make_shared<Database>(state.string_param("synchronous"),
                                                  state.string_param("journal"));
             const std::int64_t rows = state.int_param("rows");
             const std::int64_t window = state.int_param("window");
             if (rows < 1 || window < 1) state.fail("rows and window must be at least 1");
             db->exec("BEGIN");
             for (std::int64_t i = 1; i <= rows; ++i) db->insert(i);
             db->exec("COMMIT");
             sqlite3_stmt* select = db->prepare(
                 "SELECT id, name, value, payload FROM items WHERE id > ?1 ORDER BY id LIMIT ?2");
             state.set_items_per_op(static_cast<double>(window));
             // A fixed-seed linear congruential sequence of offsets: the same windows every run.
             return [db, select, rows, window, seed = std::uint64_t{12345}]() mutable {
               seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
               const auto span =
                   static_cast<std::uint64_t>(std::max<std::int64_t>(rows - window, 0) + 1);
               const auto offset = static_cast<std::int64_t>((seed >> 33) % span);
               sqlite3_bind_int64(select, 1, offset);
               sqlite3_bind_int64(select, 2, window);
               std::int64_t seen = 0;
               int rc;
               while ((rc = sqlite3_step(select)) == SQLITE_ROW) {
                 seen += sqlite3_column_int64(select, 0);
                 do_not_optimize(sqlite3_column_text(select, 3));
               }
               sqlite3_reset(select);
               if (rc != SQLITE_DONE)
                 throw Error(std::string("sqlite suite: select: ") + sqlite3_errmsg(db->handle()));
               do_not_optimize(seen);
             };
           })
      .param("rows", {k_rows})
      .param("window", {100})
      .param("synchronous", synchronous_modes())
      .param("journal", {"wal"});
}

}  // namespace benchledger::suites
