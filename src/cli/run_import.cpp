// The files of `run --import` as one run, with the environment they were measured in.
#include "cli/run_import.hpp"

#include <iostream>

#include <benchledger/error.hpp>

#include "env/env.hpp"
#include "import/import.hpp"

namespace benchledger::cli {

std::vector<ResultRecord> import_into_run(
    const std::vector<std::pair<std::string, std::string>>& imports, const std::string& mapping,
    RunRecord& run, bool env_from_here, bool quiet, import::Partial partial) {
  std::vector<ResultRecord> results;
  std::vector<std::string> warnings;
  nlohmann::json files = nlohmann::json::array();
  std::optional<Env> file_env;
  std::string first_file;
  for (const auto& [format, file] : imports) {
    import::ImportedResults imported = import::import_file(format, file, mapping, partial);
    if (format == "auto" && !quiet)
      std::cerr << "note: --import auto: " << file << " is " << imported.format << '\n';
    if (run.source.empty()) run.source = imported.format;
    if (imported.format != run.source) {
      throw Error("one run imports one format: " + first_file + " is " + run.source + ", " + file +
                  " is " + imported.format);
    }
    for (ResultRecord& r : imported.results) {
      r.run = run.header.id;
      results.push_back(std::move(r));
    }
    warnings.insert(warnings.end(), imported.warnings.begin(), imported.warnings.end());
    const import::FileEnvironment& stated = imported.environment;
    files.push_back({{"file", file},
                     {"format", imported.format},
                     {"tool_version", stated.tool_version ? nlohmann::json(*stated.tool_version)
                                                          : nlohmann::json()},
                     {"measured_at",
                      stated.measured_at ? nlohmann::json(*stated.measured_at) : nlohmann::json()},
                     {"env_from_file", stated.from_file},
                     {"facts", stated.facts}});
    if (!file_env) {
      file_env = stated.env;
      first_file = file;
    } else if (const auto differ = env::differing_fields(*file_env, stated.env); !differ.empty()) {
      std::string names;
      for (const std::string& name : differ) names += (names.empty() ? "" : ", ") + name;
      warnings.push_back(file + " states another environment than " + first_file + " (" + names +
                         "); the run records " + first_file + "'s");
    }
  }
  if (!env_from_here && file_env) {
    run.env = *file_env;
    run.env.fingerprint = env::fingerprint(run.env);
    run.warnings = env::stability_warnings(run.env);
  }
  run.header.extra["imported"] = {{"env", env_from_here ? "here" : "file"}, {"files", files}};
  run.warnings.insert(run.warnings.end(), warnings.begin(), warnings.end());
  return results;
}

}  // namespace benchledger::cli
