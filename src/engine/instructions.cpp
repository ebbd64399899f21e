// Instruction counts under callgrind or hardware counters (instructions.hpp).
#include "engine/instructions.hpp"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <benchledger/error.hpp>

#include "engine/stop_signals.hpp"
#include "process/process.hpp"
#include "process/temp_dir.hpp"
#include "profile/profile.hpp"

namespace benchledger::engine {

namespace {

// The re-executed program learns what to do from its environment, which the parent sets for
// it alone (through env(1)): the case, the file for its report and the counter.
constexpr const char* k_case_variable = "BENCHLEDGER_COUNT_CASE";
constexpr const char* k_report_variable = "BENCHLEDGER_COUNT_REPORT";
constexpr const char* k_counter_variable = "BENCHLEDGER_COUNT_WITH";

std::string perf_paranoid() {
  std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
  std::string value;
  if (!(in >> value)) return "unreadable";
  return value;
}

long perf_event_open(perf_event_attr* attr, int group_fd) {
  // This thread (and, with inherit, the threads it creates from now on), any CPU.
  return ::syscall(SYS_perf_event_open, attr, 0, -1, group_fd, 0);
}

perf_event_attr perf_attr(std::uint32_t type, std::uint64_t config, bool leader) {
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = type;
  attr.config = config;
  attr.disabled = leader ? 1 : 0;  // the group starts and stops with its leader
  attr.exclude_kernel = 1;         // user space only: system calls are not counted
  attr.exclude_hv = 1;
  // A case's workers are threads this one starts after opening the counters: inherit gives
  // each a copy that the leader's ioctls switch too and whose counts a read adds up (as
  // google-benchmark's perf counters do). Kernels before 4.13 refuse inherit together with
  // PERF_FORMAT_GROUP (perf_event_open(2), "inherit"), so each counter is read on its own.
  attr.inherit = 1;
  attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  return attr;
}

// Hardware counters on this thread and the threads it starts: instructions (the leader),
// cycles, branch and cache misses. Enabled only around measured repetitions; read once at the
// end.
class PerfGroup {
 public:
  PerfGroup() {
    const std::array<std::uint64_t, 4> events = {
        PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_BRANCH_MISSES,
        PERF_COUNT_HW_CACHE_MISSES};
    for (std::size_t i = 0; i < events.size(); ++i) {
      perf_event_attr attr = perf_attr(PERF_TYPE_HARDWARE, events[i], i == 0);
      const long fd = perf_event_open(&attr, i == 0 ? -1 : m_fds[0]);
      if (fd < 0) {
        const int error = errno;
        close_all();
        throw Error(fmt::format("perf_event_open: {} (kernel.perf_event_paranoid is {})",
                                std::strerror(error), perf_paranoid()));
      }
      m_fds[i] = static_cast<int>(fd);
    }
  }
  ~PerfGroup() { close_all(); }
  PerfGroup(const PerfGroup&) = delete;
  PerfGroup& operator=(const PerfGroup&) = delete;

  void enable() { std::ignore = ::ioctl(m_fds[0], PERF_EVENT_IOC_ENABLE, 0); }
  void disable() { std::ignore = ::ioctl(m_fds[0], PERF_EVENT_IOC_DISABLE, 0); }

  // The four counts of every thread, each scaled up when the kernel multiplexed it (time
  // running below time enabled), and the smallest such ratio.
  struct Reading {
    std::array<double, 4> values{};
    double running_fraction = 1;
  };
  Reading read() const {
    Reading reading;
    for (std::size_t i = 0; i < m_fds.size(); ++i) {
      std::array<std::uint64_t, 3> buffer{};  // value, time_enabled, time_running
      if (::read(m_fds[i], buffer.data(), sizeof(buffer)) != sizeof(buffer))
        throw Error(fmt::format("reading the hardware counters: {}", std::strerror(errno)));
      const auto enabled = static_cast<double>(buffer[1]);
      const auto running = static_cast<double>(buffer[2]);
      if (enabled > 0)
        reading.running_fraction = std::min(reading.running_fraction, running / enabled);
      const double scale = running > 0 ? enabled / running : 1;
      reading.values[i] = static_cast<double>(buffer[0]) * scale;
    }
    return reading;
  }

 private:
  void close_all() {
    for (int& fd : m_fds) {
      if (fd >= 0) std::ignore = ::close(fd);  // nothing to do if close fails
      fd = -1;
    }
  }
  std::array<int, 4> m_fds{-1, -1, -1, -1};
};

// The collection switch of this process (a counted case's re-executed program).
std::atomic<bool> g_armed{false};
// Whether a measured batch is running: set and cleared by whichever thread pulls the switch,
// read by the workers of a case with several.
std::atomic<bool> g_collecting{false};
PerfGroup* g_perf = nullptr;
// Callgrind's collection is a state of each thread (CALLGRIND_TOGGLE_COLLECT switches the
// calling thread's only, and a new thread starts with --collect-atstart's), unlike hardware
// counters, which the leader's ioctl switches for every thread that inherited them.
thread_local bool t_callgrind_collecting = false;

void callgrind_collect_here(bool on) {
  if (t_callgrind_collecting == on) return;
  CALLGRIND_TOGGLE_COLLECT;
  t_callgrind_collecting = on;
}

}  // namespace

std::vector<std::string> callgrind_options(const std::filesystem::path& dir) {
  // --vgdb=no: the counted region is switched by client requests, which need no gdbserver, and
  // without one Valgrind makes no vgdb FIFOs in TMPDIR, which a killed Valgrind leaves behind.
  return {"--tool=callgrind",
          "--vgdb=no",
          "--cache-sim=yes",
          "--quiet",
          "--log-file=" + (dir / "valgrind.%p.log").string(),
          "--callgrind-out-file=" + (dir / "callgrind.out.%p").string()};
}

namespace {

// GODEBUG for a program counted under Valgrind: the caller's, with Go's asynchronous preemption
// off. Valgrind 3.19's callgrind aborts on the signal the Go runtime preempts goroutines with
// (an assertion in vgCallgrind_post_signal, in two to three runs of four of a small Go program
// here); preemption at function calls remains. No other program reads the variable.
std::string godebug_without_async_preemption() {
  const char* set = std::getenv("GODEBUG");
  const std::string value = set != nullptr ? set : "";
  if (value.find("asyncpreemptoff=") != std::string::npos) return "GODEBUG=" + value;
  return "GODEBUG=" + value + (value.empty() ? "" : ",") + "asyncpreemptoff=1";
}

// Removes what a Valgrind killed in its first moments left in its tmpdir. Each Valgrind makes
// `valgrind_proc_<pid>_cmdline_<hex>` (and `_auxv_`) there at start-up and unlinks it at once, so a
// signal passed on to a command whose shell is starting a child under Valgrind can leave one.
// Only files of processes that are gone and made since `since` (this count began; file times lag
// the clock by up to a tick, hence a second's margin) are removed: a live Valgrind's file, or an
// older one, is not this count's.
void remove_orphaned_valgrind_files(std::filesystem::file_time_type since) {
  std::error_code error;
  for (std::filesystem::directory_iterator it(process::temp_root(), error), end;
       !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    constexpr std::string_view prefix = "valgrind_proc_";
    if (name.rfind(prefix, 0) != 0) continue;
    long pid = 0;
    const char* first = name.data() + prefix.size();
    const auto [rest, parsed] = std::from_chars(first, name.data() + name.size(), pid);
    const std::string_view tail(rest, static_cast<std::size_t>(name.data() + name.size() - rest));
    if (parsed != std::errc() || pid <= 0 ||
        (tail.rfind("_cmdline_", 0) != 0 && tail.rfind("_auxv_", 0) != 0)) {
      continue;
    }
    std::error_code ignored;
    if (it->last_write_time(ignored) < since - std::chrono::seconds(1) || ignored) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    std::filesystem::remove(it->path(), ignored);
  }
}

// Valgrind's own complaint (its log), for a run that failed under it.
std::string valgrind_log(const std::filesystem::path& dir) {
  std::string text;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().filename().string().rfind("valgrind.", 0) != 0) continue;
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) {
      if (line.find("warning: L3 cache found") != std::string::npos) continue;
      if (!line.empty()) text += (text.empty() ? "" : " | ") + line;
    }
  }
  return text;
}

}  // namespace

std::vector<std::filesystem::path> callgrind_files(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().filename().string().rfind("callgrind.out.", 0) == 0)
      files.push_back(entry.path());
  }
  if (files.empty()) {
    const std::string log = valgrind_log(dir);
    throw Error("callgrind wrote no output file" + (log.empty() ? "" : ": " + log));
  }
  std::sort(files.begin(), files.end());
  return files;
}

namespace {

// Every callgrind output file of `dir` added up, and their functions' profile.
InstructionCounts valgrind_counts(const std::filesystem::path& dir, std::int64_t ops) {
  CallgrindTotals sum;
  const std::vector<std::filesystem::path> files = callgrind_files(dir);
  for (const auto& file : files) {
    const CallgrindTotals t = read_callgrind_totals(file.string());
    sum.ir += t.ir, sum.dr += t.dr, sum.dw += t.dw;
    sum.i1mr += t.i1mr, sum.d1mr += t.d1mr, sum.d1mw += t.d1mw;
    sum.ilmr += t.ilmr, sum.dlmr += t.dlmr, sum.dlmw += t.dlmw;
  }
  InstructionCounts counts;
  counts.counter = Counter::valgrind;
  counts.ops = ops;
  const double per = ops > 0 ? static_cast<double>(ops) : 1.0;
  counts.instructions = sum.ir / per;
  counts.estimated_cycles = estimated_cycles(sum) / per;
  counts.profile = profile::to_artifact(profile::read_callgrind_profile(files, ops));
  return counts;
}

// A failure under Valgrind in words, then Valgrind's log: where the log shows that Valgrind, not
// the program, is what failed, the words say so (the program passed its timed runs without it).
std::string describe_failure(const CommandRun& run, const std::filesystem::path& dir) {
  const std::string log = valgrind_log(dir);
  std::string said = run.describe();
  if (log.find("Illegal opcode") != std::string::npos) {
    // Valgrind raises SIGILL at an instruction its decoder does not know (AVX-512, SHA, ENTER
    // with a nesting level, ...), though the processor runs it.
    said +=
        ": Valgrind cannot decode an instruction the program uses (the processor runs it), "
        "so the program cannot be counted under Valgrind; build it for an older instruction "
        "set (a lower -march), or count it with hardware counters where that is possible";
  } else if (log.find("the 'impossible' happened") != std::string::npos ||
             (log.find("Assertion") != std::string::npos &&
              log.find("failed") != std::string::npos)) {
    said += ": Valgrind itself failed (one of its own assertions), not the program";
  }
  return said + (log.empty() ? "" : " (valgrind: " + log + ")");
}

}  // namespace

std::string_view to_string(Counter counter) {
  return counter == Counter::valgrind ? "valgrind" : "perf";
}

MeasureRequest parse_measure(const std::vector<std::string>& values) {
  if (values.empty()) return {};
  MeasureRequest request;
  request.time = false;
  for (const std::string& value : values) {
    if (value == "time") {
      request.time = true;
    } else if (value == "instructions") {
      request.instructions = true;
    } else if (value == "instructions:valgrind" || value == "instructions:perf") {
      request.instructions = true;
      request.forced = value == "instructions:perf" ? Counter::perf : Counter::valgrind;
    } else {
      throw Error("--measure " + value +
                  ": expected time, instructions, instructions:valgrind or instructions:perf");
    }
  }
  return request;
}

std::optional<std::string> perf_unavailable_reason() {
  try {
    const PerfGroup group;
    return std::nullopt;
  } catch (const Error& e) {
    return std::string(e.what());
  }
}

std::string find_valgrind() {
  if (const auto found = process::find_program("valgrind")) return found->string();
  const char* path = std::getenv("PATH");
  throw Error(fmt::format(
      "--measure instructions: valgrind is not in PATH ({}), and it counts instructions where "
      "the kernel refuses hardware counters; install Debian's valgrind package (nothing was "
      "measured)",
      path != nullptr ? path : "unset"));
}

Counter choose_counter(const MeasureRequest& request, bool has_commands) {
  if (request.forced == Counter::perf) {
    if (has_commands) {
      throw Error(
          "--measure instructions:perf: commands are counted under Valgrind only; use "
          "instructions or instructions:valgrind (nothing was measured)");
    }
    if (const auto reason = perf_unavailable_reason()) {
      throw Error("--measure instructions:perf: this kernel refuses hardware counters: " + *reason +
                  "; use instructions:valgrind (nothing was measured)");
    }
    return Counter::perf;
  }
  if (!request.forced && !has_commands && !perf_unavailable_reason()) return Counter::perf;
  std::ignore = find_valgrind();  // throws when there is none
  return Counter::valgrind;
}

CallgrindTotals read_callgrind_totals(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read callgrind's output " + path + ": " + std::strerror(errno));
  std::vector<std::string> events;
  std::vector<double> totals;
  for (std::string line; std::getline(in, line);) {
    const auto words = [&](std::size_t skip) {
      std::vector<std::string> out;
      std::istringstream parts(line.substr(skip));
      for (std::string w; parts >> w;) out.push_back(w);
      return out;
    };
    if (line.rfind("events:", 0) == 0) {
      events = words(7);
    } else if (line.rfind("summary:", 0) == 0 || line.rfind("totals:", 0) == 0) {
      totals.clear();
      for (const std::string& w : words(line.find(':') + 1)) {
        // from_chars: locale-independent, and a word that is not a number is named, not a
        // std::invalid_argument escaping as an internal error.
        double total = 0;
        const auto [at, error] = std::from_chars(w.data(), w.data() + w.size(), total);
        if (error != std::errc() || at != w.data() + w.size() || !std::isfinite(total))
          throw Error("callgrind's output " + path + ": \"" + w + "\" in \"" + line +
                      "\" is not a count");
        totals.push_back(total);
      }
    }
  }
  CallgrindTotals out;
  const std::pair<const char*, double*> fields[] = {
      {"Ir", &out.ir},     {"Dr", &out.dr},     {"Dw", &out.dw},
      {"I1mr", &out.i1mr}, {"D1mr", &out.d1mr}, {"D1mw", &out.d1mw},
      {"ILmr", &out.ilmr}, {"DLmr", &out.dlmr}, {"DLmw", &out.dlmw}};
  if (events.empty() || totals.empty())
    throw Error("callgrind's output " + path + " has no events and totals lines");
  for (const auto& [name, field] : fields) {
    bool found = false;
    for (std::size_t i = 0; i < events.size(); ++i) {
      if (events[i] != name) continue;
      // A total line leaves out trailing zeros.
      *field = i < totals.size() ? totals[i] : 0;
      found = true;
    }
    if (!found)
      throw Error(fmt::format("callgrind's output {} has no event {} (was --cache-sim=yes given?)",
                              path, name));
  }
  return out;
}

double estimated_cycles(const CallgrindTotals& t) {
  // One formula for the case's count and its functions' (profile.hpp).
  return profile::estimated_cycles(
      {t.ir, t.dr, t.dw, t.i1mr, t.d1mr, t.d1mw, t.ilmr, t.dlmr, t.dlmw});
}

CountedCommand count_command(const CommandCase& c, const CommandSettings& settings) {
  throw_if_stopped();  // a stop signal during the timed runs: nothing more to start
  const process::TempDir dir("benchledger-callgrind", "callgrind's output");
  std::vector<std::string> argv = {"/usr/bin/env", godebug_without_async_preemption(),
                                   find_valgrind()};
  for (std::string& option : callgrind_options(dir.path())) argv.push_back(std::move(option));
  argv.emplace_back("--trace-children=yes");
  argv.insert(argv.end(), c.argv.begin(), c.argv.end());
  CommandRunner runner;
  CountedCommand counted;
  // As in the timed runs (run_command_case): --prepare before the run, --cleanup once after it,
  // whatever happened, to its end even after a stop signal.
  const auto shell_step = [&](const std::string& script) {
    return runner.run({"/bin/sh", "-c", script}, settings.timeout, settings.show_output);
  };
  const auto cleanup = [&] {
    if (!c.cleanup) return;
    const CommandRun cleaned = shell_step(*c.cleanup);
    if (!cleaned.ok()) counted.warnings.push_back("--cleanup " + cleaned.describe());
  };
  if (c.prepare) {
    const CommandRun prepared = shell_step(*c.prepare);
    if (!prepared.ok()) {
      counted.failure =
          CaseFailure{"error", "--prepare " + prepared.describe(), prepared.stderr_tail};
      cleanup();
      return counted;
    }
  }
  const auto started = std::filesystem::file_time_type::clock::now();
  const CommandRun run = runner.run(argv, settings.timeout, settings.show_output);
  remove_orphaned_valgrind_files(started);
  cleanup();
  throw_if_stopped();  // the run was ended by the signal, its counts cut short
  if (!run.ok()) {
    counted.failure =
        CaseFailure{run.failure_kind(), "under callgrind, " + describe_failure(run, dir.path()),
                    run.stderr_tail};
    return counted;
  }
  counted.counts = valgrind_counts(dir.path(), 1);
  return counted;
}

CountedCase count_native_case(const NativeCase& c, const std::vector<std::string>& argv,
                              Counter counter) {
  if (argv.empty()) throw Error("counting instructions needs the program's arguments");
  throw_if_stopped();  // a stop signal while the case was timed: nothing more to start
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) throw Error("cannot find this program (/proc/self/exe): " + error.message());
  const process::TempDir dir("benchledger-count", "the counted case's report");
  const std::filesystem::path report = dir.path() / "report.json";
  std::vector<std::string> command = {
      "/usr/bin/env", std::string(k_case_variable) + "=" + c.display_name(),
      std::string(k_report_variable) + "=" + report.string(),
      std::string(k_counter_variable) + "=" + std::string(to_string(counter))};
  if (counter == Counter::valgrind) {
    command.push_back(find_valgrind());
    for (std::string& option : callgrind_options(dir.path())) command.push_back(std::move(option));
    // Nothing is instrumented until the case starts, nothing collected outside its measured
    // repetitions (run_counted_case and counted_region_begin switch both on).
    command.insert(command.end(), {"--instr-atstart=no", "--collect-atstart=no"});
  }
  command.push_back(self.string());
  command.insert(command.end(), argv.begin() + 1, argv.end());

  CountedCase counted;
  const auto started = std::filesystem::file_time_type::clock::now();
  const CommandRun run = run_command_once(command, c.timeout, false);
  if (counter == Counter::valgrind) remove_orphaned_valgrind_files(started);
  throw_if_stopped();  // the program was ended by the signal, its counts cut short
  nlohmann::json answer;
  if (std::ifstream in(report); in) {
    try {
      in >> answer;
    } catch (const nlohmann::json::exception&) {
      answer = nullptr;  // a report cut short: the run's status says why
    }
  }
  if (answer.is_object() && answer.contains("error")) {
    counted.failure = CaseFailure{"error", answer.at("error").get<std::string>()};
    return counted;
  }
  if (!run.ok() || !answer.is_object() || !answer.contains("ops")) {
    counted.failure = CaseFailure{
        run.ok() ? "error" : run.failure_kind(),
        "counting instructions, the program " +
            (run.ok() ? std::string("reported nothing") : describe_failure(run, dir.path())),
        run.stderr_tail};
    return counted;
  }
  const auto ops = answer.at("ops").get<std::int64_t>();
  if (counter == Counter::valgrind) {
    counted.counts = valgrind_counts(dir.path(), ops);
    return counted;
  }
  const double per = ops > 0 ? static_cast<double>(ops) : 1.0;
  InstructionCounts counts;
  counts.counter = Counter::perf;
  counts.ops = ops;
  counts.instructions = answer.at("instructions").get<double>() / per;
  counts.cycles = answer.at("cycles").get<double>() / per;
  counts.branch_misses = answer.at("branch_misses").get<double>() / per;
  counts.cache_misses = answer.at("cache_misses").get<double>() / per;
  counts.running_fraction = answer.at("running_fraction").get<double>();
  counted.counts = counts;
  return counted;
}

std::optional<std::string> counted_case_request() {
  const char* name = std::getenv(k_case_variable);
  if (name == nullptr) return std::nullopt;
  return std::string(name);
}

int run_counted_case(const NativeCase* c) {
  const char* report_path = std::getenv(k_report_variable);
  const char* counter = std::getenv(k_counter_variable);
  if (report_path == nullptr || counter == nullptr) return 2;  // not started by count_native_case
  nlohmann::json report;
  try {
    if (c == nullptr) {
      throw Error(
          fmt::format("the re-executed program has no case {}", std::getenv(k_case_variable)));
    }
    std::optional<PerfGroup> perf;
    if (std::string_view(counter) == "perf") {
      perf.emplace();
      g_perf = &*perf;
    } else {
      CALLGRIND_START_INSTRUMENTATION;
    }
    g_armed = true;
    const CaseMeasurement m = measure_case(*c, {});
    counted_region_end();
    g_armed = false;
    report["ops"] = m.ops;
    if (perf) {
      const PerfGroup::Reading reading = perf->read();
      g_perf = nullptr;
      report["instructions"] = reading.values[0];
      report["cycles"] = reading.values[1];
      report["branch_misses"] = reading.values[2];
      report["cache_misses"] = reading.values[3];
      report["running_fraction"] = reading.running_fraction;
    }
  } catch (const std::exception& e) {
    g_armed = false;
    g_perf = nullptr;
    report = {{"error", e.what()}};
  }
  std::ofstream out(report_path);
  out << report.dump();
  out.close();
  return out ? 0 : 2;
}

void counted_region_begin() {
  if (!g_armed.load(std::memory_order_relaxed) || g_collecting) return;
  g_collecting = true;
  if (g_perf != nullptr) {
    g_perf->enable();
  } else {
    callgrind_collect_here(true);
  }
}

void counted_region_end() {
  if (!g_armed.load(std::memory_order_relaxed) || !g_collecting) return;
  if (g_perf != nullptr) {
    g_perf->disable();
  } else {
    callgrind_collect_here(false);
  }
  g_collecting = false;
}

void counted_thread_pause() {
  if (!g_armed.load(std::memory_order_relaxed) || g_perf != nullptr) return;
  callgrind_collect_here(false);
}

void counted_thread_resume() {
  if (!g_armed.load(std::memory_order_relaxed) || g_perf != nullptr || !g_collecting) return;
  callgrind_collect_here(true);
}

}  // namespace benchledger::engine
