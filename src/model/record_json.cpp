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

#include <benchledger/error.hpp>
#include <benchledger/record.hpp>

#include "model/canonical_writer.hpp"

namespace benchledger {

namespace {

using ojson = nlohmann::ordered_json;
using model::CanonicalWriter;
using model::FieldPath;

FieldPath at(std::string_view path) {
  return FieldPath{path, {}, {}, {}};
}

// `"key":"value"` and `"key":null` for the record's own fields, named by their key in errors.
void member(CanonicalWriter& w, std::string_view key, std::string_view value) {
  w.key(key);
  w.string(value, at(key));
}
void optional_member(CanonicalWriter& w, std::string_view key,
                     const std::optional<std::string>& value) {
  w.key(key);
  w.optional(value, at(key));
}

void write_header(CanonicalWriter& w, const Header& header, std::string_view type,
                  std::string_view prev) {
  member(w, "schema", k_schema);
  member(w, "type", type);
  member(w, "id", header.id);
  member(w, "time", header.time);
  member(w, "prev", prev);
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

void write_metric(CanonicalWriter& w, std::string_view name, const Metric& metric) {
  const auto field = [&](std::string_view tail, std::int64_t index = -1) {
    return FieldPath{"metrics.", name, tail, {}, index};
  };
  w.open('{');
  w.key("unit");
  w.string(metric.unit, field(".unit"));
  w.key("better");
  w.string(to_string(metric.better), field(".better"));
  if (metric.deterministic) {
    w.key("deterministic");
    w.boolean(true);
  }
  if (metric.counter) {
    w.key("counter");
    w.string(*metric.counter, field(".counter"));
  }
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
  if (rt.java) {  // the same: only an imported JMH run states it
    w.key("java");
    w.optional(rt.java, at("env.runtimes.java"));
  }
  w.close('}');
  if (env.postgres) {  // absent, not null, without a server: older records keep their bytes
    const PostgresSettings& pg = *env.postgres;
    w.key("postgres");
    OptionalMembers(w, "env.postgres.")("shared_buffers", pg.shared_buffers)(
        "synchronous_commit", pg.synchronous_commit)("fsync", pg.fsync)(
        "max_connections", pg.max_connections)("wal_level", pg.wal_level)("work_mem", pg.work_mem)(
        "same_host", pg.same_host)
        .close();
  }
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

// A record: its header, its own fields (written by `fields`, in the order of `keys`), then the
// unknown fields it was read with.
template <class Fields>
void write_record_object(CanonicalWriter& w, const Header& header, std::string_view type,
                         std::string_view prev, std::initializer_list<std::string_view> keys,
                         const Fields& fields) {
  w.open('{');
  write_header(w, header, type, prev);
  fields();
  write_extra(w, header, keys);
  w.close('}');
}

void write_record(CanonicalWriter& w, const RunRecord& run, std::string_view prev) {
  write_record_object(w, run.header, "run", prev,
                      {"label", "project", "git", "env", "warnings", "command", "source"}, [&] {
                        optional_member(w, "label", run.label);
                        member(w, "project", run.project);
                        w.key("git");
                        OptionalMembers(w, "git.")("commit", run.git.commit)(
                            "branch", run.git.branch)("dirty", run.git.dirty)
                            .close();
                        w.key("env");
                        write_env(w, run.env);
                        w.key("warnings");
                        write_strings(w, run.warnings, "warnings");
                        w.key("command");
                        write_strings(w, run.command, "command");
                        member(w, "source", run.source);
                      });
}

void write_record(CanonicalWriter& w, const ResultRecord& result, std::string_view prev) {
  write_record_object(w, result.header, "result", prev,
                      {"run", "bench", "params", "metrics", "primary", "ops", "errors"}, [&] {
                        member(w, "run", result.run);
                        member(w, "bench", result.bench);
                        w.key("params");
                        write_params(w, result.params);
                        w.key("metrics");
                        w.open('{');
                        for (const auto& [name, metric] : result.metrics) {
                          w.key(name, FieldPath{"metrics.", name, {}, {}});
                          write_metric(w, name, metric);
                        }
                        w.close('}');
                        member(w, "primary", result.primary);
                        w.key("ops");
                        w.integer(result.ops);
                        w.key("errors");
                        w.integer(result.errors);
                      });
}

void write_record(CanonicalWriter& w, const NoteRecord& note, std::string_view prev) {
  write_record_object(w, note.header, "note", prev, {"target", "bench", "kind", "text", "author"},
                      [&] {
                        member(w, "target", note.target);
                        optional_member(w, "bench", note.bench);
                        member(w, "kind", to_string(note.kind));
                        member(w, "text", note.text);
                        member(w, "author", note.author);
                      });
}

}  // namespace

void model::write_params(CanonicalWriter& w, const Params& params) {
  w.open('{');
  for (const auto& [key, value] : params) {
    const FieldPath field{"params.", key, {}, {}};
    w.key(key, field);
    write_param(w, value, field);
  }
  w.close('}');
}

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
