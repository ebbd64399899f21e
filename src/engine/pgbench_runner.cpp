#include "engine/pgbench_runner.hpp"

#include <libpq-fe.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <system_error>
#include <tuple>

#include <fmt/format.h>

#include <benchledger/error.hpp>

#include "engine/stop_signals.hpp"
#include "engine/throwaway_postgres.hpp"
#include "model/output_tail.hpp"
#include "model/redact.hpp"
#include "process/process.hpp"
#include "process/temp_dir.hpp"

namespace benchledger::engine {

namespace {

// Runs argv in a process group of its own with stdout and stderr into `out_path` and
// `err_path`, with `env` added to this process's environment. Past `timeout_s` the whole group
// is killed; a stop signal is passed on to it (engine/stop_signals.hpp) and throws Stopped once
// it has ended.
process::Exit run_into(const std::vector<std::string>& argv, const std::filesystem::path& out_path,
                       const std::filesystem::path& err_path, double timeout_s,
                       const std::vector<std::string>& env = {}) {
  process::Spec spec;
  spec.argv = argv;
  spec.env = env;
  spec.timeout_s = timeout_s;
  spec.out = process::Stream::to_file(out_path, false);
  spec.err = process::Stream::to_file(err_path, false);
  process::Exit ended = run_passing_stops(spec);
  throw_if_stopped();  // pgbench ended by the signal: not a failure of pgbench's
  return ended;
}

// The server's connection string for pgbench's command line, which any local user can read in
// /proc while it runs: the DSN's settings as `keyword='value'` pairs without the password, which
// goes to pgbench as PGPASSWORD in its environment instead.
struct PgbenchServer {
  std::string conninfo;
  std::vector<std::string> env;
};

PgbenchServer pgbench_server(const std::string& dsn) {
  char* message = nullptr;
  PQconninfoOption* options = ::PQconninfoParse(dsn.c_str(), &message);
  if (options == nullptr) {
    const std::string why = message != nullptr ? message : "out of memory";
    ::PQfreemem(message);
    throw Error("--pg " + model::redact_secrets(dsn) + ": " + why);
  }
  PgbenchServer server;
  for (const PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
    if (o->val == nullptr || *o->val == '\0') continue;
    if (std::string_view(o->keyword) == "password") {
      server.env.push_back(std::string("PGPASSWORD=") + o->val);
      continue;
    }
    std::string quoted;
    for (const char* c = o->val; *c != '\0'; ++c) {
      if (*c == '\\' || *c == '\'') quoted += '\\';
      quoted += *c;
    }
    if (!server.conninfo.empty()) server.conninfo += ' ';
    server.conninfo += fmt::format("{}='{}'", o->keyword, quoted);
  }
  ::PQconninfoFree(options);
  return server;
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// pgbench's last lines, for an error message (credentials hidden: model/output_tail.hpp).
std::string last_lines(const std::filesystem::path& path) {
  const std::string tail = model::file_tail(path, 3, " | ");
  return tail.empty() ? "no output" : tail;
}

}  // namespace

std::filesystem::path pgbench_program() {
  if (const auto bin = postgres_server_binaries()) {
    if (auto found = process::find_program("pgbench", {*bin})) return *found;
  }
  if (auto found = process::find_program("pgbench")) return *found;
  throw Error(
      "--pgbench: no pgbench found: install it (Debian: apt-get install postgresql-contrib "
      "or postgresql)");
}

std::vector<std::string> split_pgbench_args(const std::string& text) {
  if (text.find_first_of("'\"\\") != std::string::npos) {
    throw Error("--pgbench \"" + model::redact_secrets(text) +
                "\": quotes and backslashes are not taken: put such statements in a script "
                "file and pass -f FILE");
  }
  std::vector<std::string> args;
  std::istringstream in(text);
  for (std::string word; in >> word;) args.push_back(word);
  static const std::vector<std::string> owned = {"-c", "--client", "-j",          "--jobs",
                                                 "-s", "--scale",  "-i",          "--initialize",
                                                 "-l", "--log",    "--log-prefix"};
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const std::string flag = arg.substr(0, arg.find('='));
    const bool short_with_value =
        flag.size() > 2 && flag[0] == '-' && flag[1] != '-' &&
        std::find(owned.begin(), owned.end(), flag.substr(0, 2)) != owned.end();
    if (std::find(owned.begin(), owned.end(), flag) != owned.end() || short_with_value) {
      throw Error("--pgbench: " + model::redact_secrets(arg) +
                  " is set by the run: give clients, jobs and scale with --param clients=…, "
                  "jobs=…, scale=… (the -l logs are always kept)");
    }
    if (arg[0] != '-' &&
        (i == 0 || args[i - 1][0] != '-' || args[i - 1].find('=') != std::string::npos)) {
      throw Error("--pgbench: \"" + model::redact_secrets(arg) +
                  "\" looks like a database: the server is --pg (or BENCHLEDGER_PG)");
    }
  }
  return args;
}

void initialise_pgbench(const std::string& dsn, std::int64_t scale, double timeout_s) {
  const process::TempDir dir("benchledger-pgbench", "pgbench's output");
  const PgbenchServer server = pgbench_server(dsn);
  const process::Exit ended = run_into(
      {pgbench_program().string(), "-i", "-q", "-s", std::to_string(scale), server.conninfo},
      dir.path() / "out", dir.path() / "err", timeout_s, server.env);
  if (ended.timed_out) {
    throw Error(
        fmt::format("pgbench -i -s {} did not finish within {} s (--timeout) and was killed: {}",
                    scale, timeout_s, last_lines(dir.path() / "err")));
  }
  if (ended.exit_code != 0) {
    throw Error(fmt::format("pgbench -i -s {} failed (exit status {}): {}", scale,
                            ended.exit_code.value_or(-1), last_lines(dir.path() / "err")));
  }
}

PgbenchOutput run_pgbench(const std::string& dsn, std::int64_t clients, std::int64_t jobs,
                          const std::vector<std::string>& args, double timeout_s) {
  const process::TempDir dir("benchledger-pgbench", "pgbench's output");
  std::vector<std::string> argv = {pgbench_program().string(), "-c", std::to_string(clients), "-j",
                                   std::to_string(jobs)};
  argv.insert(argv.end(), args.begin(), args.end());
  const bool progress = std::any_of(args.begin(), args.end(), [](const std::string& a) {
    return a.rfind("-P", 0) == 0 || a.rfind("--progress", 0) == 0;
  });
  if (!progress) argv.insert(argv.end(), {"-P", "1"});
  const PgbenchServer server = pgbench_server(dsn);
  argv.insert(argv.end(),
              {"-l", "--log-prefix", (dir.path() / "pgbench_log").string(), server.conninfo});
  const process::Exit ended =
      run_into(argv, dir.path() / "stdout", dir.path() / "stderr", timeout_s, server.env);
  PgbenchOutput out;
  if (ended.timed_out) {
    out.failure = CaseFailure{
        "timeout", fmt::format("pgbench -c {} -j {} still running after its time limit of {} s "
                               "(--timeout); killed with its process group",
                               clients, jobs, timeout_s)};
    return out;
  }
  out.output = read_text(dir.path() / "stdout") + read_text(dir.path() / "stderr");
  if (ended.exit_code != 0) {
    throw Error(fmt::format("pgbench -c {} -j {} failed (exit status {}): {}", clients, jobs,
                            ended.exit_code.value_or(-1), last_lines(dir.path() / "stderr")));
  }
  std::vector<std::filesystem::path> logs;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    if (entry.path().filename().string().rfind("pgbench_log.", 0) == 0)
      logs.push_back(entry.path());
  }
  std::sort(logs.begin(), logs.end());
  for (const auto& log : logs) out.logs.emplace_back(log.filename().string(), read_text(log));
  return out;
}

}  // namespace benchledger::engine
