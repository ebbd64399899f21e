// Shared by the ledger's unit and integration tests: the test PostgreSQL server, scratch
// directories with a database of their own, and records.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <benchledger/ledger.hpp>
#include <benchledger/record.hpp>

#include "model_fixtures.hpp"
#include "support/process.hpp"
#include "support/scratch_dir.hpp"

namespace benchledger::testing {

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
  test_support::ProcessOptions quiet;
  quiet.stdout_path = quiet.stderr_path = "/dev/null";
  return test_support::run_process(
             {"psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", test_pg_server(), "-c", sql},
             quiet)
             .exit_code == 0;
}

// The tests' scratch directory, which can also hold a fresh database on the test PostgreSQL
// server when a test asks for one, dropped with the directory.
class ScratchDir : public test_support::ScratchDir {
 public:
  ScratchDir() = default;
  ~ScratchDir() override {
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

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

inline std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
    lines.push_back(text.substr(start, nl - start));
  }
  return lines;
}

// Each store under test, as a URI in a scratch directory and its database on the test
// PostgreSQL server. Throws when there is no test server.
inline std::vector<std::string> store_uris(const ScratchDir& dir) {
  return {(dir / "ledger.ndjson").string(), "sqlite:" + (dir / "ledger.db").string(), dir.pg_uri()};
}

// A run with a fresh id and time, and `count` results for it: one batch as bench-run makes it.
inline std::vector<Record> fresh_batch(const std::string& label, int count,
                                       const std::string& commit = "0544d13c0ffee") {
  RunRecord run = sample_run(new_ulid(), label);
  run.header.time = now_rfc3339();
  run.git.commit = commit;
  std::vector<Record> batch = {run};
  for (int i = 0; i < count; ++i) {
    ResultRecord result = sample_result(run.header.id, new_ulid());
    result.header.time = now_rfc3339();
    result.params["i"] = std::int64_t{i};
    batch.emplace_back(std::move(result));
  }
  return batch;
}

inline NoteRecord fresh_note(const std::string& target) {
  NoteRecord note = sample_note();
  note.header.id = new_ulid();
  note.header.time = now_rfc3339();
  note.target = target;
  return note;
}

}  // namespace benchledger::testing
