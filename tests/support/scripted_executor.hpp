// A scripted process::Executor (src/process/executor.hpp) for tests of code that starts children
// and decides by the time they take: each child's argv (and, when the script says, its working
// folder) is matched against the script of expected calls and answered with the scripted exit,
// output and times, without starting anything; the fake clock advances by each answer's wall
// time, and by each pause(), and by nothing else, so that budgets, timeouts and deadlines are
// reached in microseconds and always at the same call. A child started to run beside its caller
// (start(), a server) is scripted apart (expect_start) and records how it was stopped. Every call
// is recorded for the test to assert on; a call the script does not expect fails the test, naming
// its argv, and is answered as a program that cannot be started. Two threads (a gate's duet) may
// call it at once: the script, the calls and the clock are kept under a lock, and the clock moves
// by both threads' answers. How to script it: docs/ARCHITECTURE.md, "Scripted children".
#pragma once

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "process/executor.hpp"

namespace benchledger::test_support {

// What a scripted child does: by default it exits 0 at once, writing nothing. The setters chain:
// `Answer().prints(json).takes(1.5)`.
struct Answer {
  int exit_code = 0;
  std::optional<int> signal;  // ended by this signal instead of exiting
  std::string out, err;       // what it writes to stdout and stderr
  double wall_s = 0;          // how long it runs: the fake clock advances by this much
  double user_s = 0, sys_s = 0;
  std::int64_t max_rss_kib = 0;

  Answer& exits(int code) {
    exit_code = code;
    return *this;
  }
  Answer& killed_by(int by) {
    signal = by;
    return *this;
  }
  Answer& prints(std::string text) {
    out = std::move(text);
    return *this;
  }
  Answer& prints_to_stderr(std::string text) {
    err = std::move(text);
    return *this;
  }
  Answer& takes(double wall, double user = 0, double sys = 0) {
    wall_s = wall;
    user_s = user;
    sys_s = sys;
    return *this;
  }
  Answer& peaks_at(std::int64_t kib) {
    max_rss_kib = kib;
    return *this;
  }
};

// One expected call: its argv word for word, answered once unless times() or always() says
// otherwise; in() also requires its working folder, and_more() lets words follow the scripted
// ones (an argv that names a folder or port chosen at run time: calls() shows them).
class Expectation {
 public:
  Expectation(std::vector<std::string> argv, Answer answer, bool started)
      : m_argv(std::move(argv)), m_answer(std::move(answer)), m_started(started) {}

  Expectation& in(std::filesystem::path dir) {
    m_dir = std::move(dir);
    return *this;
  }
  Expectation& and_more() {
    m_prefix = true;
    return *this;
  }
  Expectation& times(int n) {
    m_times = n;
    return *this;
  }
  Expectation& always() {
    m_times = 0;
    return *this;
  }

 private:
  friend class ScriptedExecutor;
  std::vector<std::string> m_argv;
  std::optional<std::filesystem::path> m_dir;
  Answer m_answer;
  bool m_started;  // expect_start's: matches start(), not run()
  bool m_prefix = false;
  int m_times = 1;  // 0: as often as it comes
  int m_used = 0;

  bool matches(const process::Spec& spec, bool started) const {
    const bool argv_matches = m_prefix
                                  ? spec.argv.size() >= m_argv.size() &&
                                        std::equal(m_argv.begin(), m_argv.end(), spec.argv.begin())
                                  : spec.argv == m_argv;
    return m_started == started && (m_times == 0 || m_used < m_times) && argv_matches &&
           (!m_dir || (spec.dir && *m_dir == *spec.dir));
  }
};

// One call as the fake saw it.
struct Call {
  std::vector<std::string> argv;
  std::optional<std::filesystem::path> dir;
  std::optional<double> timeout_s;
  std::int64_t started_ns = 0;    // on the fake clock
  bool started = false;           // by start(): it ran beside its caller
  std::optional<int> stopped_by;  // a started child: the signal stop() sent, SIGKILL when it was
                                  // destroyed unstopped; unset while it runs
};

inline std::string describe_argv(const std::vector<std::string>& argv) {
  std::string text;
  for (const std::string& word : argv) text += (text.empty() ? "" : " ") + word;
  return text;
}

class ScriptedExecutor : public process::Executor {
 public:
  // A call takes the first expectation, in the order they were added, that matches it and has
  // answers left: the same argv expected several times gives its answers in turn. The reference
  // is for chaining (`.in(dir).times(3)`): the next expect() may move it.
  Expectation& expect(std::vector<std::string> argv, Answer answer = {}) {
    return m_script.emplace_back(std::move(argv), std::move(answer), false);
  }
  // A child that start() is to start. It runs until stopped; with an answer that takes() some
  // time, it exits (as the answer says) once the fake clock has moved that far past its start.
  Expectation& expect_start(std::vector<std::string> argv, Answer answer = {}) {
    return m_script.emplace_back(std::move(argv), std::move(answer), true);
  }

  process::Exit run(const process::Spec& spec) override {
    const std::lock_guard lock(m_mutex);
    return answer(spec, take(spec, false));
  }

  std::unique_ptr<process::Started> start(const process::Spec& spec) override {
    const std::lock_guard lock(m_mutex);
    const Answer& scripted = take(spec, true);
    std::string dropped;  // what it writes to files (a server's log) is there from its start
    bool truncated = false;
    deliver(spec.out, scripted.out, dropped, truncated);
    deliver(spec.err, scripted.err, dropped, truncated);
    const std::optional<std::int64_t> exits_at =
        scripted.wall_s > 0 ? std::optional(m_now_ns + ns(scripted.wall_s)) : std::nullopt;
    return std::make_unique<StartedChild>(*this, m_calls.size() - 1, exits_at);
  }

  std::int64_t now_ns() override {
    const std::lock_guard lock(m_mutex);
    return m_now_ns;
  }
  void pause(std::int64_t ns) override {
    const std::lock_guard lock(m_mutex);
    m_now_ns += ns;
  }

  const std::vector<Call>& calls() const { return m_calls; }
  const std::vector<std::string>& unexpected() const { return m_unexpected; }
  // The expectations with answers left (never those of always()), as `argv (N left)`.
  std::vector<std::string> unused() const {
    std::vector<std::string> left;
    for (const Expectation& e : m_script) {
      if (e.m_times > 0 && e.m_used < e.m_times) {
        left.push_back(describe_argv(e.m_argv) + " (" + std::to_string(e.m_times - e.m_used) +
                       " left)");
      }
    }
    return left;
  }

 private:
  // A started child as the fake keeps it: it records its stop in its call.
  class StartedChild : public process::Started {
   public:
    StartedChild(ScriptedExecutor& fake, std::size_t call, std::optional<std::int64_t> exits_at)
        : m_fake(fake), m_call(call), m_exits_at(exits_at) {}
    ~StartedChild() override { stop(SIGKILL, {}); }
    bool has_exited() override { return m_exits_at && m_fake.now_ns() >= *m_exits_at; }
    void stop(int signal, std::chrono::milliseconds) noexcept override {
      const std::lock_guard lock(m_fake.m_mutex);
      std::optional<int>& stopped_by = m_fake.m_calls[m_call].stopped_by;
      if (!stopped_by) stopped_by = signal;
    }

   private:
    ScriptedExecutor& m_fake;
    std::size_t m_call;
    std::optional<std::int64_t> m_exits_at;
  };

  static std::int64_t ns(double seconds) { return static_cast<std::int64_t>(seconds * 1e9); }

  // Records the call and takes its expectation's answer; an unexpected call fails the test and
  // throws as a program that cannot be started.
  const Answer& take(const process::Spec& spec, bool started) {
    m_calls.push_back({spec.argv, spec.dir, spec.timeout_s, m_now_ns, started, std::nullopt});
    const auto scripted = std::find_if(m_script.begin(), m_script.end(), [&](const Expectation& e) {
      return e.matches(spec, started);
    });
    if (scripted == m_script.end()) {
      const std::string what = std::string(started ? "unexpected start: " : "unexpected call: ") +
                               describe_argv(spec.argv) +
                               (spec.dir ? " (in " + spec.dir->string() + ")" : std::string());
      m_unexpected.push_back(what);
      FAIL_CHECK(what);
      throw process::SpawnError(what, ENOENT);
    }
    ++scripted->m_used;
    return scripted->m_answer;
  }

  // As process::Child would end: killed with SIGKILL at the timeout, when the answer runs
  // longer; its output delivered as the spec's streams say.
  process::Exit answer(const process::Spec& spec, const Answer& answer) {
    process::Exit exit;
    std::int64_t wall = ns(answer.wall_s);
    if (spec.timeout_s && wall > ns(*spec.timeout_s)) {
      wall = ns(*spec.timeout_s);
      exit.timed_out = true;
      exit.signal = SIGKILL;
    } else if (answer.signal) {
      exit.signal = answer.signal;
    } else {
      exit.exit_code = answer.exit_code;
    }
    m_now_ns += wall;
    exit.wall_ns = wall;
    exit.user_us = ns(answer.user_s) / 1000;
    exit.sys_us = ns(answer.sys_s) / 1000;
    exit.max_rss_kib = answer.max_rss_kib;
    deliver(spec.out, answer.out, exit.out, exit.truncated);
    deliver(spec.err, answer.err, exit.err, exit.truncated);
    if (exit.truncated && exit.exit_code) {
      exit.exit_code.reset();
      exit.signal = SIGKILL;
    }
    return exit;
  }

  // A captured stream keeps its first `limit` bytes (past them the child is killed), a tail its
  // last ones, a file is written; what goes to /dev/null, a descriptor or this process's own
  // streams is dropped.
  static void deliver(const process::Stream& stream, const std::string& text, std::string& into,
                      bool& truncated) {
    switch (stream.kind) {
      case process::Stream::Kind::capture:
        into = text.substr(0, stream.limit);
        truncated = truncated || text.size() > stream.limit;
        break;
      case process::Stream::Kind::tail:
        into = text.size() > stream.limit ? text.substr(text.size() - stream.limit) : text;
        break;
      case process::Stream::Kind::file: {
        std::ofstream file(stream.path, stream.append ? std::ios::app : std::ios::trunc);
        file << text;
        break;
      }
      default:
        break;
    }
  }

  std::mutex m_mutex;  // over the script, the calls and the clock
  std::vector<Expectation> m_script;
  std::vector<Call> m_calls;
  std::vector<std::string> m_unexpected;
  // Not 0: code that reads it as an absolute time, rather than a difference, shows.
  std::int64_t m_now_ns = 1'000'000'000'000;
};

}  // namespace benchledger::test_support
