// The test PostgreSQL server that tools/test starts (BENCHLEDGER_TEST_PG), and scratch
// directories with a database of their own on it: tests that change a database's tables (pgbench's
// initialisation, a ledger's schema) each take their own, since tests run side by side.
#pragma once

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "support/process.hpp"
#include "support/scratch_dir.hpp"

namespace benchledger::test_support {

// The test PostgreSQL server's URI (tools/test starts one and sets BENCHLEDGER_TEST_PG), or
// empty when there is none.
inline std::string test_pg_server() {
  const char* uri = std::getenv("BENCHLEDGER_TEST_PG");
  return uri == nullptr ? std::string() : std::string(uri);
}

// The test PostgreSQL server's URI; throws (failing the test that asked) when there is none,
// so that a run without a server cannot pass by leaving the PostgreSQL store out.
inline std::string required_test_pg_server() {
  std::string server = test_pg_server();
  if (server.empty()) {
    throw std::runtime_error(
        "BENCHLEDGER_TEST_PG is not set: run the tests through tools/test, which starts a "
        "PostgreSQL server and sets it");
  }
  return server;
}

// The URI of database `name` on the test server.
inline std::string test_pg_database(const std::string& name) {
  const std::string server = test_pg_server();
  return server.substr(0, server.rfind('/') + 1) + name;
}

// Runs SQL on the test server's maintenance database with psql (no shell between); true on
// success.
inline bool run_pg_admin_sql(const std::string& sql) {
  ProcessOptions quiet;
  quiet.stdout_path = quiet.stderr_path = "/dev/null";
  return run_process(
             {"psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", test_pg_server(), "-c", sql},
             quiet)
             .exit_code == 0;
}

// The tests' scratch directory, which can also hold a fresh database on the test PostgreSQL
// server when a test asks for one, dropped with the directory.
class PgScratchDir : public ScratchDir {
 public:
  PgScratchDir() = default;
  ~PgScratchDir() override {
    if (!m_database.empty()) {
      run_pg_admin_sql("DROP DATABASE IF EXISTS \"" + m_database + "\" WITH (FORCE)");
    }
  }

  // The URI of this directory's own database on the test server (created on first call).
  // Throws when there is no test server.
  std::string pg_uri() const {
    const std::string server = required_test_pg_server();
    if (m_database.empty()) {
      const std::string name = "bl_" + suffix();
      if (!run_pg_admin_sql("CREATE DATABASE \"" + name + "\"")) {
        throw std::runtime_error("cannot create database " + name + " on " + server);
      }
      m_database = name;
    }
    return test_pg_database(m_database);
  }

 private:
  mutable std::string m_database;
};

}  // namespace benchledger::test_support
