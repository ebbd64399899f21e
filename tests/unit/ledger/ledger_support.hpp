// Shared by the ledger's unit and integration tests: scratch directories and records.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <benchledger/ledger.hpp>
#include <benchledger/record.hpp>

#include "model_fixtures.hpp"

namespace benchledger::testing {

// A fresh directory under /tmp, removed with everything in it when the test ends.
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
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
  }
  const std::filesystem::path& path() const { return m_path; }
  std::filesystem::path operator/(const std::string& name) const { return m_path / name; }

 private:
  std::filesystem::path m_path;
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

// Each store under test, as a URI in a scratch directory.
inline std::vector<std::string> store_uris(const ScratchDir& dir) {
  return {(dir / "ledger.ndjson").string(), "sqlite:" + (dir / "ledger.db").string()};
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
