// A profile as the artifact kept next to the ledger (profile.hpp, docs/profiles.md).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <benchledger/error.hpp>

#include "profile/profile.hpp"

namespace benchledger::profile {

namespace {

constexpr std::string_view k_format = "benchledger-profile/1";

nlohmann::ordered_json cost_json(const Cost& cost) {
  return {{"instructions", cost.instructions}, {"estimated_cycles", cost.estimated_cycles}};
}

Cost cost_from(const nlohmann::json& json) {
  return Cost{json.at("instructions").get<double>(), json.at("estimated_cycles").get<double>()};
}

}  // namespace

std::string to_artifact(const Profile& profile) {
  nlohmann::ordered_json functions = nlohmann::ordered_json::array();
  for (const FunctionCost& f : profile.functions) {
    nlohmann::ordered_json entry = {{"name", f.name}};
    if (f.file) entry["file"] = *f.file;
    if (f.line) entry["line"] = *f.line;
    entry["self"] = cost_json(f.self);
    functions.push_back(std::move(entry));
  }
  const nlohmann::ordered_json json = {
      {"format", k_format},
      {"per", "operation"},
      {"processes", profile.processes},
      {"total", cost_json(profile.total)},
      {"functions", std::move(functions)},
      {"other", {{"functions", profile.other_functions}, {"self", cost_json(profile.other)}}}};
  // A file or function name that is not UTF-8 (a file system's bytes) is kept readable rather
  // than refused: the profile explains, it is not an identity.
  return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Profile profile_from_artifact(std::string_view bytes, const std::string& where) {
  try {
    const nlohmann::json json = nlohmann::json::parse(bytes);
    if (!json.is_object() || json.value("format", std::string()) != k_format)
      throw Error(fmt::format("profile {}: not a {} artifact", where, k_format));
    Profile profile;
    profile.processes = json.at("processes").get<std::int64_t>();
    profile.total = cost_from(json.at("total"));
    for (const nlohmann::json& entry : json.at("functions")) {
      FunctionCost f;
      f.name = entry.at("name").get<std::string>();
      if (entry.contains("file")) f.file = entry.at("file").get<std::string>();
      if (entry.contains("line")) f.line = entry.at("line").get<std::int64_t>();
      f.self = cost_from(entry.at("self"));
      profile.functions.push_back(std::move(f));
    }
    profile.other_functions = json.at("other").at("functions").get<std::int64_t>();
    profile.other = cost_from(json.at("other").at("self"));
    return profile;
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("profile {}: not a {} artifact: {}", where, k_format, e.what()));
  }
}

}  // namespace benchledger::profile
