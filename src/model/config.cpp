// The config file benchledger.json.
#include <fnmatch.h>

#include <fstream>
#include <set>
#include <sstream>

#include <benchledger/config.hpp>
#include <benchledger/error.hpp>

#include "model/json_reader.hpp"

namespace benchledger {

namespace {

void refuse_unknown_keys(const model::JsonReader& reader, const std::set<std::string>& known) {
  for (const auto& [key, value] : reader.json().items()) {
    if (known.count(key) == 0) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      reader.fail(key, "unknown key (known here: " + list + ")");
    }
  }
}

std::vector<std::string> string_list(const model::JsonReader& reader, const std::string& key) {
  return reader.has(key) ? reader.strings(key) : std::vector<std::string>{};
}

CommandSpec read_command(const nlohmann::json& json, const std::string& path) {
  const model::JsonReader reader(json, path);
  refuse_unknown_keys(reader, {"name", "command", "params", "runs", "warmup"});
  CommandSpec spec;
  spec.name = reader.string("name");
  spec.command = reader.strings("command");
  if (spec.command.empty()) reader.fail("command", "must name a program");
  if (reader.has("params")) {
    const model::JsonReader params = reader.object("params");
    for (const auto& [name, values] : params.json().items()) {
      spec.params[name] = params.strings(name);
    }
  }
  if (reader.has("runs")) spec.runs = static_cast<int>(reader.integer("runs"));
  if (reader.has("warmup")) spec.warmup = static_cast<int>(reader.integer("warmup"));
  return spec;
}

}  // namespace

double Config::threshold_for(const std::string& bench, double fallback) const {
  for (const auto& [pattern, percent] : thresholds) {
    if (pattern == bench) return percent;
  }
  for (const auto& [pattern, percent] : thresholds) {
    if (::fnmatch(pattern.c_str(), bench.c_str(), 0) == 0) return percent;
  }
  return fallback;
}

Config load_config(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read config file " + path.string());
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json json;
  // The same text again with its key order kept: thresholds are tried in file order, and
  // nlohmann::json sorts keys.
  nlohmann::ordered_json in_file_order;
  try {
    json = nlohmann::json::parse(text.str());
    in_file_order = nlohmann::ordered_json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(path.string() + ": malformed JSON: " + e.what());
  }
  try {
    const model::JsonReader reader(json, "");
    refuse_unknown_keys(reader, {"ledger", "project", "thresholds", "run", "environment"});
    Config config;
    config.path = path;
    if (reader.has("ledger")) config.ledger = reader.string("ledger");
    if (reader.has("project")) config.project = reader.string("project");
    if (reader.has("thresholds")) {
      const model::JsonReader thresholds = reader.object("thresholds");
      for (const auto& [pattern, value] : in_file_order.at("thresholds").items()) {
        const double percent = thresholds.number(pattern);
        if (percent < 0) thresholds.fail(pattern, "a threshold is a percentage, not negative");
        config.thresholds.emplace_back(pattern, percent);
      }
    }
    if (reader.has("environment")) {
      const model::JsonReader environment = reader.object("environment");
      refuse_unknown_keys(environment, {"ignore"});
      config.environment_ignore = string_list(environment, "ignore");
    }
    if (reader.has("run")) {
      const model::JsonReader run = reader.object("run");
      refuse_unknown_keys(run, {"suites", "binaries", "commands"});
      config.suites = string_list(run, "suites");
      config.binaries = string_list(run, "binaries");
      if (run.has("commands")) {
        const auto& commands = run.member("commands");
        if (!commands.is_array()) run.fail("commands", "expected an array");
        for (std::size_t i = 0; i < commands.size(); ++i) {
          config.commands.push_back(
              read_command(commands[i], run.path_of("commands") + "[" + std::to_string(i) + "]"));
        }
      }
    }
    return config;
  } catch (const Error& e) {
    throw Error(path.string() + ": " + e.what());
  }
}

std::filesystem::path project_root(const std::filesystem::path& start) {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::absolute(start, ec);
  if (ec) return start;
  for (std::filesystem::path p = dir; !p.empty(); p = p.parent_path()) {
    if (std::filesystem::exists(p / ".git", ec)) return p;
    if (p == p.parent_path()) break;
  }
  return dir;
}

Config load_default_config() {
  std::error_code ec;
  const auto path = project_root(std::filesystem::current_path(ec)) / "benchledger.json";
  if (!std::filesystem::exists(path, ec)) return Config{};
  return load_config(path);
}

}  // namespace benchledger
