// The values a number may take, in one table for the flags and benchledger.json's keys that set
// the same thing, so that `--runs` and `"runs"` accept the same numbers and word a refusal the
// same way. Every bound is finite: a count or a time from the user never runs away (a warmup of
// 1e11 runs, a --min-time of 1e308 s) or overflows the arithmetic done with it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace benchledger::model {

struct NumberRange {
  double low = 0;
  bool low_included = true;  // false: the value must be greater than `low`
  double high = 0;           // always included
  bool whole = false;        // only whole numbers
};

// Runs (commands) or repetitions (native cases) measured: --runs, --repetitions,
// run.commands[].runs.
inline constexpr NumberRange k_runs_range{1, true, 1'000'000, true};
// Unmeasured runs or repetitions first: --warmup, run.commands[].warmup.
inline constexpr NumberRange k_warmup_range{0, true, 1'000'000, true};
// Seconds a native case's repetition lasts at least: --min-time. An hour.
inline constexpr NumberRange k_min_time_range{0, false, 3'600, false};
// Seconds before a case or a command's run is killed: --timeout. A week.
inline constexpr NumberRange k_timeout_range{0, false, 604'800, false};
// Percent change that matters: --threshold, thresholds.
inline constexpr NumberRange k_threshold_range{0, true, 1'000, false};
// False discovery rate: --alpha.
inline constexpr NumberRange k_alpha_range{0, false, 0.5, false};
// Runs pooled as the base: --base-runs.
inline constexpr NumberRange k_base_runs_range{1, true, 1'000, true};
// Runs a trend chart covers: report --history.
inline constexpr NumberRange k_history_range{1, true, 100'000, true};
// Runs `ledger log -n` lists.
inline constexpr NumberRange k_log_limit_range{1, true, 1'000'000'000, true};

// What the range takes, to follow "must be": "a whole number from 1 to 1000000", "greater than
// 0 and at most 0.5".
std::string describe(const NumberRange& range);

// True when `value` (finite) lies in the range and is whole if it must be.
bool contains(const NumberRange& range, double value);

// The number `text` says when it is all a number (decimal, no spaces) inside the range; else
// nullopt. Whole ranges take only digits (and a sign): "1e3" and "2.0" are refused there.
std::optional<double> parse_in_range(const NumberRange& range, std::string_view text);

}  // namespace benchledger::model
