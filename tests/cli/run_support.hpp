// Helpers for the end-to-end tests of `benchledger run`: running the built binary (also on a
// pseudo-terminal), reading a ledger, validating records against the JSON Schema with
// Debian's python3-jsonschema.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

extern char** environ;

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

struct Invocation {
  int status = -1;  // exit status; 128 + signal when killed
  std::string out, err;
  double seconds = 0;
};

// Reads fd to end of file into text.
inline void drain(int fd, std::string& text) {
  char buffer[65536];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
}

inline int status_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// Runs program with args in `cwd` (empty: this directory); stdout and stderr go to files read
// afterwards, stdin is /dev/null and neither output is a terminal. With `stdout_path` (a device
// such as /dev/full), stdout is opened there instead and `out` stays empty.
inline Invocation run(const std::string& program, const std::vector<std::string>& args,
                      const std::filesystem::path& cwd = {}, const char* stdout_path = nullptr) {
  char out_name[] = "/tmp/benchledger-run-out-XXXXXX";
  char err_name[] = "/tmp/benchledger-run-err-XXXXXX";
  const int out = ::mkstemp(out_name);
  const int err = ::mkstemp(err_name);
  std::vector<std::string> all = {program};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  ::posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  if (stdout_path != nullptr) {
    ::posix_spawn_file_actions_addopen(&actions, 1, stdout_path, O_WRONLY, 0);
  } else {
    ::posix_spawn_file_actions_adddup2(&actions, out, 1);
  }
  ::posix_spawn_file_actions_adddup2(&actions, err, 2);
  if (!cwd.empty()) ::posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int error = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  ::posix_spawn_file_actions_destroy(&actions);
  if (error != 0) throw std::runtime_error("cannot run " + program);
  int status = 0;
  ::waitpid(pid, &status, 0);
  Invocation result;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.status = status_of(status);
  ::lseek(out, 0, SEEK_SET);
  ::lseek(err, 0, SEEK_SET);
  drain(out, result.out);
  drain(err, result.err);
  ::close(out);
  ::close(err);
  ::unlink(out_name);
  ::unlink(err_name);
  return result;
}

inline Invocation run_cli(const std::vector<std::string>& args,
                          const std::filesystem::path& cwd = {}) {
  return run(cli(), args, cwd);
}

// Runs the CLI with stderr on a pseudo-terminal `columns` wide (stdout to a file): what a
// user at a terminal sees on stderr comes back in `err`.
inline Invocation run_cli_on_terminal(const std::vector<std::string>& args,
                                      unsigned short columns = 160) {
  int master = -1, slave = -1;
  winsize size{};
  size.ws_col = columns;
  size.ws_row = 24;
  if (::openpty(&master, &slave, nullptr, nullptr, &size) != 0)
    throw std::runtime_error("openpty failed");
  char out_name[] = "/tmp/benchledger-run-out-XXXXXX";
  const int out = ::mkstemp(out_name);
  std::vector<std::string> all = {cli()};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  ::posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  ::posix_spawn_file_actions_adddup2(&actions, out, 1);
  ::posix_spawn_file_actions_adddup2(&actions, slave, 2);
  ::posix_spawn_file_actions_addclose(&actions, master);
  pid_t pid = 0;
  const int error = ::posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  ::posix_spawn_file_actions_destroy(&actions);
  ::close(slave);
  if (error != 0) throw std::runtime_error("cannot run the CLI");
  Invocation result;
  char buffer[4096];
  while (true) {
    pollfd p{master, POLLIN, 0};
    if (::poll(&p, 1, 100) > 0) {
      const ssize_t n = ::read(master, buffer, sizeof buffer);
      if (n > 0) {
        result.err.append(buffer, static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      break;  // EIO: the terminal's last writer closed it
    }
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      result.status = status_of(status);
      // Whatever is still buffered in the terminal.
      while (::poll(&p, 1, 50) > 0 && (::read(master, buffer, sizeof buffer)) > 0) {
      }
      pid = -1;
      break;
    }
  }
  if (pid > 0) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    result.status = status_of(status);
  }
  ::close(master);
  ::lseek(out, 0, SEEK_SET);
  drain(out, result.out);
  ::close(out);
  ::unlink(out_name);
  return result;
}

// Starts program with args (output to /dev/null) and returns its pid without waiting.
inline pid_t start(const std::string& program, const std::vector<std::string>& args) {
  std::vector<std::string> all = {program};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  ::posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  ::posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  ::posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int error = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  ::posix_spawn_file_actions_destroy(&actions);
  if (error != 0) throw std::runtime_error("cannot run " + program);
  return pid;
}

// How many processes have a command line containing `text` (pgrep -f), this one excluded.
inline int processes_matching(const std::string& text) {
  const auto result = run("/usr/bin/pgrep", {"-c", "-f", text});
  return std::atoi(result.out.c_str());
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

// A fresh directory, removed with the object.
class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/benchledger-run-test-XXXXXX";
    if (::mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
    m_path = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(m_path, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return m_path; }

 private:
  std::filesystem::path m_path;
};

}  // namespace benchledger::run_test
