// The canonical serialization of records: fixed key order (the order of docs/records.md's tables),
// shortest round-trip numbers, no whitespace, NaN and infinity refused.
//
// Records are written straight into one string rather than built as an nlohmann tree and
// dumped: the tree cost about 30 µs a result record, six times the write+fdatasync of the
// record's bytes (docs/ledger.md, "Performance"). The bytes are the ones nlohmann's dump()
// wrote before, so ledgers written by either compare equal: numbers go through nlohmann's own
// Grisu2 (detail::to_chars, what dump() calls for doubles) and strings are escaped as dump()
// escapes them with ensure_ascii off.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include <benchledger/error.hpp>
#include <benchledger/record.hpp>

namespace benchledger {

namespace {

using ojson = nlohmann::ordered_json;

// The length of the well-formed UTF-8 sequence starting at text[i], or 0 when it is not one
// (Unicode 15, table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF).
std::size_t utf8_sequence(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) {
    return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0u;
  };
  const auto cont = [&](std::size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) {
    const unsigned b = byte(k);
    return b >= lo && b <= hi;
  };
  const unsigned b0 = byte(0);
  if (b0 >= 0xC2 && b0 <= 0xDF) return cont(1) ? 2 : 0;
  if (b0 == 0xE0) return cont(1, 0xA0) && cont(2) ? 3 : 0;
  if (b0 == 0xED) return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;
  if (b0 >= 0xE1 && b0 <= 0xEF) return cont(1) && cont(2) ? 3 : 0;
  if (b0 == 0xF0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (b0 >= 0xF1 && b0 <= 0xF3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (b0 == 0xF4) return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

void refuse_non_finite(const nlohmann::json& json, const std::string& path) {
  if (json.is_number_float() && !std::isfinite(json.get<double>())) {
    throw Error("field \"" + path +
                "\": NaN or infinity cannot be written (JSON has no such number)");
  }
  if (json.is_object()) {
    for (const auto& [key, value] : json.items()) refuse_non_finite(value, path + "." + key);
  } else if (json.is_array()) {
    for (std::size_t i = 0; i < json.size(); ++i) {
      refuse_non_finite(json[i], path + "[" + std::to_string(i) + "]");
    }
  }
}

// Where a value sits in a record, for error messages: "metrics." + "time" + ".samples" + "[3]".
// Kept as pieces, joined only when something is wrong, so the happy path builds no strings.
struct FieldPath {
  std::string_view head, name, tail, leaf;
  std::int64_t index = -1;

  std::string str() const {
    std::string path = fmt::format("{}{}{}{}", head, name, tail, leaf);
    if (index >= 0) path += "[" + std::to_string(index) + "]";
    return path;
  }
};

// Appends canonical JSON to one string. Serializing is most of what appending to an NDJSON
// ledger costs (docs/ledger.md, "Performance"), so bytes go straight into the string's storage:
// room() makes space once per token, and a string's plain ASCII is scanned and copied eight
// bytes at a time. finish() trims the string to what was written.
class CanonicalWriter {
 public:
  explicit CanonicalWriter(std::string& out) : m_out(out), m_size(out.size()) {
    m_out.resize(m_out.capacity());  // what was reserved is room already
  }

  // Call once, when done: the string then holds exactly the bytes written.
  void finish() { m_out.resize(m_size); }

  // Opens an object or array, and separates members.
  void open(char bracket) {
    separate();
    put(bracket);
    m_first = true;
  }
  void close(char bracket) {
    put(bracket);
    m_first = false;
  }
  // `"name":` for a name known to need no escaping.
  void key(std::string_view name) {
    separate();
    char* at = room(name.size() + 3);
    at[0] = '"';
    std::memcpy(at + 1, name.data(), name.size());
    at[name.size() + 1] = '"';
    at[name.size() + 2] = ':';
    m_size += name.size() + 3;
    m_first = true;  // the value that follows takes no comma
  }
  // `"name":` for a name from the record (a param or metric name).
  void key(std::string_view name, const FieldPath& field) {
    separate();
    string_body(name, field);
    put(':');
    m_first = true;
  }

  void string(std::string_view text, const FieldPath& field) {
    separate();
    string_body(text, field);
  }
  void null() {
    separate();
    put("null");
  }
  void boolean(bool value) {
    separate();
    put(value ? "true" : "false");
  }
  void integer(std::int64_t value) {
    separate();
    char* at = room(20);
    m_size += static_cast<std::size_t>(std::to_chars(at, at + 20, value).ptr - at);
  }
  void number(double value, const FieldPath& field) {
    if (!std::isfinite(value)) {
      throw Error("field \"" + field.str() +
                  "\": NaN or infinity cannot be written (JSON has no such number)");
    }
    separate();
    // A record repeats many of its numbers (the median is the value and p50, min and max are
    // samples): the text of the last few is kept, a lookup against Grisu2's 50 ns or so.
    std::uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    Printed& memo = m_printed[(bits ^ (bits >> 29) ^ (bits >> 47)) % k_printed];
    if (memo.length == 0 || memo.bits != bits) {
      const char* end = nlohmann::detail::to_chars(memo.text, memo.text + sizeof memo.text, value);
      memo.bits = bits;
      memo.length = static_cast<std::uint8_t>(end - memo.text);
    }
    std::memcpy(room(sizeof memo.text), memo.text, sizeof memo.text);  // a fixed size: no call
    m_size += memo.length;
  }
  // A value that is not part of the schema (an unknown field kept verbatim).
  void json(const nlohmann::json& value, const FieldPath& where) {
    const std::string field = where.str();
    refuse_non_finite(value, field);
    separate();
    try {
      put(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::strict));
    } catch (const nlohmann::json::type_error& e) {
      throw Error("field \"" + field + "\": a string is not valid UTF-8 (" + e.what() + ")");
    }
  }

  template <class T>
  void optional(const std::optional<T>& value, const FieldPath& field) {
    if (!value) {
      null();
    } else if constexpr (std::is_same_v<T, std::string>) {
      string(*value, field);
    } else if constexpr (std::is_same_v<T, bool>) {
      boolean(*value);
    } else if constexpr (std::is_same_v<T, std::int64_t>) {
      integer(*value);
    } else {
      number(*value, field);
    }
  }

 private:
  // Space for `bytes` more bytes at the end of what was written; returns where they go.
  char* room(std::size_t bytes) {
    if (m_out.size() - m_size < bytes) [[unlikely]]
      grow(bytes);
    return m_out.data() + m_size;
  }
  [[gnu::noinline]] void grow(std::size_t bytes) {
    m_out.resize(std::max(2 * m_out.size(), m_size + bytes));
  }
  void put(char c) {
    *room(1) = c;
    ++m_size;
  }
  void put(std::string_view text) {
    std::memcpy(room(text.size()), text.data(), text.size());
    m_size += text.size();
  }

  void separate() {
    if (!m_first) put(',');
    m_first = false;
  }

  // True when none of the eight bytes of `word` needs a look: no control character, no quote
  // or backslash, nothing from 0x80 up (which must be checked as UTF-8).
  static bool plain8(std::uint64_t word) {
    constexpr std::uint64_t k_ones = 0x0101010101010101u;
    constexpr std::uint64_t k_highs = 0x8080808080808080u;
    const auto has_zero = [](std::uint64_t x) { return (x - k_ones) & ~x & k_highs; };
    const std::uint64_t below_space = (word - k_ones * 0x20) & ~word & k_highs;
    return ((below_space | has_zero(word ^ (k_ones * '"')) | has_zero(word ^ (k_ones * '\\')) |
             word) &
            k_highs) == 0;
  }

  // As nlohmann's dump() escapes with ensure_ascii off: the two-character escapes it knows,
  // \u00xx (lower-case hex) for the other control characters, everything else verbatim.
  void string_body(std::string_view text, const FieldPath& field) {
    static constexpr char k_hex[] = "0123456789abcdef";
    // Room for the text copied as it is and its quotes; only an escape, up to six bytes for
    // one, can need more, so each makes sure of room for itself and the rest.
    char* out = room(text.size() + 2);
    const char* limit = m_out.data() + m_out.size();
    *out++ = '"';
    for (std::size_t i = 0; i < text.size();) {
      if (i + 8 <= text.size()) {
        std::uint64_t word;
        std::memcpy(&word, text.data() + i, 8);
        if (plain8(word)) {
          std::memcpy(out, &word, 8);
          out += 8;
          i += 8;
          continue;
        }
      }
      const auto c = static_cast<unsigned char>(text[i]);
      if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
        *out++ = static_cast<char>(c);
        ++i;
        continue;
      }
      if (c >= 0x80) {
        const std::size_t length = utf8_sequence(text, i);
        if (length == 0) throw Error(fmt_utf8_error(field, i, c));
        std::memcpy(out, text.data() + i, length);
        out += length;
        i += length;
        continue;
      }
      if (const std::size_t need = text.size() - i + 6;
          static_cast<std::size_t>(limit - out) < need) {
        m_size = static_cast<std::size_t>(out - m_out.data());
        out = room(need);
        limit = m_out.data() + m_out.size();
      }
      *out++ = '\\';
      switch (c) {
        case '"':
          *out++ = '"';
          break;
        case '\\':
          *out++ = '\\';
          break;
        case '\b':
          *out++ = 'b';
          break;
        case '\f':
          *out++ = 'f';
          break;
        case '\n':
          *out++ = 'n';
          break;
        case '\r':
          *out++ = 'r';
          break;
        case '\t':
          *out++ = 't';
          break;
        default:
          std::memcpy(out, "u00", 3);
          out[3] = k_hex[c >> 4];
          out[4] = k_hex[c & 0xF];
          out += 5;
      }
      ++i;
    }
    *out++ = '"';
    m_size = static_cast<std::size_t>(out - m_out.data());
  }

  static std::string fmt_utf8_error(const FieldPath& field, std::size_t at, unsigned byte) {
    static constexpr char k_hex[] = "0123456789ABCDEF";
    return "field \"" + field.str() + "\": a string is not valid UTF-8 (byte 0x" +
           k_hex[byte >> 4] + k_hex[byte & 0xF] + " at offset " + std::to_string(at) + ")";
  }

  // A number's canonical text, as nlohmann's Grisu2 printed it (at most 25 characters).
  struct Printed {
    std::uint64_t bits = 0;   // the double's bits
    std::uint8_t length = 0;  // 0: empty
    char text[31];
  };
  static constexpr std::size_t k_printed = 16;

  std::string& m_out;
  std::size_t m_size;  // bytes written; m_out may be longer (room not yet used)
  bool m_first = true;
  std::array<Printed, k_printed> m_printed{};
};

FieldPath at(std::string_view path) {
  return FieldPath{path, {}, {}, {}};
}

void write_header(CanonicalWriter& w, const Header& header, std::string_view type,
                  std::string_view prev) {
  w.key("schema");
  w.string(k_schema, at("schema"));
  w.key("type");
  w.string(type, at("type"));
  w.key("id");
  w.string(header.id, at("id"));
  w.key("time");
  w.string(header.time, at("time"));
  w.key("prev");
  w.string(prev, at("prev"));
}

// Unknown fields go after the known ones, in nlohmann::json's (sorted) order; one that has a
// known field's name is not written twice.
void write_extra(CanonicalWriter& w, const Header& header,
                 std::initializer_list<std::string_view> known) {
  static constexpr std::string_view k_header_keys[] = {"schema", "type", "id", "time", "prev"};
  for (const auto& [key, value] : header.extra.items()) {
    const auto is = [&key = key](std::string_view k) { return k == key; };
    if (std::any_of(std::begin(k_header_keys), std::end(k_header_keys), is) ||
        std::any_of(known.begin(), known.end(), is))
      continue;
    w.key(key, at(key));
    w.json(value, at(key));
  }
}

void write_param(CanonicalWriter& w, const ParamValue& value, const FieldPath& field) {
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          w.string(v, field);
        } else if constexpr (std::is_same_v<T, double>) {
          w.number(v, field);
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          w.integer(v);
        } else {
          w.boolean(v);
        }
      },
      value);
}

void write_params(CanonicalWriter& w, const Params& params) {
  w.open('{');
  for (const auto& [key, value] : params) {
    const FieldPath field{"params.", key, {}, {}};
    w.key(key, field);
    write_param(w, value, field);
  }
  w.close('}');
}

void write_metric(CanonicalWriter& w, std::string_view name, const Metric& metric) {
  const auto field = [&](std::string_view tail, std::int64_t index = -1) {
    return FieldPath{"metrics.", name, tail, {}, index};
  };
  w.open('{');
  w.key("unit");
  w.string(metric.unit, field(".unit"));
  w.key("better");
  w.string(to_string(metric.better), field(".better"));
  if (metric.samples) {
    w.key("samples");
    w.open('[');
    const std::vector<double>& samples = *metric.samples;
    for (std::size_t i = 0; i < samples.size(); ++i) {
      w.number(samples[i], field(".samples", static_cast<std::int64_t>(i)));
    }
    w.close(']');
  }
  w.key("value");
  w.number(metric.value, field(".value"));
  const Summary& s = metric.summary;
  w.key("summary");
  w.open('{');
  w.key("n");
  w.integer(s.n);
  const std::pair<std::string_view, double> exact[] = {
      {"mean", s.mean}, {"median", s.median}, {"stddev", s.stddev}, {"min", s.min}, {"max", s.max}};
  for (const auto& [key, value] : exact) {
    w.key(key);
    w.number(value, FieldPath{"metrics.", name, ".summary.", key});
  }
  const std::pair<std::string_view, const std::optional<double>*> percentiles[] = {
      {"p50", &s.p50}, {"p90", &s.p90}, {"p95", &s.p95}, {"p99", &s.p99}, {"p999", &s.p999}};
  for (const auto& [key, value] : percentiles) {
    if (!*value) continue;
    w.key(key);
    w.number(**value, FieldPath{"metrics.", name, ".summary.", key});
  }
  w.close('}');
  w.close('}');
}

// The members of one object of the record whose fields are optional values; each is named
// `prefix` + key in errors.
class OptionalMembers {
 public:
  OptionalMembers(CanonicalWriter& w, std::string_view prefix) : m_w(w), m_prefix(prefix) {
    m_w.open('{');
  }
  template <class T>
  OptionalMembers& operator()(std::string_view key, const std::optional<T>& value) {
    m_w.key(key);
    m_w.optional(value, FieldPath{m_prefix, key, {}, {}});
    return *this;
  }
  void close() { m_w.close('}'); }

 private:
  CanonicalWriter& m_w;
  std::string_view m_prefix;
};

void write_env(CanonicalWriter& w, const Env& env) {
  const CpuInfo& cpu = env.cpu;
  const Runtimes& rt = env.runtimes;
  w.open('{');
  w.key("host");
  w.optional(env.host, at("env.host"));
  w.key("cpu");
  OptionalMembers(w, "env.cpu.")("model", cpu.model)("vendor", cpu.vendor)("arch", cpu.arch)(
      "logical", cpu.logical)("physical", cpu.physical)("sockets", cpu.sockets)(
      "online", cpu.online)("affinity", cpu.affinity)("quota", cpu.quota)("mhz", cpu.mhz)(
      "governor", cpu.governor)("turbo", cpu.turbo)("smt", cpu.smt);
  w.key("cache_bytes");  // cpu's last member, an object of its own; cpu closes after it
  OptionalMembers(w, "env.cpu.cache_bytes.")("l1d", cpu.cache_bytes.l1d)("l2", cpu.cache_bytes.l2)(
      "l3", cpu.cache_bytes.l3)
      .close();
  w.close('}');
  w.key("memory");
  OptionalMembers(w, "env.memory.")("total_bytes", env.memory.total_bytes)("limit_bytes",
                                                                           env.memory.limit_bytes)
      .close();
  w.key("os");
  OptionalMembers(w, "env.os.")("name", env.os.name)("version", env.os.version)("kernel",
                                                                                env.os.kernel)
      .close();
  w.key("virtualization");
  w.optional(env.virtualization, at("env.virtualization"));
  w.key("container");
  OptionalMembers(w, "env.container.")("kind", env.container.kind)("docker_version",
                                                                   env.container.docker_version)
      .close();
  w.key("clock");
  OptionalMembers(w, "env.clock.")("source", env.clock.source)("read_ns", env.clock.read_ns)
      .close();
  w.key("runtimes");
  OptionalMembers(w, "env.runtimes.")("compiler", rt.compiler)("build_type", rt.build_type)(
      "node", rt.node)("python", rt.python)("postgres_client", rt.postgres_client)(
      "postgres_server", rt.postgres_server);
  if (rt.benchledger) {  // absent, not null, when unknown: older records keep their bytes
    w.key("benchledger");
    w.optional(rt.benchledger, at("env.runtimes.benchledger"));
  }
  w.close('}');
  w.key("load_avg");
  if (env.load_avg) {
    w.open('[');
    for (std::size_t i = 0; i < env.load_avg->size(); ++i) {
      w.number((*env.load_avg)[i],
               FieldPath{"env.load_avg", {}, {}, {}, static_cast<std::int64_t>(i)});
    }
    w.close(']');
  } else {
    w.null();
  }
  w.key("fingerprint");
  w.string(env.fingerprint, at("env.fingerprint"));
  w.close('}');
}

void write_strings(CanonicalWriter& w, const std::vector<std::string>& strings,
                   std::string_view name) {
  w.open('[');
  for (std::size_t i = 0; i < strings.size(); ++i) {
    w.string(strings[i], FieldPath{name, {}, {}, {}, static_cast<std::int64_t>(i)});
  }
  w.close(']');
}

void write_record(CanonicalWriter& w, const RunRecord& run, std::string_view prev) {
  w.open('{');
  write_header(w, run.header, "run", prev);
  w.key("label");
  w.optional(run.label, at("label"));
  w.key("project");
  w.string(run.project, at("project"));
  w.key("git");
  OptionalMembers(w, "git.")("commit", run.git.commit)("branch", run.git.branch)("dirty",
                                                                                 run.git.dirty)
      .close();
  w.key("env");
  write_env(w, run.env);
  w.key("warnings");
  write_strings(w, run.warnings, "warnings");
  w.key("command");
  write_strings(w, run.command, "command");
  w.key("source");
  w.string(run.source, at("source"));
  write_extra(w, run.header, {"label", "project", "git", "env", "warnings", "command", "source"});
  w.close('}');
}

void write_record(CanonicalWriter& w, const ResultRecord& result, std::string_view prev) {
  w.open('{');
  write_header(w, result.header, "result", prev);
  w.key("run");
  w.string(result.run, at("run"));
  w.key("bench");
  w.string(result.bench, at("bench"));
  w.key("params");
  write_params(w, result.params);
  w.key("metrics");
  w.open('{');
  for (const auto& [name, metric] : result.metrics) {
    w.key(name, FieldPath{"metrics.", name, {}, {}});
    write_metric(w, name, metric);
  }
  w.close('}');
  w.key("primary");
  w.string(result.primary, at("primary"));
  w.key("ops");
  w.integer(result.ops);
  w.key("errors");
  w.integer(result.errors);
  write_extra(w, result.header, {"run", "bench", "params", "metrics", "primary", "ops", "errors"});
  w.close('}');
}

void write_record(CanonicalWriter& w, const NoteRecord& note, std::string_view prev) {
  w.open('{');
  write_header(w, note.header, "note", prev);
  w.key("target");
  w.string(note.target, at("target"));
  w.key("bench");
  w.optional(note.bench, at("bench"));
  w.key("kind");
  w.string(to_string(note.kind), at("kind"));
  w.key("text");
  w.string(note.text, at("text"));
  w.key("author");
  w.string(note.author, at("author"));
  write_extra(w, note.header, {"target", "bench", "kind", "text", "author"});
  w.close('}');
}

}  // namespace

std::string_view to_string(Better better) {
  return better == Better::lower ? "lower" : "higher";
}

std::string_view to_string(NoteKind kind) {
  switch (kind) {
    case NoteKind::accept_regression:
      return "accept-regression";
    case NoteKind::invalidate:
      return "invalidate";
    case NoteKind::comment:
      return "comment";
    case NoteKind::remove:
      return "remove";
  }
  return "comment";
}

std::optional<Better> better_from(std::string_view word) {
  for (const Better better : {Better::lower, Better::higher}) {
    if (word == to_string(better)) return better;
  }
  return std::nullopt;
}

std::optional<NoteKind> note_kind_from(std::string_view word) {
  for (const NoteKind kind :
       {NoteKind::accept_regression, NoteKind::invalidate, NoteKind::comment, NoteKind::remove}) {
    if (word == to_string(kind)) return kind;
  }
  return std::nullopt;
}

ojson to_json(const ParamValue& value) {
  return std::visit([](const auto& v) { return ojson(v); }, value);
}

std::string to_string(const ParamValue& value) {
  if (const auto* text = std::get_if<std::string>(&value)) return *text;
  return to_json(value).dump();
}

// The embedded forms are parsed back from the canonical bytes, so that the key order is
// written down once, in the writer above.
ojson to_json(const Metric& metric) {
  std::string out;
  CanonicalWriter w(out);
  write_metric(w, "", metric);
  w.finish();
  return ojson::parse(out);
}

ojson to_json(const Env& env) {
  std::string out;
  CanonicalWriter w(out);
  write_env(w, env);
  w.finish();
  return ojson::parse(out);
}

const Header& header_of(const Record& record) {
  return std::visit([](const auto& r) -> const Header& { return r.header; }, record);
}

Header& header_of(Record& record) {
  return std::visit([](auto& r) -> Header& { return r.header; }, record);
}

std::string_view type_name(const Record& record) {
  switch (record.index()) {
    case 0:
      return "run";
    case 1:
      return "result";
    default:
      return "note";
  }
}

std::string serialize(const Record& record) {
  return serialize(record, header_of(record).prev);
}

std::string serialize(const Record& record, std::string_view prev) {
  std::string out;
  out.reserve(record.index() == 0 ? 2048 : 1024);
  CanonicalWriter w(out);
  std::visit([&w, prev](const auto& r) { write_record(w, r, prev); }, record);
  w.finish();
  return out;
}

std::string case_key(const std::string& bench, const Params& params) {
  std::string out = bench;
  CanonicalWriter w(out);
  write_params(w, params);
  w.finish();
  return out;
}

}  // namespace benchledger
