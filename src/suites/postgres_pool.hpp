// The postgres suite's connection pool (src/suites/postgres.cpp), shared with the
// self-benchmark that sets its cost beside raw libpq (bench/self/postgres_suite_bench.cpp).
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <pqxx/pqxx>

#include <benchledger/benchledger.hpp>

namespace benchledger::suites::postgres {

// The SQLSTATE of a connection that could not be opened. libpq has no code for it, only the
// server's message: https://www.postgresql.org/docs/current/errcodes-appendix.html
inline std::string connection_sqlstate(const std::string& message) {
  if (message.find("too many clients") != std::string::npos ||
      message.find("too many connections") != std::string::npos ||
      message.find("remaining connection slots are reserved") != std::string::npos) {
    return "53300";  // too_many_connections
  }
  if (message.find("the database system is starting up") != std::string::npos ||
      message.find("the database system is shutting down") != std::string::npos) {
    return "57P03";  // cannot_connect_now
  }
  return "08006";  // connection_failure
}

inline std::unique_ptr<pqxx::connection> connect(const std::string& dsn) {
  try {
    return std::make_unique<pqxx::connection>(dsn);
  } catch (const pqxx::broken_connection& e) {
    throw OperationError(connection_sqlstate(e.what()), e.what());
  }
}

// Runs `body` and counts what the server refused under its SQLSTATE.
template <class Body>
void counted(Body&& body) {
  try {
    body();
  } catch (const pqxx::sql_error& e) {
    throw OperationError(e.sqlstate().empty() ? "XX000" : e.sqlstate(), e.what());
  } catch (const pqxx::broken_connection& e) {
    throw OperationError(connection_sqlstate(e.what()), e.what());
  }
}

// The statements every pooled connection has prepared.
inline void prepare(pqxx::connection& connection, const std::string& schema) {
  connection.prepare("select1", "SELECT 1");
  if (!schema.empty()) {
    connection.prepare("point_read",
                       "SELECT abalance FROM " + schema + ".pgbench_accounts WHERE aid = $1");
    connection.prepare("small_write", "UPDATE " + schema +
                                          ".pgbench_accounts SET abalance = abalance + $2 "
                                          "WHERE aid = $1");
  }
}

// At most `size` connections, opened when a borrower finds none idle (so a refusal is counted
// on the operation that met it) and kept open for the next one.
class Pool {
 public:
  Pool(std::string dsn, std::string schema, int size)
      : m_dsn(std::move(dsn)), m_schema(std::move(schema)), m_size(size) {}

  // Opens `count` connections now and runs SELECT 1 on each, so that measuring starts warm.
  // Refusals are left for the operations to meet.
  void warm(int count) {
    std::vector<std::unique_ptr<pqxx::connection>> opened;
    for (int i = 0; i < count && i < m_size; ++i) {
      try {
        auto connection = connect(m_dsn);
        prepare(*connection, m_schema);
        pqxx::nontransaction(*connection).exec_prepared("select1");
        opened.push_back(std::move(connection));
      } catch (const OperationError&) {
        break;
      }
    }
    const std::lock_guard lock(m_mutex);
    m_open += static_cast<int>(opened.size());
    for (auto& connection : opened) m_idle.push_back(std::move(connection));
  }

  template <class Use>
  void with_connection(Use&& use) {
    std::unique_ptr<pqxx::connection> connection = acquire();
    try {
      counted([&] { use(*connection); });
    } catch (...) {
      // A broken connection is dropped; one that only saw an SQL error goes back.
      release(connection->is_open() ? std::move(connection) : nullptr);
      throw;
    }
    release(std::move(connection));
  }

 private:
  std::unique_ptr<pqxx::connection> acquire() {
    std::unique_lock lock(m_mutex);
    m_ready.wait(lock, [&] { return !m_idle.empty() || m_open < m_size; });
    if (!m_idle.empty()) {
      auto connection = std::move(m_idle.back());
      m_idle.pop_back();
      return connection;
    }
    ++m_open;
    lock.unlock();
    try {
      auto connection = connect(m_dsn);
      counted([&] { prepare(*connection, m_schema); });
      return connection;
    } catch (...) {
      release(nullptr);
      throw;
    }
  }

  void release(std::unique_ptr<pqxx::connection> connection) {
    {
      const std::lock_guard lock(m_mutex);
      if (connection) {
        m_idle.push_back(std::move(connection));
      } else {
        --m_open;
      }
    }
    m_ready.notify_one();
  }

  std::string m_dsn, m_schema;
  int m_size;
  std::mutex m_mutex;
  std::condition_variable m_ready;
  std::vector<std::unique_ptr<pqxx::connection>> m_idle;
  int m_open = 0;
};

// The suite's pooled SELECT 1: borrow, run the prepared statement, give back.
inline void select1(Pool& pool) {
  pool.with_connection([](pqxx::connection& connection) {
    do_not_optimize(pqxx::nontransaction(connection).exec_prepared("select1"));
  });
}

}  // namespace benchledger::suites::postgres
