// Parsing and validation of benchledger/1 records.
#include <cmath>
#include <limits>
#include <set>
#include <string_view>
#include <vector>

#include <benchledger/error.hpp>
#include <benchledger/record.hpp>

#include "model/json_reader.hpp"
#include "model/record_parse_fast.hpp"
#include "model/record_rules.hpp"

namespace benchledger {
namespace model {

namespace {
[[noreturn]] void field_error(const std::string& path, const std::string& reason) {
  throw Error("field \"" + path + "\": " + reason);
}
}  // namespace

JsonReader::JsonReader(const nlohmann::json& object, std::string path)
    : m_object(object), m_path(std::move(path)) {
  if (!m_object.is_object())
    field_error(m_path.empty() ? "(record)" : m_path, "expected an object");
}

std::string JsonReader::path_of(const std::string& key) const {
  return m_path.empty() ? key : m_path + "." + key;
}

void JsonReader::fail(const std::string& key, const std::string& reason) const {
  field_error(path_of(key), reason);
}

bool JsonReader::has(const std::string& key) const {
  return m_object.contains(key);
}

const nlohmann::json& JsonReader::member(const std::string& key) const {
  const auto it = m_object.find(key);
  if (it == m_object.end()) fail(key, "missing");
  return *it;
}

JsonReader JsonReader::object(const std::string& key) const {
  const auto& value = member(key);
  if (!value.is_object()) fail(key, "expected an object");
  return JsonReader(value, path_of(key));
}

std::string JsonReader::string(const std::string& key) const {
  const auto& value = member(key);
  if (!value.is_string()) fail(key, "expected a string");
  return value.get<std::string>();
}

std::optional<std::string> JsonReader::nullable_string(const std::string& key) const {
  const auto& value = member(key);
  if (value.is_null()) return std::nullopt;
  if (!value.is_string()) fail(key, "expected a string or null");
  return value.get<std::string>();
}

namespace {

// Where the parser is, one frame an object or array being read: the member name last read, or
// the number of elements done.
struct JsonFrame {
  bool array = false;
  std::size_t elements = 0;
  std::string key;
  std::set<std::string> keys;  // with RepeatedNames::refuse only
};

// The path of the value being read, its first `most` levels, then "…" when there are more.
std::string path_of(const std::vector<JsonFrame>& frames,
                    std::size_t most = std::numeric_limits<std::size_t>::max()) {
  std::string path;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (i == most) return path + "…";
    const JsonFrame& frame = frames[i];
    if (frame.array) {
      path += "[" + std::to_string(frame.elements) + "]";
    } else if (!frame.key.empty()) {
      path += (path.empty() ? "" : ".") + frame.key;
    }
  }
  return path.empty() ? "(document)" : path;
}

// The number in nlohmann's "number overflow parsing '1e400'", at most 40 characters of it.
std::string overflowing_number(const std::string& what) {
  const std::size_t open = what.find('\'');
  const std::size_t close = what.rfind('\'');
  if (open == std::string::npos || close <= open) return "a number";
  std::string number = what.substr(open + 1, close - open - 1);
  if (number.size() > 40)
    number = number.substr(0, 40) + "… (" + std::to_string(number.size()) + " characters)";
  return "the number " + number;
}

}  // namespace

nlohmann::json parse_bounded_json(std::string_view text, RepeatedNames names) {
  using Event = nlohmann::json::parse_event_t;
  std::vector<JsonFrame> frames;
  const auto element_done = [&frames] {
    if (!frames.empty() && frames.back().array) ++frames.back().elements;
  };
  const nlohmann::json::parser_callback_t callback = [&](int, Event event, nlohmann::json& parsed) {
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        // Refused before the container is begun: the value built so far is k_max_nesting deep
        // at most, and freeing it on the way out is safe.
        if (frames.size() == k_max_nesting) {
          field_error(path_of(frames, 8), "nested deeper than " + std::to_string(k_max_nesting) +
                                              " levels of arrays and objects");
        }
        frames.push_back(JsonFrame{event == Event::array_start, 0, {}, {}});
        break;
      case Event::key:
        frames.back().key = parsed.get<std::string>();
        if (names == RepeatedNames::refuse &&
            !frames.back().keys.insert(frames.back().key).second) {
          field_error(path_of(frames), "appears more than once in its object");
        }
        break;
      case Event::object_end:
      case Event::array_end:
        frames.pop_back();
        element_done();
        break;
      case Event::value:
        element_done();
        break;
    }
    return true;
  };
  try {
    return nlohmann::json::parse(text, callback);
  } catch (const nlohmann::json::out_of_range& e) {
    // The only out_of_range the parser throws: a number beyond a double (nlohmann reads an
    // integer too long for 64 bits as a double). `frames` is where the number was.
    field_error(path_of(frames),
                overflowing_number(e.what()) + " is out of the range of a double (about ±1.8e308)");
  }
}

double finite_number(const nlohmann::json& value, const std::string& path) {
  if (!value.is_number()) field_error(path, "expected a number");
  const double number = value.get<double>();
  if (!std::isfinite(number)) field_error(path, "not a finite number");
  return number;
}

double JsonReader::number(const std::string& key) const {
  return finite_number(member(key), path_of(key));
}

std::optional<double> JsonReader::nullable_number(const std::string& key) const {
  const auto& value = member(key);
  if (value.is_null()) return std::nullopt;
  if (!value.is_number()) fail(key, "expected a number or null");
  return finite_number(value, path_of(key));
}

std::optional<double> JsonReader::optional_number(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return number(key);
}

std::int64_t JsonReader::integer(const std::string& key) const {
  const auto& value = member(key);
  if (value.is_number_unsigned()) {
    if (value.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
      fail(key, "integer out of range");
    }
    return static_cast<std::int64_t>(value.get<std::uint64_t>());
  }
  if (!value.is_number_integer()) fail(key, "expected an integer");
  return value.get<std::int64_t>();
}

std::optional<std::int64_t> JsonReader::nullable_integer(const std::string& key) const {
  if (member(key).is_null()) return std::nullopt;
  return integer(key);
}

std::optional<bool> JsonReader::nullable_bool(const std::string& key) const {
  const auto& value = member(key);
  if (value.is_null()) return std::nullopt;
  if (!value.is_boolean()) fail(key, "expected true, false or null");
  return value.get<bool>();
}

std::vector<std::string> JsonReader::strings(const std::string& key) const {
  const auto& value = member(key);
  if (!value.is_array()) fail(key, "expected an array of strings");
  std::vector<std::string> out;
  out.reserve(value.size());
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (!value[i].is_string()) fail(key + "[" + std::to_string(i) + "]", "expected a string");
    out.push_back(value[i].get<std::string>());
  }
  return out;
}

std::vector<double> JsonReader::numbers(const std::string& key) const {
  const auto& value = member(key);
  if (!value.is_array()) fail(key, "expected an array of numbers");
  std::vector<double> out;
  out.reserve(value.size());
  for (std::size_t i = 0; i < value.size(); ++i) {
    out.push_back(finite_number(value[i], path_of(key) + "[" + std::to_string(i) + "]"));
  }
  return out;
}

namespace {

std::string ulid_field(const JsonReader& reader, const std::string& key) {
  std::string value = reader.string(key);
  if (!is_ulid(value)) reader.fail(key, "expected a ULID (26 Crockford base32 characters)");
  return value;
}

Header read_header(const JsonReader& reader, const std::set<std::string>& known) {
  Header header;
  header.id = ulid_field(reader, "id");
  header.time = reader.string("time");
  if (!is_rfc3339_utc(header.time)) {
    reader.fail("time",
                "expected RFC 3339 UTC with microseconds, like 2026-11-22T04:27:59.123456Z");
  }
  header.prev = reader.string("prev");
  if (!is_lower_hex64(header.prev)) reader.fail("prev", "expected 64 lower-case hex characters");
  for (const auto& [key, value] : reader.json().items()) {
    if (known.count(key) == 0) header.extra[key] = value;
  }
  return header;
}

Better read_better(const JsonReader& reader) {
  if (const auto better = better_from(reader.string("better"))) return *better;
  reader.fail("better", "expected \"lower\" or \"higher\"");
}

Summary read_summary(const JsonReader& reader) {
  Summary summary;
  summary.n = reader.integer("n");
  if (summary.n < 0) reader.fail("n", "must not be negative");
  summary.mean = reader.number("mean");
  summary.median = reader.number("median");
  summary.stddev = reader.number("stddev");
  summary.min = reader.number("min");
  summary.max = reader.number("max");
  summary.p50 = reader.optional_number("p50");
  summary.p90 = reader.optional_number("p90");
  summary.p95 = reader.optional_number("p95");
  summary.p99 = reader.optional_number("p99");
  summary.p999 = reader.optional_number("p999");
  return summary;
}

Metric read_metric(const JsonReader& reader) {
  Metric metric;
  metric.unit = reader.string("unit");
  if (metric.unit.empty()) reader.fail("unit", "must not be empty");
  metric.better = read_better(reader);
  if (reader.has("deterministic")) {
    if (reader.member("deterministic") != true)
      reader.fail("deterministic", "expected true (the member is absent otherwise)");
    metric.deterministic = true;
  }
  if (reader.has("counter")) {
    metric.counter = reader.string("counter");
    if (metric.counter->empty()) reader.fail("counter", "must not be empty");
  }
  if (reader.has("samples")) metric.samples = reader.numbers("samples");
  metric.value = reader.number("value");
  metric.summary = read_summary(reader.object("summary"));
  return metric;
}

ParamValue read_param(const nlohmann::json& value, const std::string& path) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>();
  if (value.is_number_integer() || value.is_number_unsigned()) {
    if (value.is_number_unsigned() &&
        value.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
      field_error(path, "integer out of range");
    }
    return value.get<std::int64_t>();
  }
  if (value.is_number()) return finite_number(value, path);
  field_error(path, "expected a string, number or boolean");
}

RunRecord read_run(const JsonReader& reader) {
  RunRecord run;
  run.header = read_header(reader, {"schema", "type", "id", "time", "prev", "label", "project",
                                    "git", "env", "warnings", "command", "source"});
  run.label = reader.nullable_string("label");
  if (run.label && !is_label(*run.label)) {
    reader.fail("label", "expected 1 to 64 characters of [A-Za-z0-9._-]");
  }
  run.project = reader.string("project");
  const JsonReader git = reader.object("git");
  run.git.commit = git.nullable_string("commit");
  run.git.branch = git.nullable_string("branch");
  run.git.dirty = git.nullable_bool("dirty");
  run.env = env_from_json(reader.member("env"));
  run.warnings = reader.strings("warnings");
  run.command = reader.strings("command");
  run.source = reader.string("source");
  if (run.source.empty()) reader.fail("source", "must not be empty");
  return run;
}

ResultRecord read_result(const JsonReader& reader) {
  ResultRecord result;
  result.header = read_header(reader, {"schema", "type", "id", "time", "prev", "run", "bench",
                                       "params", "metrics", "primary", "ops", "errors"});
  result.run = ulid_field(reader, "run");
  result.bench = reader.string("bench");
  if (result.bench.empty()) reader.fail("bench", "must not be empty");
  result.params = params_from_json(reader.member("params"));
  const JsonReader metrics = reader.object("metrics");
  for (const auto& [key, value] : metrics.json().items()) {
    result.metrics[key] = read_metric(metrics.object(key));
  }
  result.primary = reader.string("primary");
  if (result.metrics.count(result.primary) == 0) {
    reader.fail("primary", "names no metric of this result: \"" + result.primary + "\"");
  }
  result.ops = reader.integer("ops");
  if (result.ops < 0) reader.fail("ops", "must not be negative");
  result.errors = reader.integer("errors");
  if (result.errors < 0) reader.fail("errors", "must not be negative");
  return result;
}

NoteRecord read_note(const JsonReader& reader) {
  NoteRecord note;
  note.header = read_header(reader, {"schema", "type", "id", "time", "prev", "target", "bench",
                                     "kind", "text", "author"});
  note.target = ulid_field(reader, "target");
  note.bench = reader.nullable_string("bench");
  const auto kind = note_kind_from(reader.string("kind"));
  if (!kind) {
    reader.fail("kind",
                "expected \"accept-regression\", \"invalidate\", \"comment\" or \"remove\"");
  }
  note.kind = *kind;
  note.text = reader.string("text");
  note.author = reader.string("author");
  return note;
}

}  // namespace
}  // namespace model

Params params_from_json(const nlohmann::json& json) {
  const model::JsonReader reader(json, "params");
  Params params;
  for (const auto& [key, value] : json.items()) {
    params[key] = model::read_param(value, reader.path_of(key));
  }
  return params;
}

Env env_from_json(const nlohmann::json& json) {
  using model::JsonReader;
  const JsonReader env(json, "env");
  Env out;
  out.host = env.nullable_string("host");
  const JsonReader cpu = env.object("cpu");
  out.cpu.model = cpu.nullable_string("model");
  out.cpu.vendor = cpu.nullable_string("vendor");
  out.cpu.arch = cpu.nullable_string("arch");
  out.cpu.logical = cpu.nullable_integer("logical");
  out.cpu.physical = cpu.nullable_integer("physical");
  out.cpu.sockets = cpu.nullable_integer("sockets");
  out.cpu.online = cpu.nullable_integer("online");
  out.cpu.affinity = cpu.nullable_integer("affinity");
  out.cpu.quota = cpu.nullable_number("quota");
  out.cpu.mhz = cpu.nullable_number("mhz");
  out.cpu.governor = cpu.nullable_string("governor");
  out.cpu.turbo = cpu.nullable_bool("turbo");
  out.cpu.smt = cpu.nullable_bool("smt");
  const JsonReader cache = cpu.object("cache_bytes");
  out.cpu.cache_bytes.l1d = cache.nullable_integer("l1d");
  out.cpu.cache_bytes.l2 = cache.nullable_integer("l2");
  out.cpu.cache_bytes.l3 = cache.nullable_integer("l3");
  const JsonReader memory = env.object("memory");
  out.memory.total_bytes = memory.nullable_integer("total_bytes");
  out.memory.limit_bytes = memory.nullable_integer("limit_bytes");
  const JsonReader os = env.object("os");
  out.os.name = os.nullable_string("name");
  out.os.version = os.nullable_string("version");
  out.os.kernel = os.nullable_string("kernel");
  out.virtualization = env.nullable_string("virtualization");
  const JsonReader container = env.object("container");
  out.container.kind = container.nullable_string("kind");
  out.container.docker_version = container.nullable_string("docker_version");
  const JsonReader clock = env.object("clock");
  out.clock.source = clock.nullable_string("source");
  out.clock.read_ns = clock.nullable_number("read_ns");
  const JsonReader runtimes = env.object("runtimes");
  out.runtimes.compiler = runtimes.nullable_string("compiler");
  out.runtimes.build_type = runtimes.nullable_string("build_type");
  out.runtimes.node = runtimes.nullable_string("node");
  out.runtimes.python = runtimes.nullable_string("python");
  out.runtimes.postgres_client = runtimes.nullable_string("postgres_client");
  out.runtimes.postgres_server = runtimes.nullable_string("postgres_server");
  if (runtimes.has("benchledger")) out.runtimes.benchledger = runtimes.string("benchledger");
  if (runtimes.has("java")) out.runtimes.java = runtimes.string("java");
  if (env.has("postgres")) {
    const JsonReader postgres = env.object("postgres");
    PostgresSettings& pg = out.postgres.emplace();
    pg.shared_buffers = postgres.nullable_string("shared_buffers");
    pg.synchronous_commit = postgres.nullable_string("synchronous_commit");
    pg.fsync = postgres.nullable_string("fsync");
    pg.max_connections = postgres.nullable_string("max_connections");
    pg.wal_level = postgres.nullable_string("wal_level");
    pg.work_mem = postgres.nullable_string("work_mem");
    pg.same_host = postgres.nullable_bool("same_host");
  }
  if (!env.member("load_avg").is_null()) {
    out.load_avg = env.numbers("load_avg");
    if (out.load_avg->size() != 3) env.fail("load_avg", "expected 3 numbers or null");
  }
  out.fingerprint = env.string("fingerprint");
  return out;
}

Record parse_record(std::string_view line) {
  if (auto record = model::parse_record_fast(line)) return std::move(*record);
  return model::parse_record_slow(line);
}

Record model::parse_record_slow(std::string_view line) {
  if (line.size() > k_max_line_bytes) {
    throw Error("record is " + std::to_string(line.size()) + " bytes, over the limit of " +
                std::to_string(k_max_line_bytes) + " bytes a line");
  }
  // JSON has no place for a raw NUL byte (in a string it must be written \u0000), and
  // nlohmann's parser takes one as the end of its input, which would let anything after it by.
  if (const std::size_t nul = line.find('\0'); nul != std::string_view::npos) {
    throw Error("malformed JSON: a NUL byte at byte " + std::to_string(nul + 1));
  }
  nlohmann::json json;
  try {
    json = model::parse_bounded_json(line, model::RepeatedNames::refuse);
  } catch (const nlohmann::json::exception& e) {
    // nlohmann's message names the byte position and what it found; drop its "[json.…] " tag.
    std::string what = e.what();
    const auto tag_end = what.find("] ");
    throw Error("malformed JSON: " +
                (tag_end == std::string::npos ? what : what.substr(tag_end + 2)));
  }
  const model::JsonReader reader(json, "");
  const std::string schema = reader.string("schema");
  if (schema != k_schema) {
    if (schema.rfind("benchledger/", 0) == 0) {
      reader.fail("schema", "\"" + schema +
                                "\" is a schema version this benchledger cannot read (it reads " +
                                std::string(k_schema) + "); upgrade benchledger");
    }
    reader.fail("schema", "expected \"benchledger/1\", found \"" + schema + "\"");
  }
  const std::string type = reader.string("type");
  if (type == "run") return model::read_run(reader);
  if (type == "result") return model::read_result(reader);
  if (type == "note") return model::read_note(reader);
  reader.fail("type", "expected \"run\", \"result\" or \"note\", found \"" + type + "\"");
}

}  // namespace benchledger
