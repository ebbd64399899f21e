// Command mode: posix_spawn (vfork-fast, no shell) from the benchledger-spawn helper, wait4
// for each run's own rusage, pidfd for the timeout; without the helper, process::Child does the
// same from here.
//
// posix_spawn rather than fork: glibc spawns with CLONE_VM | CLONE_VFORK, so no page table
// is copied and the spawn costs tens of microseconds instead of the 0.3–1.5 ms a fork of
// this process costs, time that would be counted in every run's wall time. From the helper
// rather than from here: Linux credits a process at exec with the peak of the memory map it
// leaves (the kernel's setmax_mm_hiwater_rss at exec), which for a vfork child is its parent's, and
// the helper's is about 1 MiB where benchledger's is 10+ MiB (docs/engine.md).
#include "engine/command.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include <benchledger/error.hpp>

#include "engine/clock.hpp"
#include "engine/spawn_protocol.hpp"
#include "engine/stop_signals.hpp"
#include "model/output_tail.hpp"
#include "model/redact.hpp"
#include "process/process.hpp"
#include "process/temp_dir.hpp"

namespace benchledger::engine {

namespace {

std::string join(const std::vector<std::string>& parts) {
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "" : " ") + part;
  return text;
}

}  // namespace

std::string CommandRun::failure_kind() const {
  if (timed_out) return "timeout";
  if (signal) return "crashed";
  return "error";
}

std::string CommandRun::describe() const {
  if (timed_out) return "timed out and was killed";
  if (signal) return "killed by signal " + process::signal_name(*signal);
  if (exit_code) return fmt::format("exited with status {}", *exit_code);
  return "ended in an unknown way";
}

namespace {

// benchledger-spawn next to this program, or $BENCHLEDGER_SPAWN_HELPER; empty when neither is
// executable.
std::string helper_path() {
  if (const char* path = std::getenv("BENCHLEDGER_SPAWN_HELPER");
      path != nullptr && *path != '\0') {
    return process::find_program(path) ? path : "";
  }
  std::error_code error;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return "";
  const auto candidate = self.parent_path() / "benchledger-spawn";
  return process::find_program(candidate.string()) ? candidate.string() : "";
}

// A pipe whose ends are above fd 4 (so that dup2 onto 3 and 4 never meets itself), close-on-exec.
void high_pipe(int fds[2]) {
  int raw[2];
  if (::pipe2(raw, O_CLOEXEC) != 0)
    throw Error(std::string("cannot start benchledger-spawn: pipe: ") + std::strerror(errno));
  for (int i = 0; i < 2; ++i) {
    fds[i] = ::fcntl(raw[i], F_DUPFD_CLOEXEC, 10);
    ::close(raw[i]);
  }
  if (fds[0] < 0 || fds[1] < 0)
    throw Error(std::string("cannot start benchledger-spawn: fcntl: ") + std::strerror(errno));
}

// An unlinked file for the runs' stderr, in TMPDIR: on disk rather than in memory, since a run
// may write much; -1 when none can be made (stderr then goes to /dev/null). Above fd 5, like
// high_pipe's ends, so that the helper's dup2 onto 3, 4 and 5 never overwrites it first.
int stderr_file() {
  const std::string dir = process::temp_root().string();
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) {
    // A file system without O_TMPFILE: a named file, unlinked at once.
    std::string pattern = dir + "/benchledger-stderr-XXXXXX";
    fd = ::mkostemp(pattern.data(), O_APPEND | O_CLOEXEC);
    if (fd < 0) return -1;
    std::ignore = ::unlink(pattern.c_str());
  }
  const int high = ::fcntl(fd, F_DUPFD_CLOEXEC, 10);
  std::ignore = ::close(fd);
  return high;
}

// "cannot run", the command mode's words for a command that cannot be started.
Error cannot_run(const std::string& program, int error) {
  return Error(fmt::format("cannot run \"{}\": {}", program, std::strerror(error)));
}

// Runs `spec` from here, a stop signal passed on to it; cannot_run when it cannot start.
process::Exit run_or_say_why(const process::Spec& spec) {
  try {
    return run_passing_stops(spec);
  } catch (const process::SpawnError& e) {
    throw cannot_run(spec.argv.front(), e.error());
  }
}

}  // namespace

CommandRunner::CommandRunner() {
  m_stderr_file = stderr_file();
  const std::string path = helper_path();
  if (path.empty()) return;
  int requests[2], responses[2];
  high_pipe(requests);
  high_pipe(responses);
  // In this process's group, its signals as they are here: it installs its own handlers, and
  // passes a stop signal on to the run it started (spawn_helper.cpp).
  process::Spec spec;
  spec.argv = {path};
  spec.own_group = false;
  spec.default_signals = false;
  spec.inherit_stdin = true;
  spec.out = spec.err = process::Stream::inherit();
  spec.extra_fds = {{requests[0], 3}, {responses[1], 4}};
  if (m_stderr_file >= 0) spec.extra_fds.emplace_back(m_stderr_file, 5);
  try {
    m_helper.emplace(spec);
  } catch (const Error&) {
    // Runs start from here instead; own_max_rss() tells.
  }
  ::close(requests[0]);
  ::close(responses[1]);
  if (!m_helper) {
    ::close(requests[1]);
    ::close(responses[0]);
    return;
  }
  m_requests = requests[1];
  m_responses = responses[0];
}

CommandRunner::~CommandRunner() {
  stop_helper();
  if (m_stderr_file >= 0) std::ignore = ::close(m_stderr_file);
}

void CommandRunner::stop_helper() noexcept {
  if (!m_helper) return;
  ::close(m_requests);  // end of file: the helper exits
  ::close(m_responses);
  try {
    std::ignore = m_helper->reap();
  } catch (const Error&) {
    // Not there to wait for: nothing is left to stop.
  }
  m_helper.reset();
}

process::Spec command_spec(const std::vector<std::string>& argv, std::optional<double> timeout_s,
                           bool show_output) {
  process::Spec spec;
  spec.argv = argv;
  spec.timeout_s = timeout_s;
  if (show_output) {
    spec.out = spec.err = process::Stream::inherit();
  } else {
    // Twice what output_tail keeps, so that the lines it keeps can start at a line.
    spec.err = process::Stream::tail(2 * model::k_tail_bytes);
  }
  return spec;
}

CommandRun command_run(const process::Exit& exit) {
  CommandRun run;
  run.wall_ms = static_cast<double>(exit.wall_ns) / 1e6;
  run.user_ms = static_cast<double>(exit.user_us) / 1e3;
  run.sys_ms = static_cast<double>(exit.sys_us) / 1e3;
  run.max_rss_bytes = exit.max_rss_kib * 1024;
  run.timed_out = exit.timed_out;
  run.exit_code = exit.exit_code;
  run.signal = exit.signal;
  if (!run.ok()) run.stderr_tail = model::output_tail(exit.err);
  return run;
}

CommandRun CommandRunner::run(const std::vector<std::string>& argv, std::optional<double> timeout_s,
                              bool show_output) {
  return command_run(run(command_spec(argv, timeout_s, show_output)));
}

process::Exit CommandRunner::run(const process::Spec& spec) {
  if (spec.argv.empty()) throw Error("no command given");
  // One run's stderr at a time: the file never holds more than the longest run wrote.
  if (m_stderr_file >= 0 && ::ftruncate(m_stderr_file, 0) != 0) {
    std::ignore = ::close(m_stderr_file);
    m_stderr_file = -1;  // the runs' stderr goes to /dev/null from here on
  }
  process::Exit exit = spawn(spec);
  if (!exit.ok() && spec.err.kind == process::Stream::Kind::tail)
    exit.err = process::read_tail(m_stderr_file, spec.err.limit);
  return exit;
}

std::int64_t CommandRunner::now_ns() {
  return engine::now_ns();
}

process::Exit CommandRunner::spawn(const process::Spec& spec) {
  if (!m_helper) return run_here(spec);
  const std::vector<std::string>& argv = spec.argv;
  std::string request;
  const auto put = [&request](const void* data, std::size_t size) {
    request.append(static_cast<const char*>(data), size);
  };
  const auto argc = static_cast<std::int32_t>(argv.size());
  put(&argc, sizeof argc);
  for (const std::string& arg : argv) {
    const auto length = static_cast<std::int32_t>(arg.size());
    put(&length, sizeof length);
    put(arg.data(), arg.size());
  }
  const double timeout = spec.timeout_s.value_or(0);
  const std::int32_t show = spec.out.kind == process::Stream::Kind::inherit ? 1 : 0;
  put(&timeout, sizeof timeout);
  put(&show, sizeof show);
  SpawnResponse response{};
  bool answered = false;
  {
    // The helper, not the run: it kills the run's process group and exits (spawn_helper.cpp).
    const StopTarget stop_target(m_helper->pid(), stop_signal() != 0);
    answered = write_exact(m_requests, request.data(), request.size()) &&
               read_exact(m_responses, &response, sizeof response);
  }
  if (!answered) {
    stop_helper();
    if (const int signal = stop_signal(); signal != 0) {
      // The helper passed the stop signal on to the run as it went: the run ended by it.
      process::Exit stopped;
      stopped.signal = signal;
      return stopped;
    }
    throw Error("benchledger-spawn stopped answering while running \"" + argv[0] + "\"");
  }
  if (response.spawn_errno != 0) throw cannot_run(argv[0], response.spawn_errno);
  process::Exit run;
  run.wall_ns = response.wall_ns;
  run.user_us = response.user_us;
  run.sys_us = response.sys_us;
  run.max_rss_kib = response.max_rss_kib;
  run.timed_out = response.timed_out != 0;
  if (response.exited != 0) run.exit_code = response.exit_code;
  if (response.signaled != 0) run.signal = response.signal;
  return run;
}

CommandRun run_command_once(const std::vector<std::string>& argv, std::optional<double> timeout_s,
                            bool show_output) {
  CommandRunner runner;
  return runner.run(argv, timeout_s, show_output);
}

process::Exit CommandRunner::run_here(const process::Spec& spec) {
  process::Spec here = spec;
  // The tail is read from the runs' file afterwards, as from the helper's runs.
  if (here.err.kind == process::Stream::Kind::tail)
    here.err = m_stderr_file >= 0 ? process::Stream::to_fd(m_stderr_file) : process::Stream::null();
  return run_or_say_why(here);
}

CapturedRun run_capturing_stdout(const std::vector<std::string>& argv) {
  if (argv.empty()) throw Error("no command given");
  // In this process's group, with its signals as they are here: a stop signal goes to it alone.
  process::Spec spec;
  spec.argv = argv;
  spec.own_group = false;
  spec.default_signals = false;
  spec.out = process::Stream::capture();
  spec.err = process::Stream::inherit();
  process::Exit exit = run_or_say_why(spec);
  CapturedRun run;
  run.exit_code = exit.exit_code;
  run.signal = exit.signal;
  run.output = std::move(exit.out);
  return run;
}

std::string CommandCase::display_name() const {
  std::string name = bench;
  for (const auto& [key, value] : params) name += " " + key + "=" + benchledger::to_string(value);
  return name;
}

namespace {

std::string fill(std::string text, const std::vector<std::pair<std::string, std::string>>& values) {
  for (const auto& [name, value] : values) {
    const std::string placeholder = "{" + name + "}";
    std::size_t at = 0;
    while ((at = text.find(placeholder, at)) != std::string::npos) {
      text.replace(at, placeholder.size(), value);
      at += value.size();
    }
  }
  return text;
}

// The first `{name}` in text (name: a letter or _, then letters, digits, _) that is not one
// of `names`; `${name}`, a shell's variable, is not a placeholder.
std::optional<std::string> unfilled_placeholder(const std::string& text,
                                                const std::set<std::string>& names) {
  const auto word_start = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  const auto word = [&word_start](char c) { return word_start(c) || (c >= '0' && c <= '9'); };
  for (std::size_t open = text.find('{'); open != std::string::npos;
       open = text.find('{', open + 1)) {
    if (open > 0 && text[open - 1] == '$') continue;
    std::size_t end = open + 1;
    if (end >= text.size() || !word_start(text[end])) continue;
    while (end < text.size() && word(text[end])) ++end;
    if (end >= text.size() || text[end] != '}') continue;
    std::string name = text.substr(open + 1, end - open - 1);
    if (names.count(name) == 0) return name;
  }
  return std::nullopt;
}

// A scan's name: the command as written without the words that hold a placeholder, and without
// the option just before one that is its value (`sleep 0.0{ms}` is `sleep`, `./app --n {n}
// --check` is `./app --check`): the params carry the values, and a `{ms}` left in the name would
// read as a placeholder nobody filled. When every word goes, the command with each `{name}`
// written as its name.
std::string scan_name(const std::string& command, const std::set<std::string>& names) {
  const auto has_placeholder = [&names](const std::string& word) {
    return std::any_of(names.begin(), names.end(), [&word](const std::string& name) {
      return word.find("{" + name + "}") != std::string::npos;
    });
  };
  std::vector<std::string> kept;
  bool previous_kept = false;
  for (std::size_t at = 0; at < command.size();) {
    std::size_t end = command.find(' ', at);
    if (end == std::string::npos) end = command.size();
    const std::string word = command.substr(at, end - at);
    at = end + 1;
    if (word.empty()) continue;
    if (has_placeholder(word)) {
      if (previous_kept && kept.back().starts_with('-') && !word.starts_with('-')) kept.pop_back();
      previous_kept = false;
    } else {
      kept.push_back(word);
      previous_kept = true;
    }
  }
  if (!kept.empty()) return join(kept);
  std::string name = command;
  for (const std::string& placeholder : names) {
    const std::string written = "{" + placeholder + "}";
    for (std::size_t found = name.find(written); found != std::string::npos;
         found = name.find(written, found))
      name.replace(found, written.size(), placeholder);
  }
  return name;
}

}  // namespace

std::vector<CommandCase> expand_command(const CommandSpec& spec, const ParamOverrides& params,
                                        const std::optional<std::regex>& filter) {
  if (spec.command.empty()) throw Error("no command given after --");
  std::set<std::string> names;
  for (const auto& [name, values] : params) {
    if (name.empty()) throw Error("--param needs a name: --param name=v1,v2");
    if (!names.insert(name).second) throw Error("--param " + name + " is given twice");
    if (values.empty()) throw Error("--param " + name + " has no values");
    const std::string placeholder = "{" + name + "}";
    bool used = false;
    for (const std::string& arg : spec.command)
      used = used || arg.find(placeholder) != std::string::npos;
    if (spec.prepare) used = used || spec.prepare->find(placeholder) != std::string::npos;
    if (spec.cleanup) used = used || spec.cleanup->find(placeholder) != std::string::npos;
    if (!used)
      throw Error("--param " + name + ": the command has no " + placeholder + " placeholder");
  }
  // The converse: a placeholder without values would run as the literal text `{ms}`.
  const auto check_placeholders = [&names](const std::string& text, const char* where) {
    if (const auto name = unfilled_placeholder(text, names)) {
      throw Error(fmt::format(
          "{} has the placeholder {{{}}} but no param {} gives it values: add --param {}=v1,v2,...",
          where, *name, *name, *name));
    }
  };
  for (const std::string& arg : spec.command) check_placeholders(arg, "the command");
  if (spec.prepare) check_placeholders(*spec.prepare, "--prepare");
  if (spec.cleanup) check_placeholders(*spec.cleanup, "--cleanup");
  const std::string written = join(spec.command);
  // The name is recorded: no credential of the command line goes into it (model/redact.hpp).
  const std::string name = spec.name ? model::redact_secrets(*spec.name)
                                     : scan_name(join(model::redact_command(spec.command)), names);
  std::vector<CommandCase> cases;
  std::vector<std::size_t> index(params.size(), 0);
  while (true) {
    std::vector<std::pair<std::string, std::string>> values;
    CommandCase c;
    c.bench = name;
    for (std::size_t i = 0; i < params.size(); ++i) {
      const std::string& text = params[i].second[index[i]];
      values.emplace_back(params[i].first, text);
      c.params[params[i].first] = parse_param_value(text);
    }
    if (spec.shell) {
      c.argv = {"/bin/sh", "-c", fill(written, values)};
    } else {
      for (const std::string& arg : spec.command) c.argv.push_back(fill(arg, values));
    }
    if (spec.prepare) c.prepare = fill(*spec.prepare, values);
    if (spec.cleanup) c.cleanup = fill(*spec.cleanup, values);
    if (!filter || std::regex_search(c.display_name(), *filter)) cases.push_back(std::move(c));

    std::size_t digit = params.size();
    bool wrapped = true;
    while (digit > 0) {
      --digit;
      if (++index[digit] < params[digit].second.size()) {
        wrapped = false;
        break;
      }
      index[digit] = 0;
    }
    if (wrapped) break;
  }
  return cases;
}

CommandOutcome run_command_case(const CommandCase& c, const CommandSettings& settings,
                                const PhaseSink& sink) {
  CommandRunner runner;
  CommandOutcome outcome = run_command_case(c, settings, sink, runner);
  if (outcome.measurement && !runner.own_max_rss()) {
    outcome.measurement->warnings.push_back(
        "benchledger-spawn was not found next to this program: runs started from benchledger "
        "itself, so "
        "max_rss reads at least benchledger's own peak resident set");
  }
  return outcome;
}

CommandOutcome run_command_case(const CommandCase& c, const CommandSettings& settings,
                                const PhaseSink& sink, process::Executor& runs) {
  const std::int64_t start = runs.now_ns();
  CommandOutcome outcome;
  const auto run_one = [&](const std::vector<std::string>& argv) {
    return command_run(runs.run(command_spec(argv, settings.timeout, settings.show_output)));
  };
  const auto shell_step = [&](const std::string& script) {
    return run_one({"/bin/sh", "-c", script});
  };
  const auto emit = [&](const char* phase, int done, int total, double last_s) {
    if (sink) sink(CasePhase{phase, done, total, last_s});
  };
  CommandMeasurement m;
  std::optional<CaseFailure> failure;
  std::int64_t failed_runs = 0;
  std::string first_problem, first_output;
  std::set<std::string> failure_kinds;  // of the failed runs: timeout, crashed, error
  double last_s = 0;
  const int total = settings.warmup + settings.runs;
  // A stop signal ends the runs (the one it interrupted is not counted); --cleanup still runs,
  // to its end (engine/stop_signals.hpp).
  for (int i = 0; i < total && !failure && stop_signal() == 0; ++i) {
    const bool measured = i >= settings.warmup;
    if (measured)
      emit("measuring", i - settings.warmup, settings.runs, last_s);
    else
      emit("warmup", i, settings.warmup, last_s);
    if (c.prepare) {
      const CommandRun prepared = shell_step(*c.prepare);
      if (!prepared.ok()) {
        failure = CaseFailure{"error", "--prepare " + prepared.describe(), prepared.stderr_tail};
        break;
      }
    }
    const CommandRun run = run_one(c.argv);
    last_s = run.wall_ms / 1e3;
    if (!measured || stop_signal() != 0) continue;
    ++m.runs;
    if (!run.ok()) {
      ++failed_runs;
      failure_kinds.insert(run.failure_kind());
      if (first_problem.empty()) {
        first_problem = fmt::format("run {} {}", m.runs, run.describe());
        first_output = run.stderr_tail;
      }
      continue;
    }
    m.wall_ms.push_back(run.wall_ms);
    m.user_ms.push_back(run.user_ms);
    m.sys_ms.push_back(run.sys_ms);
    m.max_rss_bytes.push_back(static_cast<double>(run.max_rss_bytes));
  }
  emit("done", static_cast<int>(m.runs), settings.runs, last_s);
  if (c.cleanup) {
    const CommandRun cleaned = shell_step(*c.cleanup);
    if (!cleaned.ok()) m.warnings.push_back("--cleanup " + cleaned.describe());
  }
  m.errors = failed_runs;
  if (failed_runs > 0) {
    m.warnings.push_back(fmt::format(
        "{} of {} runs failed and are not in the timings (first: {}{})", failed_runs, m.runs,
        first_problem, settings.show_output ? "" : "; --show-output shows their output"));
  }
  outcome.runs = m.runs;
  outcome.errors = m.errors;
  if (!failure && m.wall_ms.empty()) {
    // Runs that all failed the same way give the case that kind, as a native case's crash
    // or timeout does; mixed ways (or no run at all) are an error.
    const std::string kind = failure_kinds.size() == 1 ? *failure_kinds.begin() : "error";
    failure = CaseFailure{
        kind,
        m.runs == 0 ? "no run was measured" : "every run failed (first: " + first_problem + ")",
        first_output};
  }
  if (failure) {
    outcome.failure = failure;
  } else {
    outcome.measurement = std::move(m);
  }
  outcome.seconds = static_cast<double>(runs.now_ns() - start) / 1e9;
  return outcome;
}

}  // namespace benchledger::engine
