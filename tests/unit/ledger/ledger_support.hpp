// Shared by the ledger's unit and integration tests: scratch directories and records.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

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
  const std::string server = test_pg_server();
  std::vector<std::string> args = {"psql", "-X",   "-q", "-v", "ON_ERROR_STOP=1",
                                   "-d",   server, "-c", sql};
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  const int spawned = posix_spawnp(&pid, "psql", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return false;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// A fresh directory under /tmp, removed with everything in it when the test ends; and, when a
// test asks for one, a fresh database on the test PostgreSQL server, dropped at the same time.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "benchledger-ledger-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    m_path = pattern;
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() {
    if (!m_database.empty()) {
      run_pg_admin_sql("DROP DATABASE IF EXISTS \"" + m_database + "\" WITH (FORCE)");
    }
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
  }
  const std::filesystem::path& path() const { return m_path; }
  std::filesystem::path operator/(const std::string& name) const { return m_path / name; }
  // mkdtemp's suffix: letters and digits, unique among live directories (for names of
  // databases and roles on the test server).
  std::string suffix() const { return m_path.filename().string().substr(19); }

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
  std::filesystem::path m_path;
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
