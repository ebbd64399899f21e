// The files of `run --import` as one run, with the environment they were measured in.
#include "cli/run_import.hpp"

#include <iostream>
#include <limits>
#include <map>

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
    files.push_back(
        {{"file", file},
         {"format", imported.format},
         {"tool_version",
          stated.tool_version ? nlohmann::json(*stated.tool_version) : nlohmann::json()},
         {"measured_at",
          stated.measured_at ? nlohmann::json(*stated.measured_at) : nlohmann::json()},
         {"env_from_file", stated.from_file},
         {"sha256", imported.sha256.empty() ? nlohmann::json() : nlohmann::json(imported.sha256)},
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

std::vector<std::string> repeated_imports(const RunRecord& run, const ledger::Store& store) {
  const auto files_of = [](const RunRecord& r) {
    const auto imported = r.header.extra.find("imported");
    if (imported == r.header.extra.end() || !imported->is_object()) return nlohmann::json::array();
    const auto files = imported->find("files");
    return files != imported->end() && files->is_array() ? *files : nlohmann::json::array();
  };
  std::map<std::string, std::string> ours;  // sha256 -> the file
  for (const nlohmann::json& file : files_of(run)) {
    if (file.contains("sha256") && file["sha256"].is_string() && file.contains("file"))
      ours.emplace(file["sha256"].get<std::string>(), file["file"].dump());
  }
  std::vector<std::string> warnings;
  if (ours.empty()) return warnings;
  const ledger::RunSelector every_run;  // latest, without a limit below: every run, newest first
  for (const RunRecord& earlier :
       store.find_runs(every_run, std::numeric_limits<std::size_t>::max())) {
    for (const nlohmann::json& file : files_of(earlier)) {
      if (!file.contains("sha256") || !file["sha256"].is_string()) continue;
      const auto same = ours.find(file["sha256"].get<std::string>());
      if (same == ours.end()) continue;
      warnings.push_back(
          same->second + " has the same content as " +
          (file.contains("file") ? file["file"].dump() : std::string("the file")) +
          ", imported by run " + earlier.header.id +
          (earlier.label ? " (" + *earlier.label + ")" : std::string()) +
          ": its results are in the ledger twice (a note of kind invalidate on one run leaves it "
          "out of comparisons)");
      ours.erase(same);  // the newest earlier import is the one to name
    }
    if (ours.empty()) break;
  }
  return warnings;
}

}  // namespace benchledger::cli
