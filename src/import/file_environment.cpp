// What a file's own words say about its environment, as env fields.
#include "import/file_environment.hpp"

#include "import/json_input.hpp"

namespace benchledger::import::detail {

namespace {

void collect_given(const nlohmann::ordered_json& node, const std::string& path,
                   std::vector<std::string>& names) {
  if (node.is_object()) {
    for (const auto& [key, value] : node.items()) {
      if (path.empty() && key == "fingerprint") continue;
      collect_given(value, path.empty() ? key : path + "." + key, names);
    }
  } else if (!node.is_null()) {
    names.push_back(path);
  }
}

}  // namespace

void note_given_fields(FileEnvironment& environment) {
  environment.from_file.clear();
  collect_given(to_json(environment.env), "", environment.from_file);
}

FileEnvironment google_benchmark_environment(const json& context) {
  FileEnvironment file;
  if (!context.is_object()) return file;
  Env& env = file.env;
  env.host = optional_text(context, "host_name");
  env.cpu.logical = optional_integer(context, "num_cpus");
  env.cpu.mhz = optional_number(context, "mhz_per_cpu");
  if (const auto caches = context.find("caches"); caches != context.end() && caches->is_array()) {
    for (const json& cache : *caches) {
      const auto level = optional_integer(cache, "level");
      const auto type = optional_text(cache, "type");
      const auto size = optional_integer(cache, "size");
      if (!level || !type || !size) continue;
      if (*level == 1 && *type == "Data") env.cpu.cache_bytes.l1d = size;
      if (*level == 2 && *type != "Instruction") env.cpu.cache_bytes.l2 = size;
      if (*level == 3 && *type != "Instruction") env.cpu.cache_bytes.l3 = size;
    }
  }
  // The 1-, 5- and 15-minute averages, as the schema holds them; any other shape is left out,
  // as a cache entry without its level is, rather than recorded as what append() refuses.
  if (const auto load = context.find("load_avg"); load != context.end() && load->is_array()) {
    std::vector<double> values;
    for (const json& v : *load)
      if (v.is_number()) values.push_back(v.get<double>());
    if (values.size() == 3 && load->size() == 3) env.load_avg = values;
  }
  file.measured_at = optional_text(context, "date");
  file.tool_version = optional_text(context, "library_version");
  for (const char* key : {"executable", "library_build_type", "cpu_scaling_enabled"}) {
    if (const auto it = context.find(key); it != context.end()) file.facts[key] = *it;
  }
  note_given_fields(file);
  return file;
}

}  // namespace benchledger::import::detail
