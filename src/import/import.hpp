// Adapters from other harnesses' output to result records (docs/engine.md: "a
// google-benchmark reporter does the same for existing google-benchmark binaries").
//
// Results come back without a run id (the caller's run sets it), each with a fresh id and
// time. Unreadable input throws Error naming the origin and the field.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <benchledger/record.hpp>

namespace benchledger::import {

// Where and when a file says its numbers were measured (docs/import.md, "Environment"). A field
// the file does not give stays null, never the importing machine's value.
struct FileEnvironment {
  Env env;  // env.fingerprint is left empty: the caller computes it
  // The dotted names of the env fields the file gave (cpu.model, host, ...), in to_json order.
  std::vector<std::string> from_file;
  std::optional<std::string> measured_at;   // the file's own date or time, as it writes it
  std::optional<std::string> tool_version;  // the harness's version when the file says
  // What the file says about its environment that no env field holds (the executable, the
  // library's build type, the Python implementation, ...), by the file's own names.
  nlohmann::json facts = nlohmann::json::object();
};

// What an importer does with a file that ends before its tool's closing (a killed run's output):
// `refuse` throws Error `ORIGIN: ends after LAST, without CLOSING: the output looks cut short`;
// `keep_complete` (`run --import --allow-partial`) keeps the benchmarks that are complete, each
// with all its samples, and adds a warning naming the file and what it left out, or throws the
// same Error when none is complete. A whole JSON or XML document cut short fails to parse, and
// its error says so where the parser met the end of the input, whichever is asked.
enum class Partial { refuse, keep_complete };

struct ImportedResults {
  std::vector<ResultRecord> results;
  std::vector<std::string> warnings;  // for the run's warnings (a debug build, no samples, ...)
  FileEnvironment environment;
  std::string format;  // the format read: the one asked for, or the one `auto` chose
  // The SHA-256 of the file's bytes (hex), which the run records to tell a file imported twice;
  // empty for criterion, which reads a folder.
  std::string sha256;
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

// pytest-benchmark's --benchmark-json: one result per benchmark (`fullname`): `time` (s, one
// sample per round when --benchmark-save-data kept them, else the tool's statistics), ops =
// rounds × iterations; `test_x[a-b]` gives params `param` (the id) and, from `params`, each
// parametrize argument. The environment from machine_info and commit_info.
ImportedResults read_pytest_benchmark(std::string_view json_text, const std::string& origin);

// `go test -bench` output, as text or as `go test -json` events: one result per benchmark
// name (the `-N` GOMAXPROCS suffix becomes param `procs`, `/key=value` parts params of their
// own), one sample per -count line of each metric: `time` (ns/op, primary), `bytes` (B/op),
// `allocs` (allocs/op), MB/s and custom units. goos, goarch, pkg and cpu lines as environment.
// The output ends with go test's `PASS`, `FAIL`, `ok  PKG` or `FAIL PKG` line after its last
// benchmark line (with -json, a package `pass` or `fail` event for each package that has events);
// without it the last benchmark may lack samples, and `partial` says what happens.
ImportedResults read_go_test(std::string_view text, const std::string& origin,
                             Partial partial = Partial::refuse);

// pyperf's JSON (`-o FILE`, `pyperf dump` input): one result per benchmark, `time` (s) with
// every value of every run as a sample (warmups left out); the suite's and the benchmark's
// metadata as environment.
ImportedResults read_pyperf(std::string_view json_text, const std::string& origin);

// Catch2's XML reporter (`-r xml`): one result per <BenchmarkResults>, bench its name and
// params `test_case` (and `section` inside sections): `time` (ns) is Catch2's estimate of the
// mean, one value (Catch2 2.x writes no samples); its mean interval, standard deviation and
// outliers are kept in the result's `tool_statistics`. A <failed> benchmark is a failed result.
// A document without its root's <OverallResults> (or cut short, which parse_xml refuses) is
// refused.
ImportedResults read_catch2_xml(std::string_view xml_text, const std::string& origin);

// asv's results JSON (version 2: `results/MACHINE/COMMIT-ENV.json`): one result per benchmark
// and param combination, `time` (s), `memory` (bytes) or `value` (a track's unit) with the
// samples of `--record-samples`, else asv's result as one value; a null result is a failed
// result. `benchmarks_json` (results/benchmarks.json, may be empty) gives the param names,
// types and units; without it params are param1, param2, ... and the type comes from the
// name's prefix. The machine's `params` and the date as environment.
ImportedResults read_asv(std::string_view json_text, const std::string& origin,
                         std::string_view benchmarks_json, const std::string& benchmarks_origin);

// mitata's JSON (`run({ format: 'json' })`): one result per run of each benchmark, bench its
// alias and params its `args`: `time` (ns) with mitata's samples (sorted and trimmed by mitata,
// one per batch of calls); ops = ticks. A run with an `error` is a failed result. The context's
// CPU, architecture and node version as environment.
ImportedResults read_mitata(std::string_view json_text, const std::string& origin);

// Rust criterion's output at `path`: target/criterion (every `new` folder under it that holds
// benchmark.json, in path order), one benchmark's folder, or a file in it (benchmark.json,
// estimates.json, sample.json, tukey.json: its folder is read); any other file is
// cargo-criterion's messages (read_cargo_criterion). One result per
// benchmark: bench its group id, params `function` (BenchmarkId::new's name) and `value` (its
// parameter, a number when it is one); `time` (ns per iteration, one sample per entry of
// sample.json: times[i] / iters[i], primary), `throughput` (elements/s or bytes/s, higher) when
// benchmark.json states one; estimates.json's mean, median, std_dev, median_abs_dev and slope
// with their intervals as `tool_statistics` (and the mean as `time` when sample.json is absent).
// ops = the iterations. criterion writes nothing of the machine: the environment is null.
// criterion writes a benchmark's sample.json, then its estimates.json, then its benchmark.json:
// a `new` folder with sample.json but without either of the others is a benchmark whose run was
// cut short, and `partial` says what happens.
ImportedResults read_criterion(const std::filesystem::path& path,
                               Partial partial = Partial::refuse);

// cargo-criterion's `--message-format=json` output: one result per benchmark-complete message,
// `time` (its unit, measured_values[i] / iteration_count[i]), `throughput` and the estimates
// as for read_criterion; the id `group/function/value` is split at the group that the
// later group-complete message names (one part after it: the value when a number, else the
// function). Other messages (cargo's own) are skipped; a line that is not JSON throws naming it.
// The output ends with the group-complete message of the group of its last benchmark-complete;
// without it the group's benchmarks cannot be named, and `partial` says what happens.
ImportedResults read_cargo_criterion(std::string_view ndjson, const std::string& origin,
                                     Partial partial = Partial::refuse);

// JMH's `-rf json`: one result per entry, bench `benchmark`, params `mode` (thrpt, avgt, sample,
// ss) and each of `params`; the primary metric `throughput` (thrpt, ops/TIME, higher) or `time`
// (ns/op is ns, ..., lower) with one sample per fork and measurement iteration (`rawData`; in
// sample mode the mean of each iteration's histogram), each secondary metric (gc.alloc.rate.norm,
// ...) as its own. The JVM, the JDK's version and the run's settings as facts, jmhVersion as
// tool version; no env field (JMH states no machine). An entry is complete when its primary
// metric has a score for each of its `forks` (1 when 0) and `measurementIterations`; an entry
// with fewer is one whose run was cut short, and `partial` says what happens.
ImportedResults read_jmh(std::string_view json_text, const std::string& origin,
                         Partial partial = Partial::refuse);

// vitest's benchmark report (`vitest bench --outputJson FILE`): one result per benchmark, bench
// its group's fullName (the file and its describe blocks) and its name joined by " > ", params
// the name's `key=value` words: `time` (ms) with the benchmark's samples when the report has
// them, else vitest's statistics (median, mean, sd, min, max, p99, p999) as one value with the
// rest in tool_statistics; `hz` (ops/s, higher is better). A benchmark without statistics (it
// threw) is a failed result. The report states no environment.
ImportedResults read_vitest(std::string_view json_text, const std::string& origin);

// tinybench's tasks serialised as JSON (`JSON.stringify(bench.tasks.map((t) => ({ name: t.name,
// result: t.result })))`, tinybench 3 or later): one result per task, params its name's
// `key=value` words: `time` (ms) from `result.latency` and `throughput` (ops/s, higher is
// better) from `result.throughput`, each with its samples when the Bench kept them
// (retainSamples), else tinybench's statistics as one value. A task that threw or did not run
// is a failed result. The result's runtime (node's version) as environment.
ImportedResults read_tinybench(std::string_view json_text, const std::string& origin);

// A team's own log read through a mapping (`--map`, docs/import.md "Mapped logs"):
// `bench=.name,value=.ms,unit=ms,params=.size`, each KEY=SOURCE where SOURCE is a field of the
// line (`.name`; NDJSON: a dotted path of members, CSV: a column by its header name) or a
// literal. Keys: bench, value (a field), unit, metric, better, params (a field, named by its
// last part), param.NAME. Each line is one sample of its (bench, params) case. A bad mapping,
// or a line that lacks a mapped field or has the wrong type, throws Error naming the entry,
// the file and the line.
ImportedResults read_mapped_ndjson(std::string_view text, const std::string& origin,
                                   const std::string& mapping);
// The same for CSV (RFC 4180 quoting) whose first line names the columns.
ImportedResults read_mapped_csv(std::string_view text, const std::string& origin,
                                const std::string& mapping);

// The format a file's content is in, from its first bytes and JSON keys: one of
// import_formats() other than "auto". Throws Error naming the file when none fits.
std::string detect_format(std::string_view text, const std::string& origin);

// The formats import_file knows: auto, google-benchmark, hyperfine, pytest-benchmark, go-test,
// pyperf, catch2, asv, mitata, criterion, jmh, vitest, tinybench, then the mapped ndjson and csv
// (which `auto` never chooses).
const std::vector<std::string>& import_formats();

// The largest file import_file reads: 64 MiB, far above what a harness writes for thousands of
// cases with their samples, and a bound on the memory its JSON takes.
inline constexpr std::size_t k_max_import_bytes = 64u << 20;

// The run record's `source` for a format (the format's own name); `auto` reads the format
// detect_format finds, and ImportedResults::format says which. Throws Error naming `path`
// when it is not a regular file (a FIFO or device is not read) or is over k_max_import_bytes.
// `mapping` is the `--map` of the ndjson and csv formats: required by them, refused by others.
// asv reads the results/benchmarks.json two folders up from `path` too, when there is one.
// criterion reads a folder (target/criterion or a benchmark's `new`) or a file of one, or
// cargo-criterion's messages; `auto` takes a folder for criterion. `partial` is for the formats
// whose output can end before its tool's closing (go-test, criterion, jmh); the others are
// exempt (a mapped log names no end) or whole documents that do not parse when cut short.
ImportedResults import_file(const std::string& format, const std::filesystem::path& path,
                            const std::string& mapping = "", Partial partial = Partial::refuse);

}  // namespace benchledger::import
