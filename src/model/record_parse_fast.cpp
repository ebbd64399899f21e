// parse_record()'s fast path (see record_parse_fast.hpp): simdjson's DOM instead of nlohmann's.
//
// It mirrors the slow path's rules exactly where it accepts, and gives up (returns nullopt) on
// everything else, so that the slow path decides and words every error:
// - a member name the schema does not know at the top level (it goes to `extra`);
// - any value of an unexpected type, any rule broken, any simdjson error;
// - -0.0, which nlohmann reads as the integer 0 when written `-0` and simdjson may not;
// - an integer field written as anything but an int64.
// Inside nested objects, unknown members are ignored and a repeated member's last value counts,
// as nlohmann (whose objects keep the last of repeated names) and the slow path do.
#include "model/record_parse_fast.hpp"

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>

#include <simdjson.h>

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

object members(element value) {
  object out;
  require(value.get(out) == simdjson::SUCCESS);
  return out;
}

std::vector<std::string> texts(element value) {
  array items;
  require(value.get(items) == simdjson::SUCCESS);
  std::vector<std::string> out;
  for (element item : items) out.emplace_back(text(item));
  return out;
}

std::vector<double> numbers(element value) {
  array items;
  require(value.get(items) == simdjson::SUCCESS);
  std::vector<double> out;
  out.reserve(items.size());
  for (element item : items) out.push_back(number(item));
  return out;
}

// Calls visit(name, value) for every member of a nested object, in order, so that a repeated
// name's last value is the one kept.
template <class Visit>
void each_member(element value, Visit&& visit) {
  for (const auto field : members(value)) visit(field.key, field.value);
}

bool is_lower_hex64(std::string_view text) {
  if (text.size() != 64) return false;
  for (const char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

bool is_rfc3339_utc(std::string_view text) {
  static constexpr std::string_view shape = "dddd-dd-ddTdd:dd:dd.ddddddZ";
  if (text.size() != shape.size()) return false;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 'd' ? (text[i] < '0' || text[i] > '9') : text[i] != shape[i]) return false;
  }
  return true;
}

std::string ulid(element value) {
  const std::string_view out = text(value);
  require(is_ulid(out));
  return std::string(out);
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

Header header(const TopLevel& top) {
  Header out;
  out.id = ulid(top[k_id]);
  out.time = std::string(text(top[k_time]));
  require(is_rfc3339_utc(out.time));
  out.prev = std::string(text(top[k_prev]));
  require(is_lower_hex64(out.prev));
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
    }
  });
  require(n && mean && median && stddev && min && max);
  return out;
}

Metric metric(element value) {
  Metric out;
  bool unit = false, better = false, has_value = false, has_summary = false;
  each_member(value, [&](std::string_view key, element v) {
    if (key == "unit") {
      out.unit = std::string(text(v));
      require(!out.unit.empty());
      unit = true;
    } else if (key == "better") {
      const std::string_view word = text(v);
      require(word == "lower" || word == "higher");
      out.better = word == "lower" ? Better::lower : Better::higher;
      better = true;
    } else if (key == "samples") {
      out.samples = numbers(v);
    } else if (key == "value") {
      out.value = number(v), has_value = true;
    } else if (key == "summary") {
      out.summary = summary(v), has_summary = true;
    }
  });
  require(unit && better && has_value && has_summary);
  return out;
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

ResultRecord result(const TopLevel& top) {
  require(top.only({k_schema_key, k_type, k_id, k_time, k_prev, k_run, k_bench, k_params, k_metrics,
                    k_primary, k_ops, k_errors}));
  ResultRecord out;
  out.header = header(top);
  out.run = ulid(top[k_run]);
  out.bench = std::string(text(top[k_bench]));
  require(!out.bench.empty());
  each_member(top[k_params], [&](std::string_view key, element v) {
    out.params.insert_or_assign(std::string(key), param(v));
  });
  each_member(top[k_metrics], [&](std::string_view key, element v) {
    out.metrics.insert_or_assign(std::string(key), metric(v));
  });
  out.primary = std::string(text(top[k_primary]));
  require(out.metrics.count(out.primary) == 1);
  out.ops = integer(top[k_ops]);
  out.errors = integer(top[k_errors]);
  require(out.ops >= 0 && out.errors >= 0);
  return out;
}

Env env(element value) {
  Env out;
  bool host = false, virtualization = false, load_avg = false, fingerprint = false;
  int objects = 0;  // cpu, memory, os, container, clock, runtimes: all six required
  each_member(value, [&](std::string_view key, element v) {
    if (key == "host") {
      out.host = nullable_text(v), host = true;
    } else if (key == "cpu") {
      CpuInfo& cpu = out.cpu;
      int seen = 0;
      each_member(v, [&](std::string_view k, element x) {
        // clang-format off
        if (k == "model") cpu.model = nullable_text(x), seen |= 1 << 0;
        else if (k == "vendor") cpu.vendor = nullable_text(x), seen |= 1 << 1;
        else if (k == "arch") cpu.arch = nullable_text(x), seen |= 1 << 2;
        else if (k == "logical") cpu.logical = nullable_integer(x), seen |= 1 << 3;
        else if (k == "physical") cpu.physical = nullable_integer(x), seen |= 1 << 4;
        else if (k == "sockets") cpu.sockets = nullable_integer(x), seen |= 1 << 5;
        else if (k == "online") cpu.online = nullable_integer(x), seen |= 1 << 6;
        else if (k == "affinity") cpu.affinity = nullable_integer(x), seen |= 1 << 7;
        else if (k == "quota") cpu.quota = nullable_number(x), seen |= 1 << 8;
        else if (k == "mhz") cpu.mhz = nullable_number(x), seen |= 1 << 9;
        else if (k == "governor") cpu.governor = nullable_text(x), seen |= 1 << 10;
        else if (k == "turbo") cpu.turbo = nullable_bool(x), seen |= 1 << 11;
        else if (k == "smt") cpu.smt = nullable_bool(x), seen |= 1 << 12;
        else if (k == "cache_bytes") {
          int cache = 0;
          each_member(x, [&](std::string_view c, element y) {
            if (c == "l1d") cpu.cache_bytes.l1d = nullable_integer(y), cache |= 1;
            else if (c == "l2") cpu.cache_bytes.l2 = nullable_integer(y), cache |= 2;
            else if (c == "l3") cpu.cache_bytes.l3 = nullable_integer(y), cache |= 4;
          });
          require(cache == 7);
          seen |= 1 << 13;
        }
        // clang-format on
      });
      require(seen == (1 << 14) - 1);
      objects |= 1 << 0;
    } else if (key == "memory") {
      int seen = 0;
      each_member(v, [&](std::string_view k, element x) {
        if (k == "total_bytes") out.memory.total_bytes = nullable_integer(x), seen |= 1;
        if (k == "limit_bytes") out.memory.limit_bytes = nullable_integer(x), seen |= 2;
      });
      require(seen == 3);
      objects |= 1 << 1;
    } else if (key == "os") {
      int seen = 0;
      each_member(v, [&](std::string_view k, element x) {
        if (k == "name") out.os.name = nullable_text(x), seen |= 1;
        if (k == "version") out.os.version = nullable_text(x), seen |= 2;
        if (k == "kernel") out.os.kernel = nullable_text(x), seen |= 4;
      });
      require(seen == 7);
      objects |= 1 << 2;
    } else if (key == "virtualization") {
      out.virtualization = nullable_text(v), virtualization = true;
    } else if (key == "container") {
      int seen = 0;
      each_member(v, [&](std::string_view k, element x) {
        if (k == "kind") out.container.kind = nullable_text(x), seen |= 1;
        if (k == "docker_version") out.container.docker_version = nullable_text(x), seen |= 2;
      });
      require(seen == 3);
      objects |= 1 << 3;
    } else if (key == "clock") {
      int seen = 0;
      each_member(v, [&](std::string_view k, element x) {
        if (k == "source") out.clock.source = nullable_text(x), seen |= 1;
        if (k == "read_ns") out.clock.read_ns = nullable_number(x), seen |= 2;
      });
      require(seen == 3);
      objects |= 1 << 4;
    } else if (key == "runtimes") {
      Runtimes& rt = out.runtimes;
      int seen = 0;
      each_member(v, [&](std::string_view k, element x) {
        if (k == "compiler") rt.compiler = nullable_text(x), seen |= 1 << 0;
        if (k == "build_type") rt.build_type = nullable_text(x), seen |= 1 << 1;
        if (k == "node") rt.node = nullable_text(x), seen |= 1 << 2;
        if (k == "python") rt.python = nullable_text(x), seen |= 1 << 3;
        if (k == "postgres_client") rt.postgres_client = nullable_text(x), seen |= 1 << 4;
        if (k == "postgres_server") rt.postgres_server = nullable_text(x), seen |= 1 << 5;
      });
      require(seen == (1 << 6) - 1);
      objects |= 1 << 5;
    } else if (key == "load_avg") {
      if (v.is_null()) {
        out.load_avg.reset();
      } else {
        out.load_avg = numbers(v);
        require(out.load_avg->size() == 3);
      }
      load_avg = true;
    } else if (key == "fingerprint") {
      out.fingerprint = std::string(text(v)), fingerprint = true;
    }
  });
  require(host && virtualization && load_avg && fingerprint && objects == (1 << 6) - 1);
  return out;
}

bool is_label(std::string_view label) {
  if (label.empty() || label.size() > 64) return false;
  for (const char c : label) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum && c != '.' && c != '_' && c != '-') return false;
  }
  return true;
}

RunRecord run(const TopLevel& top) {
  require(top.only({k_schema_key, k_type, k_id, k_time, k_prev, k_label, k_project, k_git, k_env,
                    k_warnings, k_command, k_source}));
  RunRecord out;
  out.header = header(top);
  out.label = nullable_text(top[k_label]);
  require(!out.label || is_label(*out.label));
  out.project = std::string(text(top[k_project]));
  int git = 0;
  each_member(top[k_git], [&](std::string_view k, element x) {
    if (k == "commit") out.git.commit = nullable_text(x), git |= 1;
    if (k == "branch") out.git.branch = nullable_text(x), git |= 2;
    if (k == "dirty") out.git.dirty = nullable_bool(x), git |= 4;
  });
  require(git == 7);
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
  const std::string_view kind = text(top[k_kind]);
  if (kind == "accept-regression") {
    out.kind = NoteKind::accept_regression;
  } else if (kind == "invalidate") {
    out.kind = NoteKind::invalidate;
  } else if (kind == "comment") {
    out.kind = NoteKind::comment;
  } else {
    give_up();
  }
  out.text = std::string(text(top[k_text]));
  out.author = std::string(text(top[k_author]));
  return out;
}

}  // namespace

std::optional<Record> parse_record_fast(std::string_view line) {
  // One parser and one padded copy of the line a thread, reused: simdjson reads up to
  // SIMDJSON_PADDING bytes past the end of its input.
  thread_local simdjson::dom::parser parser;
  thread_local std::string padded;
  if (line.size() > k_max_line_bytes) return std::nullopt;
  padded.assign(line);
  padded.resize(line.size() + simdjson::SIMDJSON_PADDING, '\0');
  element root;
  if (parser.parse(padded.data(), line.size(), false).get(root) != simdjson::SUCCESS) {
    return std::nullopt;
  }
  try {
    const TopLevel top = top_level(root);
    if (text(top[k_schema_key]) != k_schema) return std::nullopt;
    const std::string_view type = text(top[k_type]);
    if (type == "result") return result(top);
    if (type == "run") return run(top);
    if (type == "note") return note(top);
  } catch (const GiveUp&) {
  }
  return std::nullopt;
}

}  // namespace benchledger::model
