// The `postgres` suite (docs/postgres.md): a PostgreSQL server under concurrent clients,
// through libpqxx, at concurrency 10, 50 and 100 (the param `concurrency`).
//
// - postgres/select1_connect (OPS): every operation opens a connection, runs SELECT 1 and
//   closes it: what an application without a pool pays.
// - postgres/select1_pool (OPS): SELECT 1 on a connection borrowed from a pool of at most
//   min(concurrency + 10, 100) connections, opened and warmed before measuring.
// - postgres/point_read, postgres/small_write (OPS, pooled): pgbench's SELECT of one account
//   balance by primary key, and its UPDATE of one balance (autocommit), on a table of `rows`
//   accounts that the case creates in a schema of its own and drops when it ends.
//
// A refused connection or a failed statement is an error counted under its SQLSTATE
// (OperationError): `sorry, too many clients already` is 53300, which libpq reports only as
// text at connection time. The server is BENCHLEDGER_PG, which `run` sets from --pg, the
// config file, or the throwaway server it starts (cli/run_postgres.hpp).
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <pqxx/pqxx>

#include "suites/postgres_pool.hpp"
#include "suites/suites.hpp"

namespace benchledger::suites {

namespace {

using postgres::connect;
using postgres::counted;
using postgres::Pool;

// pgbench's scale 1: 100,000 accounts.
constexpr std::int64_t k_rows = 100000;

std::string server_dsn(State& state) {
  const char* dsn = std::getenv("BENCHLEDGER_PG");
  if (dsn == nullptr || *dsn == '\0') {
    state.fail(
        "postgres suite: no server: give --pg DSN (or BENCHLEDGER_PG), or install the "
        "PostgreSQL server binaries so that `run` starts a throwaway server");
  }
  return dsn;
}

// The pool's size for a concurrency (docs/postgres.md): a client each, ten spare, 100 at most.
int pool_size(int concurrency) {
  return std::min(concurrency + 10, 100);
}

// pgbench_accounts with `rows` rows in a schema of this case's own, dropped when the case
// ends (a case killed by its timeout leaves it: its name says which process made it).
class AccountsTable {
 public:
  AccountsTable(const std::string& dsn, std::int64_t rows)
      : m_dsn(dsn), m_schema(fmt::format("benchledger_suite_{}", ::getpid())) {
    auto connection = connect(dsn);
    pqxx::work txn(*connection);
    txn.exec("DROP SCHEMA IF EXISTS " + m_schema + " CASCADE");
    txn.exec("CREATE SCHEMA " + m_schema);
    txn.exec("CREATE TABLE " + m_schema +
             ".pgbench_accounts (aid integer PRIMARY KEY, bid integer NOT NULL, abalance "
             "integer NOT NULL, filler character(84))");
    txn.exec(
        fmt::format("INSERT INTO {}.pgbench_accounts SELECT g, 1, 0, '' FROM "
                    "generate_series(1, {}) g",
                    m_schema, rows));
    txn.commit();
    pqxx::nontransaction(*connection).exec("VACUUM ANALYZE " + m_schema + ".pgbench_accounts");
  }
  ~AccountsTable() {
    try {
      auto connection = connect(m_dsn);
      pqxx::nontransaction(*connection).exec("DROP SCHEMA IF EXISTS " + m_schema + " CASCADE");
    } catch (const std::exception&) {
      // Nothing to do: the schema's name says which case left it behind.
    }
  }
  AccountsTable(const AccountsTable&) = delete;
  AccountsTable& operator=(const AccountsTable&) = delete;
  const std::string& schema() const { return m_schema; }

 private:
  std::string m_dsn, m_schema;
};

// A per-thread linear congruential sequence of account ids, 1..rows.
std::int64_t next_account(std::int64_t rows) {
  thread_local std::uint64_t seed = 0x9E3779B97F4A7C15ULL ^ static_cast<std::uint64_t>(::gettid());
  seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return static_cast<std::int64_t>((seed >> 33) % static_cast<std::uint64_t>(rows)) + 1;
}

// A pooled case on the accounts table: the point read, or the small write.
Operation accounts_case(State& state, bool write) {
  const std::string dsn = server_dsn(state);
  const std::int64_t rows = state.int_param("rows");
  if (rows < 1) state.fail("rows must be at least 1");
  auto& table = state.make_kept<AccountsTable>(dsn, rows);
  auto& pool = state.make_kept<Pool>(dsn, table.schema(), pool_size(state.concurrency()));
  pool.warm(state.concurrency());
  return Operation([&pool, rows, write] {
    pool.with_connection([&](pqxx::connection& connection) {
      pqxx::nontransaction txn(connection);
      const std::int64_t aid = next_account(rows);
      if (write) {
        txn.exec_prepared("small_write", aid, aid % 5000 - 2500);
      } else {
        do_not_optimize(txn.exec_prepared("point_read", aid));
      }
    });
  });
}

std::vector<int> concurrency_levels() {
  return {10, 50, 100};
}

// Long enough a repetition for every client to run many operations (a new connection takes
// milliseconds); the engine's default 0.01 s would time one connection at a time.
constexpr double k_min_time = 0.2;

}  // namespace

void define_postgres(Registry& registry) {
  registry
      .ops(
          "postgres/select1_connect",
          [](State& state) {
            const std::string dsn = server_dsn(state);
            return [dsn] {
              auto connection = connect(dsn);
              counted([&] { do_not_optimize(pqxx::nontransaction(*connection).exec("SELECT 1")); });
            };
          })
      .concurrency(concurrency_levels())
      .min_time(k_min_time);

  registry
      .ops("postgres/select1_pool",
           [](State& state) {
             const std::string dsn = server_dsn(state);
             auto& pool = state.make_kept<Pool>(dsn, "", pool_size(state.concurrency()));
             pool.warm(state.concurrency());
             return [&pool] { postgres::select1(pool); };
           })
      .concurrency(concurrency_levels())
      .min_time(k_min_time);

  registry.ops("postgres/point_read", [](State& state) { return accounts_case(state, false); })
      .param("rows", {k_rows})
      .concurrency(concurrency_levels())
      .min_time(k_min_time);

  registry.ops("postgres/small_write", [](State& state) { return accounts_case(state, true); })
      .param("rows", {k_rows})
      .concurrency(concurrency_levels())
      .min_time(k_min_time);
}

}  // namespace benchledger::suites
