// Instruction counts (`run --measure instructions`, docs/engine.md): deterministic metrics that
// a neighbour's load does not move. Under Valgrind's callgrind, a command is counted whole; a
// native case is counted by re-executing this program under callgrind with collection off,
// and the engine switches collection on only around the measured repetitions (client requests
// from valgrind/callgrind.h, which do nothing outside Valgrind), so that set-up, calibration,
// warm-up, the harness and the ledger write are not counted. Hardware counters
// (perf_event_open) are probed; where the kernel refuses them the refusal says why.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engine/command.hpp"
#include "engine/native.hpp"

namespace benchledger::engine {

// What counts instructions.
enum class Counter { valgrind, perf };
std::string_view to_string(Counter counter);  // "valgrind", "perf"

// `--measure`: what a run records. `time` is the default; `instructions` picks the counter
// automatically, `instructions:valgrind` and `instructions:perf` force one.
struct MeasureRequest {
  bool time = true;
  bool instructions = false;
  std::optional<Counter> forced;
};
// Parses the values of --measure (each `time`, `instructions`, `instructions:valgrind` or
// `instructions:perf`). Throws Error naming the value that is none of these.
MeasureRequest parse_measure(const std::vector<std::string>& values);

// Why this process cannot count with hardware counters (perf_event_open's error, and
// /proc/sys/kernel/perf_event_paranoid), or nothing when it can.
std::optional<std::string> perf_unavailable_reason();

// The counter to use: the forced one when it is available, else perf where the kernel allows
// it, else Valgrind. Throws Error (nothing was measured) when the forced counter or every
// counter is unavailable, saying why: Valgrind not in PATH, the kernel refusing counters.
// Hardware counters count native cases only; a command is counted under Valgrind.
Counter choose_counter(const MeasureRequest& request, bool has_commands);

// The absolute path of valgrind found in PATH. Throws Error when there is none, saying what to
// install.
std::string find_valgrind();

// The options every callgrind run of a count starts with (`--tool=callgrind`, the cache
// simulation), its output files (one a process) and Valgrind's log written into `dir`.
std::vector<std::string> callgrind_options(const std::filesystem::path& dir);
// The callgrind output files in `dir`, sorted: a command's processes each write their own.
// Throws Error, with Valgrind's log, when there is none.
std::vector<std::filesystem::path> callgrind_files(const std::filesystem::path& dir);

// The totals of one callgrind output file (`events:` and `summary:`/`totals:` lines).
struct CallgrindTotals {
  double ir = 0;                        // instructions executed
  double dr = 0, dw = 0;                // data reads and writes
  double i1mr = 0, d1mr = 0, d1mw = 0;  // first-level cache misses
  double ilmr = 0, dlmr = 0, dlmw = 0;  // last-level cache misses
};
// Throws Error naming the file when it cannot be read or has no totals of the events above.
CallgrindTotals read_callgrind_totals(const std::string& path);

// Cycles estimated from callgrind's cache simulation, as iai-callgrind and CodSpeed do: an L1
// hit costs 1, a last-level hit 5, a miss to memory 35.
double estimated_cycles(const CallgrindTotals& totals);

// One case's counts. Native cases: per operation (the measured repetitions' totals over their
// operations, like `time`); commands: per run of the whole command.
struct InstructionCounts {
  Counter counter = Counter::valgrind;
  double instructions = 0;
  std::optional<double> estimated_cycles;                     // Valgrind only
  std::optional<double> cycles, branch_misses, cache_misses;  // perf only
  // perf only: the share of the enabled time the counters ran; below 1 the kernel multiplexed
  // them and the counts are scaled up from what they saw.
  std::optional<double> running_fraction;
  std::int64_t ops = 0;  // the operations the counts are shared by (1 for a command)
  // Valgrind only: the per-function profile of the same run, per operation, as the bytes of its
  // artifact (profile::to_artifact; docs/profiles.md).
  std::optional<std::string> profile;
};

// Runs the command once under callgrind (following its child processes, whose counts are
// added) and reads the totals, with the case's --prepare before it and --cleanup once after it
// (as run_command_case does). A run or a --prepare that fails gives the failure instead; a
// --cleanup that fails, a warning.
struct CountedCommand {
  std::optional<InstructionCounts> counts;
  std::optional<CaseFailure> failure;
  std::vector<std::string> warnings;  // a --cleanup that failed
};
CountedCommand count_command(const CommandCase& c, const CommandSettings& settings);

// Re-executes this program (`argv`, as it was invoked, argv[0] replaced by /proc/self/exe),
// under callgrind for Counter::valgrind, asking it through the environment to measure only the
// case named `c.display_name()`, in its own process, counting around the measured repetitions.
// A program that fails, times out (c.timeout) or reports an error gives the failure.
struct CountedCase {
  std::optional<InstructionCounts> counts;
  std::optional<CaseFailure> failure;
};
CountedCase count_native_case(const NativeCase& c, const std::vector<std::string>& argv,
                              Counter counter);

// In the re-executed program: the case to count, when this process is one (nothing otherwise).
std::optional<std::string> counted_case_request();
// Measures `c` in this process, counting around its measured repetitions, and writes its
// operation count (and with perf the counts), or its error, where the parent reads them; `c`
// null (no case of that name here) is reported as an error. Returns the process's exit status.
int run_counted_case(const NativeCase* c);

// The collection switch measure.cpp pulls around measured repetitions: a no-op unless
// run_counted_case armed it, and outside Valgrind.
void counted_region_begin();
void counted_region_end();
// For each worker thread of a case with several, around its waits for the others: pause before
// waiting, resume (collecting again only while the switch above is on) after. Callgrind collects
// per thread, and a worker other than the one that pulled the switch would otherwise never be
// counted; with hardware counters, which every thread inherits and the switch turns on and off
// for all, and outside a counted case, these do nothing.
void counted_thread_pause();
void counted_thread_resume();

}  // namespace benchledger::engine
