// mitata's JSON (`run({ format: 'json' })`) to result records.
#include <benchledger/error.hpp>

#include "import/file_environment.hpp"
#include "import/import.hpp"
#include "import/json_input.hpp"

namespace benchledger::import {

namespace {

using namespace detail;

// `context`: the CPU's name and frequency (GHz), `arch` as node's `${process.arch}-${platform}`,
// the runtime and its version, `now` (ms since the epoch).
void read_context(const json& document, FileEnvironment& file) {
  const auto context = document.find("context");
  if (context == document.end() || !context->is_object()) return;
  Env& env = file.env;
  if (const auto cpu = context->find("cpu"); cpu != context->end() && cpu->is_object()) {
    env.cpu.model = optional_text(*cpu, "name");
    if (const auto ghz = optional_number(*cpu, "freq")) env.cpu.mhz = *ghz * 1000;
  }
  if (const auto arch = optional_text(*context, "arch")) {
    file.facts["arch"] = *arch;
    const std::string machine = arch->substr(0, arch->find('-'));
    // As uname -m (and so the environment of other runs) names the architecture.
    env.cpu.arch = machine == "x64" ? "x86_64" : machine == "arm64" ? "aarch64" : machine;
  }
  const auto runtime = optional_text(*context, "runtime");
  const auto version = optional_text(*context, "version");
  if (runtime) file.facts["runtime"] = *runtime;
  if (runtime == "node" && version) env.runtimes.node = "v" + *version;  // as node --version
  if (const auto now = optional_integer(*context, "now"))
    file.measured_at = rfc3339_of_milliseconds(*now);
}

}  // namespace

ImportedResults read_mitata(std::string_view json_text, const std::string& origin) {
  const json document = parse_json(json_text, origin);
  const json& benchmarks = member(document, "benchmarks", "", origin);
  if (!benchmarks.is_array()) fail(origin, "benchmarks", "expected an array");
  ImportedResults imported;
  read_context(document, imported.environment);
  note_given_fields(imported.environment);
  for (std::size_t i = 0; i < benchmarks.size(); ++i) {
    const std::string path = "benchmarks[" + std::to_string(i) + "]";
    const json& entry = benchmarks[i];
    const std::string alias = text(member(entry, "alias", path, origin), path + ".alias", origin);
    const json& runs = member(entry, "runs", path, origin);
    if (!runs.is_array()) fail(origin, path + ".runs", "expected an array");
    for (std::size_t k = 0; k < runs.size(); ++k) {
      const std::string run_path = path + ".runs[" + std::to_string(k) + "]";
      const json& run = runs[k];
      if (!run.is_object()) fail(origin, run_path, "expected an object");
      Params params;
      if (const auto args = run.find("args"); args != run.end()) {
        if (!args->is_object()) fail(origin, run_path + ".args", "expected an object");
        for (const auto& [key, value] : args->items()) params[key] = json_param(value);
      }
      if (const auto error = run.find("error"); error != run.end() && !error->is_null()) {
        const std::string message = error->is_object()
                                        ? optional_text(*error, "message").value_or(error->dump())
                                    : error->is_string() ? error->get<std::string>()
                                                         : error->dump();
        ResultRecord failed = failed_result(alias, message, 1, 1);
        failed.params = params;
        imported.results.push_back(std::move(failed));
        continue;
      }
      const std::string stats_path = run_path + ".stats";
      const json& stats = member(run, "stats", run_path, origin);
      const json& samples = member(stats, "samples", stats_path, origin);
      if (!samples.is_array() || samples.empty())
        fail(origin, stats_path + ".samples", "expected a non-empty array of nanoseconds");
      std::vector<double> values;
      for (std::size_t s = 0; s < samples.size(); ++s)
        values.push_back(
            number(samples[s], stats_path + ".samples[" + std::to_string(s) + "]", origin));
      ResultRecord r = new_result(alias, params);
      r.metrics["time"] = metric_from_samples("ns", Better::lower, std::move(values));
      r.primary = "time";
      r.ops = stats.contains("ticks") ? count(stats["ticks"], stats_path + ".ticks", origin)
                                      : static_cast<std::int64_t>(samples.size());
      r.errors = 0;
      imported.results.push_back(std::move(r));
    }
  }
  if (imported.results.empty()) fail(origin, "benchmarks", "no benchmark runs");
  return imported;
}

}  // namespace benchledger::import
