// Helpers for the end-to-end tests of `benchledger run`: running the built binary (also on a
// pseudo-terminal), reading a ledger, validating records against the JSON Schema with
// Debian's python3-jsonschema.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/process.hpp"
#include "support/scratch_dir.hpp"

namespace benchledger::run_test {

inline std::string env_or_throw(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0')
    throw std::runtime_error(std::string(name) + " is not set (run through ctest)");
  return value;
}

inline std::string cli() {
  return env_or_throw("BENCHLEDGER_BIN");
}
inline std::filesystem::path source_dir() {
  return env_or_throw("BENCHLEDGER_SOURCE_DIR");
}
inline std::string python3() {
  const char* python = std::getenv("BENCHLEDGER_PYTHON3");
  return python != nullptr && *python != '\0' ? python : "/usr/bin/python3";
}

using Invocation = test_support::ProcessResult;

// Runs program with args in `cwd` (empty: this directory); stdout and stderr are captured, stdin
// is /dev/null and neither output is a terminal. With `stdout_path` (a device such as /dev/full),
// stdout is opened there instead and `out` stays empty.
inline Invocation run(const std::string& program, const std::vector<std::string>& args,
                      const std::filesystem::path& cwd = {}, const char* stdout_path = nullptr) {
  std::vector<std::string> argv = {program};
  argv.insert(argv.end(), args.begin(), args.end());
  test_support::ProcessOptions options;
  options.cwd = cwd.string();
  if (stdout_path != nullptr) options.stdout_path = stdout_path;
  return test_support::run_process(argv, options);
}

inline Invocation run_cli(const std::vector<std::string>& args,
                          const std::filesystem::path& cwd = {}) {
  return run(cli(), args, cwd);
}

// Runs the CLI with stderr on a pseudo-terminal `columns` wide (stdout captured): what a user at
// a terminal sees on stderr comes back in `err`.
inline Invocation run_cli_on_terminal(const std::vector<std::string>& args,
                                      unsigned short columns = 160) {
  std::vector<std::string> argv = {cli()};
  argv.insert(argv.end(), args.begin(), args.end());
  test_support::ProcessOptions options;
  options.terminal_columns = columns;
  return test_support::run_process(argv, options);
}

// Starts program with args (output to /dev/null) and returns its pid without waiting.
inline pid_t start(const std::string& program, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {program};
  argv.insert(argv.end(), args.begin(), args.end());
  test_support::ProcessOptions options;
  options.stdout_path = options.stderr_path = "/dev/null";
  return test_support::spawn(argv, options).pid;
}

// How many processes have a command line containing `text` (pgrep -f), this one excluded.
inline int processes_matching(const std::string& text) {
  const auto result = run("/usr/bin/pgrep", {"-c", "-f", text});
  return std::atoi(result.out.c_str());
}

// Polls `done` every 20 ms; false when it did not hold within two minutes, a guard that keeps a
// broken build from hanging the suite. Not a deadline to meet: a loaded machine may take
// seconds to start a process, so no assertion depends on how soon `done` holds.
inline bool poll_until(const std::function<bool()>& done) {
  for (int i = 0; i < 6000; ++i) {
    if (done()) return true;
    ::usleep(20'000);
  }
  return false;
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

inline std::vector<nlohmann::json> read_ledger(const std::filesystem::path& path) {
  std::vector<nlohmann::json> records;
  for (const std::string& line : lines_of(read_file(path)))
    records.push_back(nlohmann::json::parse(line));
  return records;
}

// The result records of a ledger, in order.
inline std::vector<nlohmann::json> results_of(const std::vector<nlohmann::json>& records) {
  std::vector<nlohmann::json> results;
  for (const auto& r : records) {
    if (r["type"] == "result") results.push_back(r);
  }
  return results;
}

// Validates every line of an NDJSON file against docs/schema/benchledger-1.json; returns the
// validator's complaints (empty when every record is valid).
inline std::string schema_problems(const std::filesystem::path& ndjson) {
  const auto script = std::filesystem::temp_directory_path() /
                      ("benchledger-schema-" + std::to_string(::getpid()) + ".py");
  std::ofstream(script)
      << "import json, sys, jsonschema\n"
         "schema = json.load(open(sys.argv[1], encoding='utf-8'))\n"
         "validator = jsonschema.Draft202012Validator(schema)\n"
         "problems = []\n"
         "count = 0\n"
         "for number, line in enumerate(open(sys.argv[2], encoding='utf-8'), 1):\n"
         "    count += 1\n"
         "    for e in validator.iter_errors(json.loads(line)):\n"
         "        problems.append(f'line {number}: {\"/\".join(map(str, e.path))}: {e.message}')\n"
         "if count == 0: problems.append('no records')\n"
         "print('\\n'.join(problems))\n";
  const auto result =
      run(python3(), {script.string(), (source_dir() / "docs/schema/benchledger-1.json").string(),
                      ndjson.string()});
  std::filesystem::remove(script);
  if (result.status != 0) return "the validator failed: " + result.err;
  std::string text = result.out;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

using test_support::ScratchDir;

}  // namespace benchledger::run_test
