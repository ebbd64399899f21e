// pytest-benchmark's --benchmark-json to result records.
#include <benchledger/error.hpp>

#include "import/file_environment.hpp"
#include "import/import.hpp"
#include "import/json_input.hpp"

namespace benchledger::import {

namespace {

using namespace detail;

// The time of a benchmark saved without --benchmark-save-data: pytest-benchmark's own
// statistics of its rounds (seconds per iteration), as a metric without samples.
Metric time_from_stats(const json& stats, const std::string& path, const std::string& origin) {
  const auto stat = [&](const std::string& key) {
    return number(member(stats, key, path, origin), path + "." + key, origin);
  };
  Metric m;
  m.unit = "s";
  m.better = Better::lower;
  m.value = stat("median");
  m.summary.n = count(member(stats, "rounds", path, origin), path + ".rounds", origin);
  m.summary.median = m.value;
  m.summary.mean = stat("mean");
  m.summary.stddev = stat("stddev");
  m.summary.min = stat("min");
  m.summary.max = stat("max");
  return m;
}

void read_machine_info(const json& document, FileEnvironment& file) {
  const auto machine = document.find("machine_info");
  if (machine == document.end() || !machine->is_object()) return;
  Env& env = file.env;
  env.host = optional_text(*machine, "node");
  env.cpu.arch = optional_text(*machine, "machine");
  env.os.kernel = optional_text(*machine, "release");
  if (const auto python = optional_text(*machine, "python_version"))
    env.runtimes.python = "Python " + *python;  // as `python3 --version` says it
  if (const auto cpu = machine->find("cpu"); cpu != machine->end() && cpu->is_object()) {
    env.cpu.model = optional_text(*cpu, "brand_raw");
    env.cpu.vendor = optional_text(*cpu, "vendor_id_raw");
    env.cpu.logical = optional_integer(*cpu, "count");
    if (const auto hz = cpu->find("hz_actual"); hz != cpu->end() && hz->is_array() &&
                                                !hz->empty() && (*hz)[0].is_number() &&
                                                (*hz)[0].get<double>() > 0)
      env.cpu.mhz = (*hz)[0].get<double>() / 1e6;
    // py-cpuinfo's cache sizes are not the kernel's (it reads them per core, or guesses):
    // left null rather than compared with values from /sys.
  }
  for (const char* key : {"system", "python_implementation", "python_compiler"}) {
    if (const auto it = machine->find(key); it != machine->end()) file.facts[key] = *it;
  }
}

}  // namespace

ImportedResults read_pytest_benchmark(std::string_view json_text, const std::string& origin) {
  const json document = parse_json(json_text, origin);
  const json& benchmarks = member(document, "benchmarks", "", origin);
  if (!benchmarks.is_array()) fail(origin, "benchmarks", "expected an array");
  ImportedResults imported;
  FileEnvironment& file = imported.environment;
  read_machine_info(document, file);
  file.measured_at = optional_text(document, "datetime");
  file.tool_version = optional_text(document, "version");
  if (const auto commit = document.find("commit_info"); commit != document.end())
    file.facts["commit_info"] = *commit;
  note_given_fields(file);

  for (std::size_t i = 0; i < benchmarks.size(); ++i) {
    const std::string path = "benchmarks[" + std::to_string(i) + "]";
    const json& entry = benchmarks[i];
    std::string name = text(member(entry, "fullname", path, origin), path + ".fullname", origin);
    // test_x[8-abc]: the id in brackets is the parametrization; the arguments come as params.
    if (const auto bracket = name.find('['); bracket != std::string::npos && name.back() == ']')
      name.resize(bracket);
    ResultRecord r = new_result(name);
    const auto params = entry.find("params");
    if (params != entry.end() && params->is_object() && !params->empty()) {
      for (const auto& [key, value] : params->items()) r.params[key] = json_param(value);
    } else if (const auto id = entry.find("param"); id != entry.end() && id->is_string()) {
      r.params["param"] = id->get<std::string>();
    }
    const json& stats = member(entry, "stats", path, origin);
    const std::string stats_path = path + ".stats";
    const std::int64_t rounds =
        count(member(stats, "rounds", stats_path, origin), stats_path + ".rounds", origin);
    const std::int64_t iterations =
        stats.contains("iterations")
            ? count(stats["iterations"], stats_path + ".iterations", origin)
            : 1;
    if (const auto data = stats.find("data"); data != stats.end()) {
      if (!data->is_array() || data->empty())
        fail(origin, stats_path + ".data", "expected a non-empty array of seconds");
      std::vector<double> seconds;
      for (std::size_t k = 0; k < data->size(); ++k)
        seconds.push_back(
            number((*data)[k], stats_path + ".data[" + std::to_string(k) + "]", origin));
      r.metrics["time"] = metric_from_samples("s", Better::lower, std::move(seconds));
    } else {
      r.metrics["time"] = time_from_stats(stats, stats_path, origin);
      if (i == 0) {
        imported.warnings.push_back(origin +
                                    ": no per-round data (run pytest with "
                                    "--benchmark-save-data to compare with statistics)");
      }
    }
    r.primary = "time";
    if (__builtin_mul_overflow(rounds, iterations, &r.ops))
      fail(origin, stats_path, "rounds times iterations is beyond the largest count");
    r.errors = 0;
    imported.results.push_back(std::move(r));
  }
  return imported;
}

}  // namespace benchledger::import
