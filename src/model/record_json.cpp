// The canonical serialization of records: fixed key order (the order of DESIGN.md's tables),
// shortest round-trip numbers (nlohmann's dtoa), no whitespace, NaN and infinity refused.
#include <cmath>

#include <benchledger/error.hpp>
#include <benchledger/record.hpp>

namespace benchledger {

namespace {

using ojson = nlohmann::ordered_json;

template <class T>
ojson nullable(const std::optional<T>& value) {
  return value ? ojson(*value) : ojson(nullptr);
}

void refuse_non_finite(const ojson& json, const std::string& path) {
  if (json.is_number_float() && !std::isfinite(json.get<double>())) {
    throw Error("field \"" + path +
                "\": NaN or infinity cannot be written (JSON has no such number)");
  }
  if (json.is_object()) {
    for (const auto& [key, value] : json.items()) {
      refuse_non_finite(value, path.empty() ? key : path + "." + key);
    }
  } else if (json.is_array()) {
    for (std::size_t i = 0; i < json.size(); ++i) {
      refuse_non_finite(json[i], path + "[" + std::to_string(i) + "]");
    }
  }
}

ojson header_json(const Header& header, std::string_view type) {
  ojson json;
  json["schema"] = k_schema;
  json["type"] = type;
  json["id"] = header.id;
  json["time"] = header.time;
  json["prev"] = header.prev;
  return json;
}

void append_extra(ojson& json, const Header& header) {
  for (const auto& [key, value] : header.extra.items()) {
    if (!json.contains(key)) json[key] = value;  // nlohmann::json iterates keys sorted
  }
}

ojson to_ojson(const RunRecord& run) {
  ojson json = header_json(run.header, "run");
  json["label"] = nullable(run.label);
  json["project"] = run.project;
  json["git"] = ojson{{"commit", nullable(run.git.commit)},
                      {"branch", nullable(run.git.branch)},
                      {"dirty", nullable(run.git.dirty)}};
  json["env"] = to_json(run.env);
  json["warnings"] = run.warnings;
  json["command"] = run.command;
  json["source"] = run.source;
  append_extra(json, run.header);
  return json;
}

ojson to_ojson(const ResultRecord& result) {
  ojson json = header_json(result.header, "result");
  json["run"] = result.run;
  json["bench"] = result.bench;
  ojson params = ojson::object();
  for (const auto& [key, value] : result.params) params[key] = to_json(value);
  json["params"] = std::move(params);
  ojson metrics = ojson::object();
  for (const auto& [name, metric] : result.metrics) metrics[name] = to_json(metric);
  json["metrics"] = std::move(metrics);
  json["primary"] = result.primary;
  json["ops"] = result.ops;
  json["errors"] = result.errors;
  append_extra(json, result.header);
  return json;
}

ojson to_ojson(const NoteRecord& note) {
  ojson json = header_json(note.header, "note");
  json["target"] = note.target;
  json["bench"] = nullable(note.bench);
  json["kind"] = to_string(note.kind);
  json["text"] = note.text;
  json["author"] = note.author;
  append_extra(json, note.header);
  return json;
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
  }
  return "comment";
}

ojson to_json(const ParamValue& value) {
  return std::visit([](const auto& v) { return ojson(v); }, value);
}

std::string to_string(const ParamValue& value) {
  if (const auto* text = std::get_if<std::string>(&value)) return *text;
  return to_json(value).dump();
}

ojson to_json(const Metric& metric) {
  ojson json;
  json["unit"] = metric.unit;
  json["better"] = to_string(metric.better);
  if (metric.samples) json["samples"] = *metric.samples;
  json["value"] = metric.value;
  const Summary& s = metric.summary;
  ojson summary{{"n", s.n},           {"mean", s.mean}, {"median", s.median},
                {"stddev", s.stddev}, {"min", s.min},   {"max", s.max}};
  const std::pair<const char*, const std::optional<double>*> percentiles[] = {
      {"p50", &s.p50}, {"p90", &s.p90}, {"p95", &s.p95}, {"p99", &s.p99}, {"p999", &s.p999}};
  for (const auto& [name, value] : percentiles) {
    if (*value) summary[name] = **value;
  }
  json["summary"] = std::move(summary);
  return json;
}

ojson to_json(const Env& env) {
  const CpuInfo& cpu = env.cpu;
  ojson json;
  json["host"] = nullable(env.host);
  json["cpu"] = ojson{{"model", nullable(cpu.model)},
                      {"vendor", nullable(cpu.vendor)},
                      {"arch", nullable(cpu.arch)},
                      {"logical", nullable(cpu.logical)},
                      {"physical", nullable(cpu.physical)},
                      {"sockets", nullable(cpu.sockets)},
                      {"online", nullable(cpu.online)},
                      {"affinity", nullable(cpu.affinity)},
                      {"quota", nullable(cpu.quota)},
                      {"mhz", nullable(cpu.mhz)},
                      {"governor", nullable(cpu.governor)},
                      {"turbo", nullable(cpu.turbo)},
                      {"smt", nullable(cpu.smt)},
                      {"cache_bytes", ojson{{"l1d", nullable(cpu.cache_bytes.l1d)},
                                            {"l2", nullable(cpu.cache_bytes.l2)},
                                            {"l3", nullable(cpu.cache_bytes.l3)}}}};
  json["memory"] = ojson{{"total_bytes", nullable(env.memory.total_bytes)},
                         {"limit_bytes", nullable(env.memory.limit_bytes)}};
  json["os"] = ojson{{"name", nullable(env.os.name)},
                     {"version", nullable(env.os.version)},
                     {"kernel", nullable(env.os.kernel)}};
  json["virtualization"] = nullable(env.virtualization);
  json["container"] = ojson{{"kind", nullable(env.container.kind)},
                            {"docker_version", nullable(env.container.docker_version)}};
  json["clock"] =
      ojson{{"source", nullable(env.clock.source)}, {"read_ns", nullable(env.clock.read_ns)}};
  const Runtimes& rt = env.runtimes;
  json["runtimes"] = ojson{{"compiler", nullable(rt.compiler)},
                           {"build_type", nullable(rt.build_type)},
                           {"node", nullable(rt.node)},
                           {"python", nullable(rt.python)},
                           {"postgres_client", nullable(rt.postgres_client)},
                           {"postgres_server", nullable(rt.postgres_server)}};
  json["load_avg"] = nullable(env.load_avg);
  json["fingerprint"] = env.fingerprint;
  return json;
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
  const ojson json = std::visit([](const auto& r) { return to_ojson(r); }, record);
  refuse_non_finite(json, "");
  try {
    return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
  } catch (const nlohmann::json::type_error& e) {
    throw Error(std::string("record cannot be written: a string is not valid UTF-8 (") + e.what() +
                ")");
  }
}

std::string case_key(const std::string& bench, const Params& params) {
  ojson json = ojson::object();
  for (const auto& [key, value] : params) json[key] = to_json(value);
  return bench + json.dump();
}

}  // namespace benchledger
