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
  nlohmann::ordered_json json = {
      {"format", k_format},
      {"per", "operation"},
      {"processes", profile.processes},
      {"total", cost_json(profile.total)},
      {"functions", std::move(functions)},
      {"other", {{"functions", profile.other_functions}, {"self", cost_json(profile.other)}}}};
  if (!profile.call_graph.functions.empty()) {
    // Compact: [name, inclusive] a function, [caller, callee or null, instructions] a call.
    nlohmann::ordered_json names = nlohmann::ordered_json::array();
    for (const CallGraph::Function& f : profile.call_graph.functions)
      names.push_back({f.name, f.inclusive});
    nlohmann::ordered_json calls = nlohmann::ordered_json::array();
    for (const CallGraph::Call& call : profile.call_graph.calls) {
      calls.push_back(
          {call.caller,
           call.callee ? nlohmann::ordered_json(*call.callee) : nlohmann::ordered_json(nullptr),
           call.instructions});
    }
    json["call_graph"] = {{"functions", std::move(names)}, {"calls", std::move(calls)}};
  }
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
    if (json.contains("call_graph")) {
      CallGraph& graph = profile.call_graph;
      for (const nlohmann::json& entry : json.at("call_graph").at("functions"))
        graph.functions.push_back({entry.at(0).get<std::string>(), entry.at(1).get<double>()});
      for (const nlohmann::json& entry : json.at("call_graph").at("calls")) {
        CallGraph::Call call;
        call.caller = entry.at(0).get<std::size_t>();
        if (!entry.at(1).is_null()) call.callee = entry.at(1).get<std::size_t>();
        call.instructions = entry.at(2).get<double>();
        if (call.caller >= graph.functions.size() ||
            (call.callee && *call.callee >= graph.functions.size()))
          throw Error(fmt::format("profile {}: a call names a function it does not keep", where));
        graph.calls.push_back(call);
      }
    }
    return profile;
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("profile {}: not a {} artifact: {}", where, k_format, e.what()));
  }
}

}  // namespace benchledger::profile
