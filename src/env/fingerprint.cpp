// The fingerprint over the comparability fields, the differences between two environments,
// and the stability warnings.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <benchledger/error.hpp>

#include "env/env.hpp"

namespace benchledger::env {

namespace {

// A comparability field's value as JSON text: null, a number, or a JSON string.
template <typename T>
std::string json_text(const std::optional<T>& value) {
  if (!value) return "null";
  if constexpr (std::is_same_v<T, double>) {
    // Never NaN here in practice; JSON has no spelling for it, so say null rather than throw.
    if (!std::isfinite(*value)) return "null";
  }
  // Invalid UTF-8 cannot reach here (capture() repairs it), but dump() must not throw.
  return nlohmann::json(*value).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

struct Field {
  const char* name;
  std::function<std::string(const Env&)> value;
};

const std::vector<Field>& fields() {
  static const std::vector<Field> k_fields = {
      {"cpu.model", [](const Env& e) { return json_text(e.cpu.model); }},
      {"cpu.vendor", [](const Env& e) { return json_text(e.cpu.vendor); }},
      {"cpu.arch", [](const Env& e) { return json_text(e.cpu.arch); }},
      {"cpu.logical", [](const Env& e) { return json_text(e.cpu.logical); }},
      {"cpu.physical", [](const Env& e) { return json_text(e.cpu.physical); }},
      {"cpu.sockets", [](const Env& e) { return json_text(e.cpu.sockets); }},
      {"cpu.online", [](const Env& e) { return json_text(e.cpu.online); }},
      {"cpu.affinity", [](const Env& e) { return json_text(e.cpu.affinity); }},
      {"cpu.quota", [](const Env& e) { return json_text(e.cpu.quota); }},
      {"memory.total_bytes", [](const Env& e) { return json_text(e.memory.total_bytes); }},
      {"memory.limit_bytes", [](const Env& e) { return json_text(e.memory.limit_bytes); }},
      {"os.name", [](const Env& e) { return json_text(e.os.name); }},
      {"os.version", [](const Env& e) { return json_text(e.os.version); }},
      {"os.kernel", [](const Env& e) { return json_text(e.os.kernel); }},
      {"virtualization", [](const Env& e) { return json_text(e.virtualization); }},
      {"container.kind", [](const Env& e) { return json_text(e.container.kind); }},
      {"runtimes.compiler", [](const Env& e) { return json_text(e.runtimes.compiler); }},
      {"runtimes.build_type", [](const Env& e) { return json_text(e.runtimes.build_type); }},
  };
  return k_fields;
}

// A setting of the measured PostgreSQL server; null in a run that measured none.
template <class T>
std::function<std::string(const Env&)> postgres_field(std::optional<T> PostgresSettings::*member) {
  return [member](const Env& e) {
    return e.postgres ? json_text((*e.postgres).*member) : std::string("null");
  };
}

// Compared as well, but not hashed into the fingerprint: a run records these tools' versions
// whether or not it uses them, and fingerprints already in ledgers must stay what they were.
// Which benchledger measured is one of them: a new benchledger is worth naming in a comparison,
// not a different machine.
const std::vector<Field>& runtime_fields() {
  static const std::vector<Field> k_fields = {
      {"runtimes.node", [](const Env& e) { return json_text(e.runtimes.node); }},
      {"runtimes.python", [](const Env& e) { return json_text(e.runtimes.python); }},
      {"runtimes.postgres_client",
       [](const Env& e) { return json_text(e.runtimes.postgres_client); }},
      {"runtimes.postgres_server",
       [](const Env& e) { return json_text(e.runtimes.postgres_server); }},
      {"runtimes.benchledger", [](const Env& e) { return json_text(e.runtimes.benchledger); }},
      {"runtimes.java", [](const Env& e) { return json_text(e.runtimes.java); }},
      {"postgres.shared_buffers", postgres_field(&PostgresSettings::shared_buffers)},
      {"postgres.synchronous_commit", postgres_field(&PostgresSettings::synchronous_commit)},
      {"postgres.fsync", postgres_field(&PostgresSettings::fsync)},
      {"postgres.max_connections", postgres_field(&PostgresSettings::max_connections)},
      {"postgres.wal_level", postgres_field(&PostgresSettings::wal_level)},
      {"postgres.work_mem", postgres_field(&PostgresSettings::work_mem)},
      {"postgres.same_host", postgres_field(&PostgresSettings::same_host)},
  };
  return k_fields;
}

// The CPUs this process can use: the fewest of those known (affinity, online, present).
std::optional<double> cpus_available(const Env& env) {
  std::optional<double> cpus;
  for (const auto& count : {env.cpu.affinity, env.cpu.online, env.cpu.logical}) {
    if (count && *count > 0 && (!cpus || static_cast<double>(*count) < *cpus))
      cpus = static_cast<double>(*count);
  }
  return cpus;
}

std::string cpus_text(double cpus) {
  return fmt::format("{:g} CPU{}", cpus, cpus == 1 ? "" : "s");
}

}  // namespace

const std::vector<std::string>& comparability_fields() {
  static const std::vector<std::string> k_names = [] {
    std::vector<std::string> names;
    for (const auto& field : fields()) names.emplace_back(field.name);
    return names;
  }();
  return k_names;
}

std::string fingerprint_text(const Env& env) {
  std::string text = "benchledger-env-fingerprint/1\n";
  for (const auto& field : fields()) {
    text += field.name;
    text += '=';
    text += field.value(env);
    text += '\n';
  }
  return text;
}

std::string fingerprint(const Env& env) {
  return sha256_hex(fingerprint_text(env));
}

const std::vector<std::string>& compared_fields() {
  static const std::vector<std::string> k_names = [] {
    std::vector<std::string> names = comparability_fields();
    for (const auto& field : runtime_fields()) names.emplace_back(field.name);
    return names;
  }();
  return k_names;
}

std::vector<FieldDifference> environment_differences(const Env& base, const Env& current,
                                                     const std::vector<std::string>& ignore) {
  const std::vector<std::string>& known = compared_fields();
  for (const std::string& name : ignore) {
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      throw Error(fmt::format("environment.ignore: \"{}\" is not a compared field (one of {})",
                              name, fmt::join(known, ", ")));
    }
  }
  std::vector<FieldDifference> out;
  for (const auto* list : {&fields(), &runtime_fields()}) {
    for (const Field& field : *list) {
      if (std::find(ignore.begin(), ignore.end(), field.name) != ignore.end()) continue;
      std::string b = field.value(base), c = field.value(current);
      if (b != c) out.push_back({field.name, std::move(b), std::move(c)});
    }
  }
  return out;
}

std::vector<std::string> differing_fields(const Env& a, const Env& b) {
  std::vector<std::string> names;
  for (const FieldDifference& difference : environment_differences(a, b)) {
    names.push_back(difference.field);
  }
  return names;
}

std::vector<std::string> stability_warnings(const Env& env) {
  std::vector<std::string> warnings;
  if (env.cpu.governor && *env.cpu.governor != "performance") {
    warnings.push_back(fmt::format(
        "the CPU frequency governor is \"{}\", not \"performance\": clock speeds may change "
        "during the run",
        *env.cpu.governor));
  }
  if (env.cpu.turbo && *env.cpu.turbo) {
    warnings.push_back(
        "turbo boost is on: clock speeds depend on temperature and on how many cores are busy");
  }
  const auto cpus = cpus_available(env);
  const std::optional<double> budget =
      env.cpu.quota && (!cpus || *env.cpu.quota < *cpus) ? env.cpu.quota : cpus;
  // Half the available CPUs busy already means a benchmark's threads share cores.
  if (env.load_avg && !env.load_avg->empty() && budget && (*env.load_avg)[0] > 0.5 * *budget) {
    warnings.push_back(fmt::format(
        "the 1-minute load average is {:.2f} with {} available: other processes compete for "
        "the CPUs",
        (*env.load_avg)[0], cpus_text(*budget)));
  }
  if (env.runtimes.build_type) {
    std::string type = *env.runtimes.build_type;
    std::transform(type.begin(), type.end(), type.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (type == "debug") {
      warnings.push_back(fmt::format("this is a {} build: timings do not reflect optimized code",
                                     *env.runtimes.build_type));
    }
  }
  if (env.container.kind) {
    warnings.push_back(fmt::format(
        "running in a container ({}): CPU and memory limits and other containers on the host "
        "may affect timings",
        *env.container.kind));
  }
  if (env.virtualization) {
    warnings.push_back(fmt::format(
        "running in a virtual machine ({}): steal time and other guests on the host may affect "
        "timings",
        *env.virtualization));
  }
  if (env.cpu.quota && cpus && *env.cpu.quota < *cpus) {
    warnings.push_back(
        fmt::format("the cgroup CPU quota is {:g} CPUs, fewer than the {} this process may run on: "
                    "parallel work will be throttled",
                    *env.cpu.quota, cpus_text(*cpus)));
  }
  return warnings;
}

}  // namespace benchledger::env
