// Each native case in a forked child: a crash, an abort or a hang ends only that case. A fork,
// not process::Child: the child runs this process's code (the case) and execs nothing.
//
// The child measures and writes newline-ended messages on a pipe: `P {phase}` as it goes,
// then `R {measurement}` or `E {"message": …}`. The parent reads them until end of file or
// the case's deadline, then reaps the child; whatever the child did not report is a failure.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <benchledger/error.hpp>

#include "engine/clock.hpp"
#include "engine/native.hpp"
#include "engine/spawn_protocol.hpp"
#include "engine/stop_signals.hpp"
#include "model/output_tail.hpp"
#include "process/process.hpp"
#include "process/spawn_core.hpp"

namespace benchledger::engine {

namespace {

nlohmann::json to_json(const CaseMeasurement& m) {
  nlohmann::json j;
  j["time_ns"] = m.time_ns;
  j["throughput"] = m.throughput;
  if (m.latency) {
    const LatencySummary& l = *m.latency;
    j["latency"] = {{"n", l.n},     {"mean", l.mean}, {"stddev", l.stddev}, {"min", l.min},
                    {"max", l.max}, {"p50", l.p50},   {"p90", l.p90},       {"p95", l.p95},
                    {"p99", l.p99}, {"p999", l.p999}};
  }
  j["items_per_op"] = m.items_per_op;
  j["ops"] = m.ops;
  j["errors"] = m.errors;
  j["error_codes"] = m.error_codes;
  j["ops_per_repetition"] = m.ops_per_repetition;
  if (m.peak_rss_bytes) j["peak_rss_bytes"] = *m.peak_rss_bytes;
  j["warnings"] = m.warnings;
  return j;
}

CaseMeasurement measurement_from_json(const nlohmann::json& j) {
  CaseMeasurement m;
  m.time_ns = j.at("time_ns").get<std::vector<double>>();
  m.throughput = j.at("throughput").get<std::vector<double>>();
  if (j.contains("latency")) {
    const auto& l = j.at("latency");
    LatencySummary s;
    s.n = l.at("n").get<std::int64_t>();
    s.mean = l.at("mean").get<double>();
    s.stddev = l.at("stddev").get<double>();
    s.min = l.at("min").get<double>();
    s.max = l.at("max").get<double>();
    s.p50 = l.at("p50").get<double>();
    s.p90 = l.at("p90").get<double>();
    s.p95 = l.at("p95").get<double>();
    s.p99 = l.at("p99").get<double>();
    s.p999 = l.at("p999").get<double>();
    m.latency = s;
  }
  m.items_per_op = j.at("items_per_op").get<double>();
  m.ops = j.at("ops").get<std::int64_t>();
  m.errors = j.at("errors").get<std::int64_t>();
  m.error_codes = j.at("error_codes").get<std::map<std::string, std::int64_t>>();
  m.ops_per_repetition = j.at("ops_per_repetition").get<std::int64_t>();
  if (j.contains("peak_rss_bytes")) m.peak_rss_bytes = j.at("peak_rss_bytes").get<std::int64_t>();
  m.warnings = j.at("warnings").get<std::vector<std::string>>();
  return m;
}

// Writes all of `line` or gives up silently: a parent that went away reads nothing anyway.
void write_all(int fd, std::string_view line) {
  std::ignore = write_exact(fd, line.data(), line.size());
}

[[noreturn]] void child_main(const NativeCase& c, int fd, bool redirect_stdout, pid_t parent) {
  // First: a stop signal that `run` passes on ends the case, as it would without `run`'s handler.
  restore_stop_signals_in_child();
  std::ignore = ::setpgid(0, 0);
  // Its own process group keeps a Ctrl-C meant for `run` from reaching the case half-way;
  // so that an interrupted `run` leaves no case behind, the case dies with it.
  std::ignore = ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);  // the parent died before prctl took effect
  if (redirect_stdout) std::ignore = ::dup2(STDERR_FILENO, STDOUT_FILENO);
  const PhaseSink sink = [fd](const CasePhase& p) {
    const nlohmann::json j = {
        {"phase", p.phase}, {"done", p.done}, {"total", p.total}, {"last", p.last_repetition_s}};
    write_all(fd, "P " + j.dump() + "\n");
  };
  try {
    const CaseMeasurement m = measure_case(c, sink);
    write_all(fd, "R " + to_json(m).dump() + "\n");
  } catch (const std::exception& e) {
    write_all(fd, "E " + nlohmann::json{{"message", e.what()}}.dump() + "\n");
  } catch (...) {
    write_all(
        fd, "E " + nlohmann::json{{"message", "an exception that is not a std::exception"}}.dump() +
                "\n");
  }
  std::cout.flush();
  std::fflush(nullptr);
  // _exit: the parent's static objects and atexit handlers belong to the parent.
  ::_exit(0);
}

}  // namespace

CaseOutcome run_case_isolated(const NativeCase& c, const PhaseSink& sink, bool redirect_stdout,
                              int output_fd) {
  int fds[2], errs[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw Error(
        fmt::format("cannot run case \"{}\": pipe: {}", c.display_name(), std::strerror(errno)));
  }
  if (::pipe2(errs, O_CLOEXEC) != 0) {
    const int error = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    throw Error(
        fmt::format("cannot run case \"{}\": pipe: {}", c.display_name(), std::strerror(error)));
  }
  std::cout.flush();
  std::fflush(nullptr);
  const std::int64_t start = now_ns();
  const pid_t parent = ::getpid();
  const bool stopped_before = stop_signal() != 0;
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    for (const int fd : {fds[0], fds[1], errs[0], errs[1]}) ::close(fd);
    throw Error(
        fmt::format("cannot run case \"{}\": fork: {}", c.display_name(), std::strerror(error)));
  }
  if (pid == 0) {
    ::close(fds[0]);
    ::close(errs[0]);
    std::ignore = ::dup2(errs[1], STDERR_FILENO);  // dup2's copy is not close-on-exec
    child_main(c, fds[1], redirect_stdout, parent);
  }
  std::ignore = ::setpgid(pid, pid);  // also done by the child; whichever runs first wins
  ::close(fds[1]);
  ::close(errs[1]);
  std::optional<StopTarget> stop_target(std::in_place, -pid, stopped_before);

  const auto deadline = start + static_cast<std::int64_t>(c.timeout * 1e9);
  std::string buffer;
  // The end of the case's stderr, twice what output_tail keeps so that the tail starts at a line.
  std::string stderr_end;
  const auto pass_on_stderr = [&](const char* bytes, std::size_t n) {
    write_all(output_fd, std::string_view(bytes, n));
    stderr_end.append(bytes, n);
    if (stderr_end.size() > 2 * model::k_tail_bytes) {
      stderr_end.erase(0, stderr_end.size() - 2 * model::k_tail_bytes);
    }
  };
  std::optional<CaseMeasurement> measurement;
  std::optional<std::string> reported_error;
  std::string protocol_problem;
  bool timed_out = false;
  char chunk[65536];
  pollfd polled[2] = {{fds[0], POLLIN, 0}, {errs[0], POLLIN, 0}};
  while (true) {
    const std::int64_t left_ns = deadline - now_ns();
    if (left_ns <= 0) {
      timed_out = true;
      break;
    }
    const int ready =
        ::poll(polled, 2, static_cast<int>(std::min<std::int64_t>(left_ns / 1000000 + 1, 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    if (polled[1].revents != 0) {
      const ssize_t n = ::read(errs[0], chunk, sizeof chunk);
      if (n > 0) {
        pass_on_stderr(chunk, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        polled[1].fd = -1;  // end of file: poll skips it from here on
      }
    }
    if (polled[0].revents == 0) continue;
    const ssize_t n = ::read(fds[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // end of file: the child exited (or closed the pipe)
    buffer.append(chunk, static_cast<std::size_t>(n));
    std::size_t newline;
    while ((newline = buffer.find('\n')) != std::string::npos) {
      const std::string line = buffer.substr(0, newline);
      buffer.erase(0, newline + 1);
      if (line.size() < 2) continue;
      try {
        const nlohmann::json j = nlohmann::json::parse(line.substr(2));
        if (line[0] == 'P' && sink) {
          sink(CasePhase{j.at("phase").get<std::string>(), j.at("done").get<int>(),
                         j.at("total").get<int>(), j.at("last").get<double>()});
        } else if (line[0] == 'R') {
          measurement = measurement_from_json(j);
        } else if (line[0] == 'E') {
          reported_error = j.at("message").get<std::string>();
        }
      } catch (const std::exception& e) {
        protocol_problem = std::string("unreadable message from the case's process: ") + e.what();
      }
    }
  }
  if (timed_out) {
    std::ignore = ::kill(-pid, SIGKILL);
    std::ignore = ::kill(pid, SIGKILL);
  }
  ::close(fds[0]);
  stop_target.reset();  // before the group can go with its leader
  int status = 0;
  // The one wait (process/spawn_core.hpp): a failed wait leaves the case's end unknown, never a
  // made-up exit 0.
  const int wait_error = process::reap_child(pid, &status, nullptr);
  // What the case wrote last, up to its end: a process it left running that still holds the
  // pipe must not keep the run waiting, so only what is there already.
  if (polled[1].fd >= 0 && ::fcntl(errs[0], F_SETFL, O_NONBLOCK) == 0) {
    for (ssize_t n; (n = ::read(errs[0], chunk, sizeof chunk)) > 0 || (n < 0 && errno == EINTR);) {
      if (n > 0) pass_on_stderr(chunk, static_cast<std::size_t>(n));
    }
  }
  ::close(errs[0]);
  CaseOutcome outcome;
  outcome.seconds = static_cast<double>(now_ns() - start) / 1e9;
  const std::string output = model::output_tail(stderr_end);
  if (wait_error != 0) {
    outcome.failure = CaseFailure{
        "error", fmt::format("cannot wait for the case's process: {}", std::strerror(wait_error)),
        output};
  } else if (timed_out) {
    outcome.failure = CaseFailure{
        "timeout", fmt::format("still running after its time limit of {} s; killed", c.timeout),
        output};
  } else if (WIFSIGNALED(status)) {
    outcome.failure = CaseFailure{
        "crashed", "killed by signal " + process::signal_name(WTERMSIG(status)), output};
  } else if (reported_error) {
    outcome.failure = CaseFailure{"error", *reported_error, output};
  } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    outcome.failure = CaseFailure{
        "crashed",
        fmt::format("exited with status {} before reporting a measurement", WEXITSTATUS(status)),
        output};
  } else if (!measurement) {
    outcome.failure = CaseFailure{
        "crashed",
        protocol_problem.empty() ? "ended without reporting a measurement" : protocol_problem,
        output};
  } else {
    outcome.measurement = std::move(measurement);
  }
  return outcome;
}

CaseOutcome run_case_in_process(const NativeCase& c, const PhaseSink& sink) {
  const std::int64_t start = now_ns();
  CaseOutcome outcome;
  try {
    outcome.measurement = measure_case(c, sink);
  } catch (const std::exception& e) {
    outcome.failure = CaseFailure{"error", e.what()};
  }
  outcome.seconds = static_cast<double>(now_ns() - start) / 1e9;
  return outcome;
}

}  // namespace benchledger::engine
