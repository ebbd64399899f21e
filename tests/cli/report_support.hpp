// Support for the report's end-to-end tests: a scratch directory, a real ledger written through
// the Store API from the report fixtures, and child processes with captured output.
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <benchledger/ledger.hpp>

#include "unit/report/fixtures.hpp"

namespace benchledger::report::testing {

// A fresh directory under the system temp dir, removed with the object. Outside the source
// tree on purpose: no benchledger.json or git repository above it changes what the CLI does.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "benchledger-report-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    m_path = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    if (std::getenv("BENCHLEDGER_KEEP_TEST_FILES") == nullptr)
      std::filesystem::remove_all(m_path, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return m_path; }

 private:
  std::filesystem::path m_path;
};

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Outcome {
  int exit_code = -1;
  std::string out, err;
};

// Runs argv in `cwd` with stdout and stderr captured through files; waits for it.
inline Outcome run_process(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                           const std::vector<std::string>& env = {}) {
  const std::filesystem::path out_path = cwd / ".stdout", err_path = cwd / ".stderr";
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0 || ::chdir(cwd.c_str()) != 0) ::_exit(126);
    ::dup2(out, 1);
    ::dup2(err, 2);
    for (const std::string& entry : env) ::putenv(const_cast<char*>(entry.c_str()));
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
  }
  Outcome outcome;
  outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  outcome.out = read_text(out_path);
  outcome.err = read_text(err_path);
  std::filesystem::remove(out_path);
  std::filesystem::remove(err_path);
  return outcome;
}

inline std::string cli() {
  const char* bin = std::getenv("BENCHLEDGER_BIN");
  if (bin == nullptr)
    throw std::runtime_error("BENCHLEDGER_BIN is not set (run the test through ctest)");
  return bin;
}

inline Outcome run_cli(const std::vector<std::string>& args, const std::filesystem::path& cwd) {
  std::vector<std::string> argv{cli()};
  argv.insert(argv.end(), args.begin(), args.end());
  // No ledger from the environment: every test names its own.
  return run_process(argv, cwd, {"BENCHLEDGER_LEDGER=", "NO_COLOR=1"});
}

// Appends each run with its results as one batch, in the order given.
inline void write_ledger(const std::string& uri, const std::vector<RunData>& runs) {
  const auto store = ledger::open_store(uri);
  for (const RunData& data : runs) {
    std::vector<Record> batch{data.run};
    for (const ResultRecord& r : data.results) batch.emplace_back(r);
    store->append(std::move(batch));
  }
}

// The ledger most tests use: twelve older runs of the current cases, the baseline, then the
// current run, oldest first.
inline std::vector<RunData> standard_history() {
  std::vector<RunData> runs = fixtures::history_before(fixtures::current_run(), 12);
  runs.insert(runs.end() - 1, fixtures::baseline_run());
  std::stable_sort(runs.begin(), runs.end(), [](const RunData& a, const RunData& b) {
    return a.run.header.time < b.run.header.time;
  });
  return runs;
}

}  // namespace benchledger::report::testing
