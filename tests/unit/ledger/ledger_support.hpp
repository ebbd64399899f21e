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
#include "support/postgres.hpp"
#include "support/process.hpp"
#include "support/scratch_dir.hpp"

namespace benchledger::testing {

// Scratch directories with a database of their own on the test PostgreSQL server.
using ScratchDir = test_support::PgScratchDir;
using test_support::required_test_pg_server;
using test_support::run_pg_admin_sql;
using test_support::test_pg_database;
using test_support::test_pg_server;

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
