// Native cases: expanding registered benchmarks into cases, measuring one case, and running
// each case in a forked child so that a crash or a hang fails only that case.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include <benchledger/benchledger.hpp>
#include <benchledger/record.hpp>

namespace benchledger::engine {

inline constexpr int k_default_repetitions = 10;
inline constexpr int k_default_warmup = 1;
inline constexpr double k_default_min_time = 0.01;     // seconds per repetition
inline constexpr double k_default_case_timeout = 600;  // seconds per native case

// What the command line sets; unset values fall back to the benchmark's own, then the
// defaults above.
struct RunSettings {
  std::optional<int> repetitions;
  std::optional<int> warmup;
  std::optional<double> min_time;
  std::optional<double> timeout;
};

// `--param name=v1,v2`: values as given; a value that reads as an integer, a number or
// true/false becomes one.
using ParamOverrides = std::vector<std::pair<std::string, std::vector<std::string>>>;
ParamValue parse_param_value(const std::string& text);

// One case: a benchmark with one value per param and one concurrency level.
struct NativeCase {
  const Benchmark* benchmark = nullptr;
  std::string bench;  // the benchmark's name, with the suite's prefix when it has one
  Params params;      // includes `concurrency` when levels were declared
  int concurrency = 1;
  int repetitions = k_default_repetitions;
  int warmup = k_default_warmup;
  double min_time = k_default_min_time;
  double timeout = k_default_case_timeout;
  std::int64_t fixed_ops = 0;  // 0: calibrated
  std::int64_t total_ops = 0;  // over all measured repetitions (ops_per_case); 0: none

  std::string display_name() const;  // `sort/copy n=1000 concurrency=4`
};

// Every case of the registry, in registration order, each benchmark's params varying with
// the first declared slowest and concurrency fastest. Overrides replace a declared param's
// values (`concurrency` replaces the levels of the benchmarks that declare levels); an
// override that no benchmark declares is an Error. `filter` keeps cases whose display name it
// matches (std::regex_search).
std::vector<NativeCase> expand_cases(const Registry& registry, const std::string& prefix,
                                     const RunSettings& settings, const ParamOverrides& overrides,
                                     const std::optional<std::regex>& filter);

// Per-operation latency over every measured operation of a case (OPS mode), in ns.
struct LatencySummary {
  std::int64_t n = 0;
  double mean = 0, stddev = 0, min = 0, max = 0;
  double p50 = 0, p90 = 0, p95 = 0, p99 = 0, p999 = 0;
};

struct CaseMeasurement {
  std::vector<double> time_ns;     // one per repetition: mean time per operation
  std::vector<double> throughput;  // one per repetition: operations per second of wall time
  std::optional<LatencySummary> latency;
  double items_per_op = 0;  // 0: not declared
  std::int64_t ops = 0;     // measured operations (warm-up and calibration excluded)
  std::int64_t errors = 0;  // measured operations that threw
  // Of those, the ones that threw OperationError, by code (the others have none).
  std::map<std::string, std::int64_t> error_codes;
  std::int64_t ops_per_repetition = 0;
  std::optional<std::int64_t> peak_rss_bytes;
  std::vector<std::string> warnings;
};

// Where a case is: `setup`, `calibrating`, `warmup`, `measuring`, with the repetitions done
// and planned and the duration of the last one.
struct CasePhase {
  std::string phase;
  int done = 0;
  int total = 0;
  double last_repetition_s = 0;
};
using PhaseSink = std::function<void(const CasePhase&)>;

// Measures one case in this process: setup, calibration, warm-up, repetitions. A throw from
// a BENCH function, a CaseFailed from anywhere, or misuse of the loop throws Error with the
// reason; an OPS operation that throws anything else counts as an error.
CaseMeasurement measure_case(const NativeCase& c, const PhaseSink& sink);

struct CaseFailure {
  std::string kind;  // `crashed`, `timeout` or `error`
  std::string message;
  // The last lines of the failed process's stderr (model::output_tail), or empty: recorded as
  // `failure.stderr`, so that the reason a case crashed reaches compare's and gate's outputs.
  std::string output = {};
};

struct CaseOutcome {
  std::optional<CaseMeasurement> measurement;
  std::optional<CaseFailure> failure;
  double seconds = 0;  // wall time of the whole case, set-up included
};

// Runs measure_case in a forked child (own process group) and reads its measurement through
// a pipe. A child killed by a signal, exiting without a measurement, or still running after
// c.timeout seconds (then killed with its process group) is a failure; so is an Error the
// child reports. When `redirect_stdout` is set, the child's stdout goes to stderr so that a
// machine format on stdout stays clean. The child's stderr comes through a pipe: it is passed
// on to `output_fd` as it arrives, and its last lines are a failure's `output`. The calling
// process must be single-threaded.
CaseOutcome run_case_isolated(const NativeCase& c, const PhaseSink& sink, bool redirect_stdout,
                              int output_fd);

// The same in this process (for --no-fork): a crash ends the program, a timeout is not
// enforced.
CaseOutcome run_case_in_process(const NativeCase& c, const PhaseSink& sink);

}  // namespace benchledger::engine
