// SIGINT and SIGTERM during `benchledger run` leave nothing behind: the throwaway PostgreSQL is
// stopped and its folder removed (during initdb, while a case measures, after the append), as are
// pgbench's and callgrind's folders, no child outlives the run, and the run ends by the signal;
// a pgbench still running past --timeout is killed and recorded as a timeout of its case.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "run_support.hpp"
#include "support/postgres.hpp"

using namespace benchledger::run_test;
using benchledger::test_support::ProcessOptions;
using benchledger::test_support::ScratchDir;
using nlohmann::json;

namespace {

// The pid and command line of every process whose command line or working directory names one
// of `dirs` (this test excluded): what a run left running.
std::vector<std::string> processes_in(const std::vector<std::filesystem::path>& dirs) {
  std::vector<std::string> found;
  const std::string self = std::to_string(::getpid());
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ignored)) {
    const std::string pid = entry.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos || pid == self) continue;
    std::string cmdline = read_file(entry.path() / "cmdline");
    for (char& c : cmdline) c = c == '\0' ? ' ' : c;
    std::error_code error;
    const std::string cwd = std::filesystem::read_symlink(entry.path() / "cwd", error).string();
    for (const auto& dir : dirs) {
      if (cmdline.find(dir.string()) != std::string::npos || cwd.rfind(dir.string(), 0) == 0) {
        found.push_back(pid + " " + cmdline);
        break;
      }
    }
  }
  return found;
}

std::size_t count_containing(const std::vector<std::string>& processes, const std::string& text) {
  std::size_t n = 0;
  for (const std::string& p : processes) n += p.find(text) != std::string::npos ? 1 : 0;
  return n;
}

// What a run stopped by a signal left: how it ended, and what its TMPDIR and the process table
// still hold.
struct Stopped {
  int status = 0;
  std::vector<std::string> left_in_tmpdir;
  std::vector<std::string> left_running;
  std::string err;
};

// A `benchledger run` with TMPDIR a scratch folder of its own (and its working directory
// another, which holds the ledger and its output), to be stopped by a signal.
class StoppableRun {
 public:
  // `stdout_path`: where stdout goes instead of the output file.
  explicit StoppableRun(const std::vector<std::string>& args,
                        const std::vector<std::string>& env = {},
                        const std::string& stdout_path = "") {
    // The throwaway server runs as the postgres user, which must enter TMPDIR (mkdtemp's is
    // 0700).
    ::chmod(m_tmp.path().c_str(), 0711);
    ProcessOptions options;
    options.env = {"TMPDIR=" + m_tmp.path().string(), "BENCHLEDGER_PG="};
    options.env.insert(options.env.end(), env.begin(), env.end());
    options.cwd = m_files.path().string();
    options.stdout_path = options.stderr_path = (m_files / "output").string();
    std::ofstream(options.stdout_path).flush();  // opened for writing, not created, by spawn
    if (!stdout_path.empty()) options.stdout_path = stdout_path;
    std::vector<std::string> argv = {cli(), "run", "--ledger", ledger().string()};
    argv.insert(argv.end(), args.begin(), args.end());
    // A test started in the background of a script inherits SIGINT ignored, which run keeps
    // ignoring (as `nohup` asks); a Ctrl-C is what this test sends.
    ::signal(SIGINT, SIG_DFL);
    m_pid = benchledger::test_support::spawn(argv, options).pid;
  }
  ~StoppableRun() {
    if (m_pid > 0) {
      ::kill(m_pid, SIGKILL);
      ::waitpid(m_pid, nullptr, 0);
    }
  }
  StoppableRun(const StoppableRun&) = delete;
  StoppableRun& operator=(const StoppableRun&) = delete;

  std::filesystem::path ledger() const { return m_files / "ledger.ndjson"; }
  const std::filesystem::path& tmpdir() const { return m_tmp.path(); }
  std::vector<std::string> processes() const {
    return processes_in({m_tmp.path(), m_files.path()});
  }

  // Waits until `ready` (given the processes of the run) holds, sends `signal`, calls
  // `after_signal`, waits for the run to end and says what it left. Fails the test when the run
  // ended before `ready` held.
  Stopped stop_when(const std::function<bool(const std::vector<std::string>&)>& ready, int signal,
                    const std::function<void()>& after_signal = {}) {
    int status = 0;
    bool exited = false;
    const bool reached = poll_until([&] {
      exited = ::waitpid(m_pid, &status, WNOHANG) == m_pid;
      return exited || ready(processes());
    });
    INFO(read_file(m_files / "output"));
    REQUIRE(!exited);
    REQUIRE(reached);
    ::kill(m_pid, signal);
    if (after_signal) after_signal();
    Stopped stopped;
    REQUIRE(poll_until([&] { return ::waitpid(m_pid, &stopped.status, WNOHANG) == m_pid; }));
    m_pid = -1;
    // A process the run left behind would show here (a server's shutdown is awaited by the run).
    stopped.left_running = processes();
    for (const auto& entry : std::filesystem::directory_iterator(m_tmp.path()))
      stopped.left_in_tmpdir.push_back(entry.path().filename().string());
    stopped.err = read_file(m_files / "output");
    return stopped;
  }

 private:
  ScratchDir m_tmp;    // the run's TMPDIR: it must be empty afterwards
  ScratchDir m_files;  // its working directory, with the ledger and the run's output
  pid_t m_pid = -1;
};

void check_ended_by(const Stopped& stopped, int signal) {
  INFO(stopped.err);
  CHECK(WIFSIGNALED(stopped.status));
  if (WIFSIGNALED(stopped.status)) CHECK(WTERMSIG(stopped.status) == signal);
  for (const std::string& left : stopped.left_in_tmpdir) UNSCOPED_INFO("left in TMPDIR: " << left);
  CHECK(stopped.left_in_tmpdir.empty());
  for (const std::string& left : stopped.left_running) UNSCOPED_INFO("left running: " << left);
  CHECK(stopped.left_running.empty());
  CHECK_THAT(stopped.err, Catch::Contains("run: stopped by signal " + std::to_string(signal)));
}

// The postgres suite's pool case, `repetitions` of it: 1000 last until a signal ends them.
std::vector<std::string> suite_args(int repetitions) {
  return {"--suite",       "postgres",
          "--filter",      "select1_pool",
          "--warmup",      "0",
          "--repetitions", std::to_string(repetitions),
          "--param",       "concurrency=2"};
}

// The PostgreSQL server binaries, where the throwaway server finds them.
std::filesystem::path server_binaries() {
  for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/postgresql")) {
    if (std::filesystem::exists(entry.path() / "bin/initdb")) return entry.path() / "bin";
  }
  FAIL("no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)");
  return {};
}

}  // namespace

TEST_CASE("SIGINT during initdb removes the throwaway server's folder and ends the run") {
  // An initdb that has made the whole data folder and then waits, as a slow one would, so that
  // the signal comes while it runs: PG_BIN points the run at it (and the real postgres).
  ScratchDir bin;
  ::chmod(bin.path().c_str(), 0755);
  const std::filesystem::path real = server_binaries();
  std::filesystem::create_symlink(real / "postgres", bin / "postgres");
  {
    std::ofstream script(bin / "initdb");
    script << "#!/bin/sh\n"
           << real.string() << "/initdb \"$@\" || exit 1\n"
           << "echo initdb-done\n"
           << "while :; do sleep 1; done\n";
  }
  ::chmod((bin / "initdb").c_str(), 0755);
  StoppableRun run(suite_args(1000), {"PG_BIN=" + bin.path().string()});
  const Stopped stopped = run.stop_when(
      [&](const std::vector<std::string>&) {
        for (const auto& entry : std::filesystem::directory_iterator(run.tmpdir())) {
          if (read_file(entry.path() / "initdb.log").find("initdb-done") != std::string::npos)
            return true;
        }
        return false;
      },
      SIGINT);
  check_ended_by(stopped, SIGINT);
  CHECK_THAT(stopped.err, Catch::Contains("nothing was appended"));
  CHECK_FALSE(std::filesystem::exists(run.ledger()));
}

TEST_CASE("SIGTERM while a case measures against the throwaway server stops it and removes all") {
  StoppableRun run(suite_args(1000));
  // The server is up and the case's own process (a second benchledger) is measuring.
  const Stopped stopped = run.stop_when(
      [&](const std::vector<std::string>& processes) {
        return count_containing(processes, "bin/postgres -D") == 1 &&
               count_containing(processes, run.ledger().string()) == 2;
      },
      SIGTERM);
  check_ended_by(stopped, SIGTERM);
  CHECK_FALSE(std::filesystem::exists(run.ledger()));
}

TEST_CASE("SIGINT after the append stops the throwaway server and keeps the run appended") {
  // stdout is a pipe the test has filled and never reads: the run blocks in its first write,
  // the summary it prints after appending, with the server still up.
  int fds[2];
  REQUIRE(::pipe2(fds, O_CLOEXEC | O_NONBLOCK) == 0);
  const std::string chunk(4096, 'x');
  while (::write(fds[1], chunk.data(), chunk.size()) > 0) {
  }
  StoppableRun run(suite_args(2), {}, "/proc/self/fd/" + std::to_string(fds[1]));
  ::close(fds[1]);
  const Stopped stopped = run.stop_when(
      [&](const std::vector<std::string>& processes) {
        return count_containing(processes, "bin/postgres -D") == 1 &&
               !read_file(run.ledger()).empty();
      },
      SIGINT,
      [&] {
        // The summary may go now: read the pipe to its end (the run's exit closes it).
        char buffer[65536];
        CHECK(poll_until([&] { return ::read(fds[0], buffer, sizeof buffer) == 0; }));
        ::close(fds[0]);
      });
  check_ended_by(stopped, SIGINT);
  CHECK_THAT(stopped.err, Catch::Contains("the run was appended"));
  CHECK(results_of(read_ledger(run.ledger())).size() == 1);
}

TEST_CASE("SIGTERM during pgbench against a throwaway server leaves no pgbench and no folder") {
  StoppableRun run({"--pgbench", "-T 600 -S", "--param", "clients=1"});
  const Stopped stopped = run.stop_when(
      [](const std::vector<std::string>& processes) {
        return count_containing(processes, "bin/pgbench ") == 1 &&
               count_containing(processes, "--log-prefix") == 1;
      },
      SIGTERM);
  check_ended_by(stopped, SIGTERM);
}

TEST_CASE("SIGINT while callgrind counts a command leaves no callgrind folder and no vgdb FIFO") {
  StoppableRun run({"--measure", "instructions:valgrind", "--runs", "1", "--warmup", "0", "--",
                    "/bin/sh", "-c", "while :; do sleep 1; done"});
  const Stopped stopped = run.stop_when(
      [](const std::vector<std::string>& processes) {
        // The shell and a `sleep` it started, both under Valgrind: past Valgrind's start-up,
        // where it would make its vgdb FIFOs.
        return count_containing(processes, "--tool=callgrind") >= 2;
      },
      SIGINT);
  check_ended_by(stopped, SIGINT);
  CHECK_THAT(stopped.err, Catch::Contains("nothing was appended"));
}

TEST_CASE(
    "a count ended by a signal removes the start-up file of a Valgrind it killed, only that") {
  // A Valgrind ended in its first moments leaves the `valgrind_proc_<pid>_cmdline_*` file it
  // makes and unlinks at start-up; which start-up a signal meets cannot be chosen, so this test
  // plants the files such a Valgrind leaves, once the count runs: one of a process that is gone
  // (removed), one of a live process and one from before the count (both kept).
  StoppableRun run({"--measure", "instructions:valgrind", "--runs", "1", "--warmup", "0", "--",
                    "/bin/sh", "-c", "while :; do sleep 1; done"});
  const pid_t gone = benchledger::test_support::spawn({"true"}, {}).pid;
  ::waitpid(gone, nullptr, 0);
  const std::string orphan = "valgrind_proc_" + std::to_string(gone) + "_cmdline_0badf00d";
  const std::string live = "valgrind_proc_" + std::to_string(::getpid()) + "_cmdline_0badf00d";
  const std::string older = "valgrind_proc_" + std::to_string(gone) + "_auxv_0badf00d";
  const Stopped stopped = run.stop_when(
      [&](const std::vector<std::string>& processes) {
        if (count_containing(processes, "--tool=callgrind") < 2) return false;
        for (const std::string& name : {orphan, live, older}) std::ofstream(run.tmpdir() / name);
        const auto hour_ago = std::filesystem::file_time_type::clock::now() - std::chrono::hours(1);
        std::filesystem::last_write_time(run.tmpdir() / older, hour_ago);
        return true;
      },
      SIGINT);
  INFO(stopped.err);
  CHECK(WIFSIGNALED(stopped.status));
  std::vector<std::string> left = stopped.left_in_tmpdir, kept = {older, live};
  std::sort(left.begin(), left.end());
  std::sort(kept.begin(), kept.end());
  CHECK(left == kept);
}

TEST_CASE("SIGINT while callgrind counts a native case leaves no folder and no Valgrind") {
  // The case is counted by this program re-executed under callgrind, through benchledger-spawn;
  // a thousand repetitions keep it counting for many seconds. The signal comes two seconds after
  // Valgrind appears: one sent in Valgrind's first moments can be lost (docs/engine.md).
  StoppableRun run({"--suite", "executors", "--measure", "instructions:valgrind", "--repetitions",
                    "1000", "--warmup", "0"});
  std::optional<std::chrono::steady_clock::time_point> seen;
  const Stopped stopped = run.stop_when(
      [&](const std::vector<std::string>& processes) {
        if (count_containing(processes, "--collect-atstart=no") == 0) return false;
        if (!seen) seen = std::chrono::steady_clock::now();
        return std::chrono::steady_clock::now() - *seen >= std::chrono::seconds(2);
      },
      SIGINT);
  check_ended_by(stopped, SIGINT);
}

TEST_CASE("a pgbench still running past --timeout is recorded as a timeout of its case") {
  // A database of its own: pgbench's initialisation drops and makes its tables, and other tests
  // run pgbench on the same server at the same time.
  benchledger::test_support::PgScratchDir dir;
  const std::string dsn = dir.pg_uri();
  // Every transaction waits for an hour: only the time limit ends pgbench. The limit also covers
  // `pgbench -i -s 1`, which takes a fraction of it.
  std::ofstream(dir / "sleep.sql") << "SELECT pg_sleep(3600);\n";
  const auto ledger = dir / "ledger.ndjson";
  const auto result =
      run_cli({"run", "--pg", dsn, "--ledger", ledger.string(), "--pgbench",
               "-f " + (dir / "sleep.sql").string() + " -T 3600", "--timeout", "5"});
  INFO(result.err);
  CHECK(result.status == 1);  // a case failed
  const auto results = results_of(read_ledger(ledger));
  REQUIRE(results.size() == 1);
  const json& r = results[0];
  INFO(r.dump());
  CHECK(r["primary"] == "failed");
  CHECK(r["failure"]["kind"] == "timeout");
  CHECK(r["bench"] == "pgbench/" + (dir / "sleep.sql").string());
  CHECK(r["params"]["clients"] == 1);
  CHECK(r["params"]["query_mode"] == "simple");
  CHECK(processes_matching("bin/pgbench .*sleep.sql") == 0);
  CHECK_THAT(result.err, Catch::Contains("still running after its time limit of 5 s"));
}
