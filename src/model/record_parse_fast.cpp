// parse_record()'s fast path (see record_parse_fast.hpp): simdjson's DOM instead of nlohmann's.
//
// It mirrors the slow path's rules exactly where it accepts, and gives up (returns nullopt) on
// everything else, so that the slow path decides and words every error:
// - a member name the schema does not know at the top level (it goes to `extra`);
// - any value of an unexpected type, any rule broken, any simdjson error;
// - -0.0, which nlohmann reads as the integer 0 when written `-0` and simdjson may not;
// - an integer field written as anything but an int64;
// - a name repeated within any object, which the slow path refuses (model::parse_json_unique).
// Inside nested objects, unknown members are ignored as the slow path ignores them, but read
// through for repeated names all the same.
#include "model/record_parse_fast.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <simdjson.h>

#include "model/record_rules.hpp"

namespace benchledger::model {

namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

struct GiveUp {};  // thrown inside, caught at the top: the slow path takes the record

[[noreturn]] void give_up() {
  throw GiveUp{};
}

void require(bool condition) {
  if (!condition) give_up();
}

std::string_view text(element value) {
  std::string_view out;
  require(value.get(out) == simdjson::SUCCESS);
  return out;
}

std::optional<std::string> nullable_text(element value) {
  if (value.is_null()) return std::nullopt;
  return std::string(text(value));
}

double number(element value) {
  double out = 0;
  switch (value.type()) {
    case element_type::INT64:
      out = static_cast<double>(value.get_int64().value_unsafe());
      break;
    case element_type::UINT64:
      out = static_cast<double>(value.get_uint64().value_unsafe());
      break;
    case element_type::DOUBLE:
      out = value.get_double().value_unsafe();
      require(std::isfinite(out) && !(out == 0 && std::signbit(out)));
      break;
    default:
      give_up();
  }
  return out;
}

std::optional<double> nullable_number(element value) {
  if (value.is_null()) return std::nullopt;
  return number(value);
}

std::int64_t integer(element value) {
  require(value.type() == element_type::INT64);
  return value.get_int64().value_unsafe();
}

std::optional<std::int64_t> nullable_integer(element value) {
  if (value.is_null()) return std::nullopt;
  return integer(value);
}

std::optional<bool> nullable_bool(element value) {
  if (value.is_null()) return std::nullopt;
  bool out = false;
  require(value.get(out) == simdjson::SUCCESS);
  return out;
}

// An object whose names are all different (the slow path refuses a repeated one). Objects of a
// record are small: a quadratic check costs less than sorting.
object members(element value) {
  object out;
  require(value.get(out) == simdjson::SUCCESS);
  thread_local std::vector<std::string_view> names;
  names.clear();
  for (const auto field : out) {
    if (names.size() < 32) {
      for (const std::string_view name : names) require(name != field.key);
    }
    names.push_back(field.key);
  }
  if (names.size() > 32) {
    std::sort(names.begin(), names.end());
    require(std::adjacent_find(names.begin(), names.end()) == names.end());
  }
  return out;
}

// A value the fast path otherwise ignores (an unknown member of a nested object), read through
// so that a repeated name anywhere in the record gives the line to the slow path.
void require_unique_names_within(element value) {
  if (value.type() == element_type::OBJECT) {
    for (const auto field : members(value)) require_unique_names_within(field.value);
  } else if (value.type() == element_type::ARRAY) {
    for (element item : array(value)) require_unique_names_within(item);
  }
}

std::vector<std::string> texts(element value) {
  array items;
  require(value.get(items) == simdjson::SUCCESS);
  std::vector<std::string> out;
  for (element item : items) out.emplace_back(text(item));
  return out;
}

// Into `out`, whose storage is reused.
void numbers_into(element value, std::vector<double>& out) {
  array items;
  require(value.get(items) == simdjson::SUCCESS);
  out.clear();
  out.reserve(items.size());
  for (element item : items) out.push_back(number(item));
}

std::vector<double> numbers(element value) {
  std::vector<double> out;
  numbers_into(value, out);
  return out;
}

// Calls visit(name, value) for every member of a nested object, in order.
template <class Visit>
void each_member(element value, Visit&& visit) {
  for (const auto field : members(value)) visit(field.key, field.value);
}

// The member named `name` of a nested object, if it has one.
std::optional<element> optional_member(element value, std::string_view name) {
  std::optional<element> found;
  for (const auto field : members(value)) {
    if (field.key == name) found = field.value;
  }
  return found;
}

// The member named `name` of a nested object.
element member(element value, std::string_view name) {
  const std::optional<element> found = optional_member(value, name);
  require(found.has_value());
  return *found;
}

void read_value(element value, std::optional<std::string>& to) {
  to = nullable_text(value);
}
void read_value(element value, std::optional<std::int64_t>& to) {
  to = nullable_integer(value);
}
void read_value(element value, std::optional<double>& to) {
  to = nullable_number(value);
}
void read_value(element value, std::optional<bool>& to) {
  to = nullable_bool(value);
}

// A member read into a nullable field of the record.
template <class T>
struct Field {
  std::string_view name;
  T& to;
};
template <class T>
Field(std::string_view, T&) -> Field<T>;

// Reads the named members of a nested object, each of them required (and null allowed);
// others are ignored, as the slow path ignores them (but read through for repeated names).
template <class... T>
void nullable_members(element value, Field<T>... fields) {
  static_assert(sizeof...(T) < 32);
  std::uint32_t seen = 0;
  each_member(value, [&](std::string_view key, element x) {
    std::uint32_t bit = 1;
    bool known = false;
    const auto read = [&](const auto& field) {
      if (key == field.name) {
        read_value(x, field.to);
        seen |= bit;
        known = true;
      }
      bit <<= 1;
    };
    (read(fields), ...);
    if (!known) require_unique_names_within(x);
  });
  require(seen == (std::uint32_t{1} << sizeof...(T)) - 1);
}

std::string_view ulid_text(element value) {
  const std::string_view out = text(value);
  require(is_ulid(out));
  return out;
}

std::string ulid(element value) {
  return std::string(ulid_text(value));
}

// The top-level members, by the names the schema gives them (any record type).
enum Key : std::size_t {
  // the header
  k_schema_key,
  k_type,
  k_id,
  k_time,
  k_prev,
  // a run's
  k_label,
  k_project,
  k_git,
  k_env,
  k_warnings,
  k_command,
  k_source,
  // a result's (and `bench`, a note's too)
  k_run,
  k_bench,
  k_params,
  k_metrics,
  k_primary,
  k_ops,
  k_errors,
  // a note's
  k_target,
  k_kind,
  k_text,
  k_author,
  k_key_count
};

constexpr std::string_view k_key_names[k_key_count] = {
    "schema",  "type",     "id",      "time",   "prev", "label", "project", "git",
    "env",     "warnings", "command", "source", "run",  "bench", "params",  "metrics",
    "primary", "ops",      "errors",  "target", "kind", "text",  "author"};

struct TopLevel {
  std::optional<element> at[k_key_count];

  element operator[](Key key) const {
    require(at[key].has_value());
    return *at[key];
  }
  // True when every member present is one of `allowed` (the type's own and the header's).
  bool only(std::initializer_list<Key> allowed) const {
    std::size_t present = 0;
    for (const auto& value : at) present += value.has_value() ? 1 : 0;
    std::size_t expected = 0;
    for (const Key key : allowed) expected += at[key].has_value() ? 1 : 0;
    return present == expected;
  }
};

TopLevel top_level(element root) {
  TopLevel top;
  for (const auto field : members(root)) {
    std::size_t key = 0;
    while (key < k_key_count && k_key_names[key] != field.key) ++key;
    require(key < k_key_count);  // an unknown member: kept in `extra` by the slow path
    top.at[key] = field.value;
  }
  return top;
}

struct HeaderView {
  std::string_view id, time, prev;
};

HeaderView header_view(const TopLevel& top) {
  const HeaderView out{ulid_text(top[k_id]), text(top[k_time]), text(top[k_prev])};
  require(is_rfc3339_utc(out.time));
  require(is_lower_hex64(out.prev));
  return out;
}

Header header(const TopLevel& top) {
  const HeaderView view = header_view(top);
  Header out;
  out.id = std::string(view.id);
  out.time = std::string(view.time);
  out.prev = std::string(view.prev);
  return out;
}

Summary summary(element value) {
  Summary out;
  bool n = false, mean = false, median = false, stddev = false, min = false, max = false;
  each_member(value, [&](std::string_view key, element v) {
    if (key == "n") {
      out.n = integer(v);
      require(out.n >= 0);
      n = true;
    } else if (key == "mean") {
      out.mean = number(v), mean = true;
    } else if (key == "median") {
      out.median = number(v), median = true;
    } else if (key == "stddev") {
      out.stddev = number(v), stddev = true;
    } else if (key == "min") {
      out.min = number(v), min = true;
    } else if (key == "max") {
      out.max = number(v), max = true;
    } else if (key == "p50") {
      out.p50 = number(v);
    } else if (key == "p90") {
      out.p90 = number(v);
    } else if (key == "p95") {
      out.p95 = number(v);
    } else if (key == "p99") {
      out.p99 = number(v);
    } else if (key == "p999") {
      out.p999 = number(v);
    } else {
      require_unique_names_within(v);
    }
  });
  require(n && mean && median && stddev && min && max);
  return out;
}

// Into `out`, whose storage is reused: every member is set.
void metric_into(element value, Metric& out) {
  bool unit = false, better = false, samples = false, has_value = false, has_summary = false,
       deterministic = false, counter = false;
  each_member(value, [&](std::string_view key, element v) {
    if (key == "unit") {
      out.unit = text(v);
      require(!out.unit.empty());
      unit = true;
    } else if (key == "better") {
      const auto word = better_from(text(v));
      require(word.has_value());
      out.better = *word;
      better = true;
    } else if (key == "deterministic") {
      require(v.type() == element_type::BOOL && v.get_bool().value_unsafe());
      deterministic = true;
    } else if (key == "counter") {
      out.counter = text(v);
      require(!out.counter->empty());
      counter = true;
    } else if (key == "samples") {
      if (!out.samples) out.samples.emplace();
      numbers_into(v, *out.samples);
      samples = true;
    } else if (key == "value") {
      out.value = number(v), has_value = true;
    } else if (key == "summary") {
      out.summary = summary(v), has_summary = true;
    } else {
      require_unique_names_within(v);
    }
  });
  require(unit && better && has_value && has_summary);
  if (!samples) out.samples.reset();
  out.deterministic = deterministic;
  if (!counter) out.counter.reset();
}

ParamValue param(element value) {
  switch (value.type()) {
    case element_type::STRING:
      return std::string(text(value));
    case element_type::BOOL:
      return value.get_bool().value_unsafe();
    case element_type::INT64:
      return value.get_int64().value_unsafe();
    case element_type::DOUBLE:
      return number(value);
    default:
      give_up();
  }
}

// Where a ResultView's params and metrics live: one a thread, reused from record to record.
struct ResultStorage {
  Params params;
  std::vector<std::pair<std::string_view, Metric>> metrics;  // the first `count` are the record's
};

ResultView result_view(const TopLevel& top, ResultStorage& storage) {
  require(top.only({k_schema_key, k_type, k_id, k_time, k_prev, k_run, k_bench, k_params, k_metrics,
                    k_primary, k_ops, k_errors}));
  ResultView out;
  const HeaderView head = header_view(top);
  out.id = head.id;
  out.time = head.time;
  out.prev = head.prev;
  out.run = ulid_text(top[k_run]);
  out.bench = text(top[k_bench]);
  require(!out.bench.empty());
  storage.params.clear();
  each_member(top[k_params], [&](std::string_view key, element v) {
    storage.params.insert_or_assign(std::string(key), param(v));
  });
  out.params = &storage.params;
  std::size_t count = 0;
  each_member(top[k_metrics], [&](std::string_view key, element v) {
    if (count == storage.metrics.size()) storage.metrics.emplace_back();
    storage.metrics[count].first = key;
    metric_into(v, storage.metrics[count].second);
    ++count;
  });
  out.metrics = std::span(storage.metrics).first(count);
  out.primary = text(top[k_primary]);
  // Names within an object are unique (members()): the primary is there once or not at all.
  require(std::any_of(out.metrics.begin(), out.metrics.end(),
                      [&](const auto& m) { return m.first == out.primary; }));
  out.ops = integer(top[k_ops]);
  out.errors = integer(top[k_errors]);
  require(out.ops >= 0 && out.errors >= 0);
  return out;
}

ResultRecord result(const TopLevel& top) {
  thread_local ResultStorage storage;
  const ResultView view = result_view(top, storage);
  ResultRecord out;
  out.header.id = std::string(view.id);
  out.header.time = std::string(view.time);
  out.header.prev = std::string(view.prev);
  out.run = std::string(view.run);
  out.bench = std::string(view.bench);
  out.params = *view.params;
  for (const auto& [name, metric] : view.metrics) out.metrics.emplace(std::string(name), metric);
  out.primary = std::string(view.primary);
  out.ops = view.ops;
  out.errors = view.errors;
  return out;
}

Env env(element value) {
  Env out;
  nullable_members(value, Field{"host", out.host}, Field{"virtualization", out.virtualization});
  const element cpu = member(value, "cpu");
  CpuInfo& c = out.cpu;
  nullable_members(cpu, Field{"model", c.model}, Field{"vendor", c.vendor}, Field{"arch", c.arch},
                   Field{"logical", c.logical}, Field{"physical", c.physical},
                   Field{"sockets", c.sockets}, Field{"online", c.online},
                   Field{"affinity", c.affinity}, Field{"quota", c.quota}, Field{"mhz", c.mhz},
                   Field{"governor", c.governor}, Field{"turbo", c.turbo}, Field{"smt", c.smt});
  nullable_members(member(cpu, "cache_bytes"), Field{"l1d", c.cache_bytes.l1d},
                   Field{"l2", c.cache_bytes.l2}, Field{"l3", c.cache_bytes.l3});
  nullable_members(member(value, "memory"), Field{"total_bytes", out.memory.total_bytes},
                   Field{"limit_bytes", out.memory.limit_bytes});
  nullable_members(member(value, "os"), Field{"name", out.os.name},
                   Field{"version", out.os.version}, Field{"kernel", out.os.kernel});
  nullable_members(member(value, "container"), Field{"kind", out.container.kind},
                   Field{"docker_version", out.container.docker_version});
  nullable_members(member(value, "clock"), Field{"source", out.clock.source},
                   Field{"read_ns", out.clock.read_ns});
  Runtimes& rt = out.runtimes;
  nullable_members(member(value, "runtimes"), Field{"compiler", rt.compiler},
                   Field{"build_type", rt.build_type}, Field{"node", rt.node},
                   Field{"python", rt.python}, Field{"postgres_client", rt.postgres_client},
                   Field{"postgres_server", rt.postgres_server});
  if (const auto benchledger = optional_member(member(value, "runtimes"), "benchledger")) {
    rt.benchledger = std::string(text(*benchledger));
  }
  if (const auto java = optional_member(member(value, "runtimes"), "java")) {
    rt.java = std::string(text(*java));
  }
  object env_members;
  require(value.get(env_members) == simdjson::SUCCESS);
  if (element postgres; env_members.at_key("postgres").get(postgres) == simdjson::SUCCESS) {
    PostgresSettings& pg = out.postgres.emplace();
    nullable_members(postgres, Field{"shared_buffers", pg.shared_buffers},
                     Field{"synchronous_commit", pg.synchronous_commit}, Field{"fsync", pg.fsync},
                     Field{"max_connections", pg.max_connections}, Field{"wal_level", pg.wal_level},
                     Field{"work_mem", pg.work_mem}, Field{"same_host", pg.same_host});
  }
  if (const element load_avg = member(value, "load_avg"); !load_avg.is_null()) {
    out.load_avg = numbers(load_avg);
    require(out.load_avg->size() == 3);
  }
  out.fingerprint = std::string(text(member(value, "fingerprint")));
  return out;
}

RunRecord run(const TopLevel& top) {
  require(top.only({k_schema_key, k_type, k_id, k_time, k_prev, k_label, k_project, k_git, k_env,
                    k_warnings, k_command, k_source}));
  RunRecord out;
  out.header = header(top);
  out.label = nullable_text(top[k_label]);
  require(!out.label || is_label(*out.label));
  out.project = std::string(text(top[k_project]));
  nullable_members(top[k_git], Field{"commit", out.git.commit}, Field{"branch", out.git.branch},
                   Field{"dirty", out.git.dirty});
  out.env = env(top[k_env]);
  out.warnings = texts(top[k_warnings]);
  out.command = texts(top[k_command]);
  out.source = std::string(text(top[k_source]));
  require(!out.source.empty());
  return out;
}

NoteRecord note(const TopLevel& top) {
  require(top.only(
      {k_schema_key, k_type, k_id, k_time, k_prev, k_target, k_bench, k_kind, k_text, k_author}));
  NoteRecord out;
  out.header = header(top);
  out.target = ulid(top[k_target]);
  out.bench = nullable_text(top[k_bench]);
  const auto kind = note_kind_from(text(top[k_kind]));
  require(kind.has_value());
  out.kind = *kind;
  out.text = std::string(text(top[k_text]));
  out.author = std::string(text(top[k_author]));
  return out;
}

}  // namespace

namespace {

// The root of the parse of `line`, copied into `padded` first (simdjson reads up to
// SIMDJSON_PADDING bytes past its input), or nullopt when the line is not JSON.
std::optional<element> parse_root(simdjson::dom::parser& parser, std::string& padded,
                                  std::string_view line) {
  // simdjson's depth limit (1024 by default) set to the slow path's, so that the fast path never
  // accepts a record that parse_bounded_json refuses: both count the arrays and objects open, the
  // record's own included (the fuzz corpus holds a record of 512 levels and one of 513). It stays
  // with the parser when it grows.
  if (parser.max_depth() != k_max_nesting &&
      parser.allocate(std::max(line.size(), parser.capacity()), k_max_nesting) !=
          simdjson::SUCCESS) {
    return std::nullopt;
  }
  padded.assign(line);
  padded.resize(line.size() + simdjson::SIMDJSON_PADDING, '\0');
  element root;
  if (parser.parse(padded.data(), line.size(), false).get(root) != simdjson::SUCCESS) {
    return std::nullopt;
  }
  return root;
}

std::optional<Record> read(simdjson::dom::parser& parser, std::string& padded,
                           std::string_view line) {
  const std::optional<element> root = parse_root(parser, padded, line);
  if (!root) return std::nullopt;
  try {
    const TopLevel top = top_level(*root);
    if (text(top[k_schema_key]) != k_schema) return std::nullopt;
    const std::string_view type = text(top[k_type]);
    if (type == "result") return result(top);
    if (type == "run") return run(top);
    if (type == "note") return note(top);
  } catch (const GiveUp&) {
  }
  return std::nullopt;
}

}  // namespace

std::optional<ResultView> read_result_fast(std::string_view line) {
  if (line.size() > k_max_line_bytes) return std::nullopt;
  // As parse_record_fast (below); the views point into `padded` and `storage`.
  thread_local simdjson::dom::parser parser;
  thread_local std::string padded;
  thread_local ResultStorage storage;
  if (line.size() > (std::size_t{1} << 20)) {
    // A record over 1 MiB: read by parse_record, whose buffers are let go after it.
    return std::nullopt;
  }
  const std::optional<element> root = parse_root(parser, padded, line);
  if (!root) return std::nullopt;
  try {
    const TopLevel top = top_level(*root);
    if (text(top[k_schema_key]) != k_schema || text(top[k_type]) != "result") return std::nullopt;
    return result_view(top, storage);
  } catch (const GiveUp&) {
  }
  return std::nullopt;
}

std::optional<Record> parse_record_fast(std::string_view line) {
  if (line.size() > k_max_line_bytes) return std::nullopt;
  // One parser and one padded copy of the line a thread (simdjson reads up to SIMDJSON_PADDING
  // bytes past the end of its input), reused from line to line; after a line over 1 MiB, both
  // are let go rather than kept at that size for the thread's lifetime.
  thread_local simdjson::dom::parser parser;
  thread_local std::string padded;
  std::optional<Record> record = read(parser, padded, line);
  if (line.size() > (std::size_t{1} << 20)) {
    parser = simdjson::dom::parser();
    padded = std::string();
  }
  return record;
}

}  // namespace benchledger::model
