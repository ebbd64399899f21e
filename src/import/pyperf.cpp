// pyperf's JSON (`python -m pyperf ... -o FILE`) to result records.
#include <benchledger/error.hpp>

#include "import/file_environment.hpp"
#include "import/import.hpp"
#include "import/json_input.hpp"

namespace benchledger::import {

namespace {

using namespace detail;

// pyperf's `cpu_freq` metadata: "0-1=2445 MHz" or "0=2445 MHz;1=2600 MHz": the first CPUs'.
std::optional<double> megahertz(const std::string& cpu_freq) {
  const auto equals = cpu_freq.find('=');
  const auto mhz = cpu_freq.find(" MHz");
  if (equals == std::string::npos || mhz == std::string::npos || mhz < equals) return std::nullopt;
  const ParamValue value = param_value(cpu_freq.substr(equals + 1, mhz - equals - 1));
  if (const auto* i = std::get_if<std::int64_t>(&value)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&value)) return *d;
  return std::nullopt;
}

void read_metadata(const json& metadata, FileEnvironment& file) {
  Env& env = file.env;
  if (!env.host) env.host = optional_text(metadata, "hostname");
  if (!env.cpu.model) env.cpu.model = optional_text(metadata, "cpu_model_name");
  if (!env.cpu.logical) env.cpu.logical = optional_integer(metadata, "cpu_count");
  if (const auto freq = optional_text(metadata, "cpu_freq"); freq && !env.cpu.mhz)
    env.cpu.mhz = megahertz(*freq);
  if (const auto python = optional_text(metadata, "python_version"); python && !env.runtimes.python)
    env.runtimes.python = "Python " + python->substr(0, python->find(' '));  // as python3 --version
  if (!file.tool_version) file.tool_version = optional_text(metadata, "perf_version");
  if (!file.measured_at) file.measured_at = optional_text(metadata, "date");
  for (const char* key : {"platform", "python_implementation", "cpu_config", "aslr",
                          "load_avg_1min", "boot_time", "timer"}) {
    if (const auto it = metadata.find(key); it != metadata.end() && !file.facts.contains(key))
      file.facts[key] = *it;
  }
}

// pyperf's `unit` metadata: second (the default), byte or integer.
std::pair<std::string, std::string> metric_of_unit(const std::string& unit) {
  if (unit == "second") return {"time", "s"};
  if (unit == "byte") return {"memory", "bytes"};
  return {"value", "count"};
}

}  // namespace

ImportedResults read_pyperf(std::string_view json_text, const std::string& origin) {
  const json document = parse_json(json_text, origin);
  const json& benchmarks = member(document, "benchmarks", "", origin);
  if (!benchmarks.is_array()) fail(origin, "benchmarks", "expected an array");
  const json common = document.contains("metadata") ? document["metadata"] : json::object();
  if (!common.is_object()) fail(origin, "metadata", "expected an object");
  ImportedResults imported;
  FileEnvironment& file = imported.environment;
  read_metadata(common, file);

  for (std::size_t i = 0; i < benchmarks.size(); ++i) {
    const std::string path = "benchmarks[" + std::to_string(i) + "]";
    const json& entry = benchmarks[i];
    json metadata = common;
    if (const auto own = entry.find("metadata"); own != entry.end()) {
      if (!own->is_object()) fail(origin, path + ".metadata", "expected an object");
      metadata.update(*own);
    }
    const std::string name =
        text(member(metadata, "name", path + ".metadata", origin), path + ".metadata.name", origin);
    const json& runs = member(entry, "runs", path, origin);
    if (!runs.is_array()) fail(origin, path + ".runs", "expected an array");
    std::vector<double> values;
    std::int64_t loops = 0;
    const auto common_loops = optional_integer(metadata, "loops");
    for (std::size_t k = 0; k < runs.size(); ++k) {
      const std::string run_path = path + ".runs[" + std::to_string(k) + "]";
      const json& run = runs[k];
      if (!run.is_object()) fail(origin, run_path, "expected an object");
      if (i == 0 && run.contains("metadata")) read_metadata(run["metadata"], file);
      // A calibration run has warmups only: its values are not measurements.
      const auto run_values = run.find("values");
      if (run_values == run.end()) continue;
      if (!run_values->is_array()) fail(origin, run_path + ".values", "expected an array");
      const auto run_loops =
          run.contains("metadata") ? optional_integer(run["metadata"], "loops") : std::nullopt;
      for (std::size_t v = 0; v < run_values->size(); ++v) {
        values.push_back(
            number((*run_values)[v], run_path + ".values[" + std::to_string(v) + "]", origin));
        const std::int64_t run_loop_count = run_loops.value_or(common_loops.value_or(1));
        if (run_loop_count < 1) {
          fail(origin, (run_loops ? run_path : path) + ".metadata.loops",
               "expected 1 or more loops");
        }
        if (__builtin_add_overflow(loops, run_loop_count, &loops))
          fail(origin, run_path, "the loops of the runs add up beyond the largest count");
      }
    }
    if (values.empty()) fail(origin, path + ".runs", "no run has values (only calibration)");
    const auto [metric, unit] = metric_of_unit(optional_text(metadata, "unit").value_or("second"));
    ResultRecord r = new_result(name);
    r.metrics[metric] = metric_from_samples(unit, Better::lower, std::move(values));
    r.primary = metric;
    r.ops = loops;
    r.errors = 0;
    imported.results.push_back(std::move(r));
  }
  note_given_fields(file);
  return imported;
}

}  // namespace benchledger::import
