// Adapters from other harnesses' output to result records (docs/engine.md: "a
// google-benchmark reporter does the same for existing google-benchmark binaries").
//
// Results come back without a run id (the caller's run sets it), each with a fresh id and
// time. Unreadable input throws Error naming the origin and the field.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <benchledger/record.hpp>

namespace benchledger::import {

struct ImportedResults {
  std::vector<ResultRecord> results;
  std::vector<std::string> warnings;  // for the run's warnings (a debug build, no samples, ...)
};

// google-benchmark's JSON (--benchmark_format=json or --benchmark_out). One result per
// run_name: `time` (real_time, in the file's time_unit, one sample per repetition, primary),
// `cpu_time`, `items` and `bytes` (per second) when present, and each user counter (better
// = higher when its name ends in `per_second` or `_rate`, else lower). ops = iterations;
// an entry with error_occurred is a failed result (metric `failed`, field `failure`).
ImportedResults read_google_benchmark(std::string_view json_text, const std::string& origin);

// hyperfine's --export-json: one result per command and parameter set: `wall` (ms, one sample
// per run, primary), `user` and `sys` (ms, hyperfine's means: no samples); errors = runs with
// a non-zero exit code.
ImportedResults read_hyperfine(std::string_view json_text, const std::string& origin);

// The formats import_file knows: google-benchmark, hyperfine.
const std::vector<std::string>& import_formats();

// The largest file import_file reads: 64 MiB, far above what a harness writes for thousands of
// cases with their samples, and a bound on the memory its JSON takes.
inline constexpr std::size_t k_max_import_bytes = 64u << 20;

// The run record's `source` for a format (the format's own name). Throws Error naming `path`
// when it is not a regular file (a FIFO or device is not read) or is over k_max_import_bytes.
ImportedResults import_file(const std::string& format, const std::filesystem::path& path);

}  // namespace benchledger::import
