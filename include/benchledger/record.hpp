// The record model of schema benchledger/1 (docs/design.md, "Records"): run, result and note
// records, metrics and the environment, with one canonical serialization.
//
// parse_record() validates a line and throws benchledger::Error naming the field
// (`field "metrics.time.samples[3]": expected a number`); serialize() returns the canonical
// bytes (fixed key order, shortest round-trip numbers, no raw newline) and throws
// benchledger::Error on NaN or infinity anywhere. Fields a reader does not know are kept in
// `extra` and written back after the known ones, so minor additions survive a round trip.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace benchledger {

inline constexpr std::string_view k_schema = "benchledger/1";
inline constexpr std::size_t k_max_line_bytes = 16u * 1024u * 1024u;
// The deepest nesting every reader of outside input accepts: arrays and objects in JSON (a
// record, the config file, a harness's output, a mapped log's line), elements in XML (Catch2's).
// Real outputs nest a few levels. A line of 600 KB can nest 300,000 deep, and copying, writing or
// freeing a value that deep recurses once a level, past the end of a thread's stack; so each
// reader refuses deeper input while it parses, before such a value exists (docs/import.md,
// docs/ledger.md).
inline constexpr std::size_t k_max_nesting = 512;
inline constexpr std::string_view k_zero_hash =
    "0000000000000000000000000000000000000000000000000000000000000000";

enum class Better { lower, higher };

struct Summary {
  std::int64_t n = 0;
  double mean = 0, median = 0, stddev = 0, min = 0, max = 0;
  // Percentiles exist for latency metrics only.
  std::optional<double> p50, p90, p95, p99, p999;
  bool operator==(const Summary&) const = default;
};

struct Metric {
  std::string unit;
  Better better = Better::lower;
  // A count that does not depend on the machine's noise (instructions executed): compare
  // judges it by its threshold alone. Written only when true, with the counter that counted it
  // (`valgrind`, `perf`) when known; older records have neither member.
  bool deterministic = false;
  std::optional<std::string> counter;
  std::optional<std::vector<double>> samples;  // one per repetition; absent for a single value
  double value = 0;                            // median of samples when present
  Summary summary;
  bool operator==(const Metric&) const = default;
};

// Computes value and summary from samples (median, mean, sample stddev, min, max); the
// percentiles are left as they are. Throws Error when there are no samples or one is NaN or an
// infinity, naming the sample.
Metric metric_from_samples(std::string unit, Better better, std::vector<double> samples);
// A metric with one value and no samples.
Metric single_value_metric(std::string unit, Better better, double value);

struct GitState {
  std::optional<std::string> commit, branch;
  std::optional<bool> dirty;
  bool operator==(const GitState&) const = default;
};

struct CacheBytes {
  std::optional<std::int64_t> l1d, l2, l3;
  bool operator==(const CacheBytes&) const = default;
};

struct CpuInfo {
  std::optional<std::string> model, vendor, arch;
  std::optional<std::int64_t> logical, physical, sockets, online, affinity;
  std::optional<double> quota;  // cgroup cpu.max quota / period in CPUs; null when unlimited
  std::optional<double> mhz;
  std::optional<std::string> governor;
  std::optional<bool> turbo, smt;
  CacheBytes cache_bytes;
  bool operator==(const CpuInfo&) const = default;
};

struct MemoryInfo {
  std::optional<std::int64_t> total_bytes, limit_bytes;
  bool operator==(const MemoryInfo&) const = default;
};

struct OsInfo {
  std::optional<std::string> name, version, kernel;
  bool operator==(const OsInfo&) const = default;
};

struct ContainerInfo {
  std::optional<std::string> kind, docker_version;
  bool operator==(const ContainerInfo&) const = default;
};

struct ClockInfo {
  std::optional<std::string> source;
  std::optional<double> read_ns;
  bool operator==(const ClockInfo&) const = default;
};

struct Runtimes {
  std::optional<std::string> compiler, build_type, node, python, postgres_client, postgres_server;
  // Which benchledger measured the run (`0.1.0 (git 0b0e41e5d2a1)`). Unset only in records
  // written before benchledger recorded it: then the member is absent, never null.
  std::optional<std::string> benchledger;
  // The JVM of an imported JMH run (`OpenJDK 64-Bit Server VM 17.0.15+6-Debian-1deb12u1`); `run`
  // does not probe for Java. Absent, never null, when unknown: older records keep their bytes.
  std::optional<std::string> java;
  bool operator==(const Runtimes&) const = default;
};

// The speed-deciding settings of the PostgreSQL server a run measured (`SHOW name`, verbatim:
// "128MB", "on", "replica"), and whether it ran on the measuring host. Present only in a run
// given a server (`run --pg`); a run without one has no `postgres` member at all.
struct PostgresSettings {
  std::optional<std::string> shared_buffers, synchronous_commit, fsync, max_connections, wal_level,
      work_mem;
  std::optional<bool> same_host;
  bool operator==(const PostgresSettings&) const = default;
};

struct Env {
  std::optional<std::string> host;
  CpuInfo cpu;
  MemoryInfo memory;
  OsInfo os;
  std::optional<std::string> virtualization;
  ContainerInfo container;
  ClockInfo clock;
  Runtimes runtimes;
  std::optional<PostgresSettings> postgres;     // written after runtimes, only when present
  std::optional<std::vector<double>> load_avg;  // [1, 5, 15]
  std::string fingerprint;                      // 64 hex chars, see env::fingerprint()
  bool operator==(const Env&) const = default;
};

// The fields every record has.
struct Header {
  std::string id;    // ULID
  std::string time;  // RFC 3339 UTC with microseconds
  std::string prev;  // SHA-256 hex of the previous record's bytes in its store
  nlohmann::json extra = nlohmann::json::object();  // unknown fields, kept verbatim
  bool operator==(const Header&) const = default;
};

struct RunRecord {
  Header header;
  std::optional<std::string> label;
  std::string project;
  GitState git;
  Env env;
  std::vector<std::string> warnings;
  std::vector<std::string> command;
  std::string source;  // native, command, google-benchmark, hyperfine, go-test, ...
  bool operator==(const RunRecord&) const = default;
};

using ParamValue = std::variant<std::string, double, std::int64_t, bool>;
using Params = std::map<std::string, ParamValue>;  // sorted keys

struct ResultRecord {
  Header header;
  std::string run;  // run id
  std::string bench;
  Params params;
  std::map<std::string, Metric> metrics;
  std::string primary;
  std::int64_t ops = 0;
  std::int64_t errors = 0;
  bool operator==(const ResultRecord&) const = default;
};

// remove: the benchmark (`bench`) was deliberately removed after the target run; comparisons
// against that run accept its absence.
enum class NoteKind { accept_regression, invalidate, comment, remove };

struct NoteRecord {
  Header header;
  std::string target;  // a run or result id
  std::optional<std::string> bench;
  NoteKind kind = NoteKind::comment;
  std::string text;
  std::string author;
  bool operator==(const NoteRecord&) const = default;
};

using Record = std::variant<RunRecord, ResultRecord, NoteRecord>;

const Header& header_of(const Record& record);
Header& header_of(Record& record);
std::string_view type_name(const Record& record);  // "run", "result" or "note"

// Parses and validates one line (without its '\n'). Throws benchledger::Error whose message
// starts with `field "<path>": ` (callers prefix `line N: `).
Record parse_record(std::string_view line);

// The canonical bytes of a record, without the trailing '\n'.
std::string serialize(const Record& record);
// The same with `prev` written as given instead of the record's own (a store chains a record
// without copying it).
std::string serialize(const Record& record, std::string_view prev);

// Canonical JSON of parts, for the places that embed them (env --format json, reports): the
// same members in the same order as in a record. to_json(Env) and to_json(Metric) throw
// benchledger::Error where serialize() would (NaN, infinity, a string that is not UTF-8).
nlohmann::ordered_json to_json(const Env& env);
nlohmann::ordered_json to_json(const Metric& metric);
nlohmann::ordered_json to_json(const ParamValue& value);
Env env_from_json(const nlohmann::json& json);  // throws Error naming the field
// A result's params from their JSON object, as a record's are read; throws Error naming the field.
Params params_from_json(const nlohmann::json& json);

// `bench` plus canonical params: the identity of a case, e.g. `sort/uniform{"n":2000}`.
std::string case_key(const std::string& bench, const Params& params);
std::string to_string(const ParamValue& value);  // for tables: 2000, 0.5, true, uniform

std::string_view to_string(Better better);
std::string_view to_string(NoteKind kind);
// The inverses: nullopt for any other word.
std::optional<Better> better_from(std::string_view word);
std::optional<NoteKind> note_kind_from(std::string_view word);

// A fresh ULID: 48-bit milliseconds + 80 bits from the OS CSPRNG, monotonic within a
// millisecond in this process. Thread-safe.
std::string new_ulid();
bool is_ulid(std::string_view text);

// The current time as RFC 3339 UTC with microseconds: 2026-11-22T04:27:59.123456Z.
std::string now_rfc3339();

// Lower-case hex SHA-256 of bytes (OpenSSL).
std::string sha256_hex(std::string_view bytes);

}  // namespace benchledger
