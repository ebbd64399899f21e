// The config file benchledger.json.
#include <fnmatch.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string_view>

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

// Words of `text` as a POSIX shell splits them: blanks separate, '...' keeps everything,
// "..." keeps all but \" \\ \$ \`, and a backslash outside quotes escapes the next character.
// No expansion of any kind. Throws Error on an unterminated quote.
std::vector<std::string> shell_words(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else if (c == '\'') {
      const std::size_t end = text.find('\'', i + 1);
      if (end == std::string::npos) throw Error("unterminated ' quote");
      word += text.substr(i + 1, end - i - 1);
      i = end;
      in_word = true;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (; j < text.size() && text[j] != '"'; ++j) {
        if (text[j] == '\\' && j + 1 < text.size() &&
            std::string_view("\"\\$`").find(text[j + 1]) != std::string_view::npos) {
          ++j;
        }
        word += text[j];
      }
      if (j >= text.size()) throw Error("unterminated \" quote");
      i = j;
      in_word = true;
    } else if (c == '\\' && i + 1 < text.size()) {
      word += text[++i];
      in_word = true;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

// The gate section. The gate itself gives each round's run --ledger, --label, --dry-run and
// --format: an entry that sets them would measure into the wrong place or print what the gate
// cannot read.
GateSpec read_gate(const model::JsonReader& gate) {
  refuse_unknown_keys(gate, {"build", "run", "prepare", "program", "rounds"});
  GateSpec spec;
  const auto command = [&](const std::string& key) -> std::optional<std::string> {
    if (!gate.has(key)) return std::nullopt;
    std::string text = gate.string(key);
    if (text.find_first_not_of(" \t\n") == std::string::npos) {
      gate.fail(key, "an empty shell command (leave the key out to have none)");
    }
    return text;
  };
  spec.build = command("build");
  spec.prepare = command("prepare");
  if (!gate.has("run")) {
    gate.fail("run",
              "missing: the arguments of `benchledger run` that measure a revision, "
              "e.g. [\"--runs 10 -- build/app\"]");
  }
  spec.run_text = gate.strings("run");
  if (spec.run_text.empty()) gate.fail("run", "needs at least one entry");
  for (std::size_t i = 0; i < spec.run_text.size(); ++i) {
    const std::string key = "run[" + std::to_string(i) + "]";
    std::vector<std::string> words;
    try {
      words = shell_words(spec.run_text[i]);
    } catch (const Error& e) {
      gate.fail(key, e.what());
    }
    for (const std::string& word : words) {
      if (word == "--") break;
      for (const char* owned :
           {"--ledger", "--label", "--baseline", "--dry-run", "--format", "--list"}) {
        if (word == owned || word.starts_with(std::string(owned) + "=")) {
          gate.fail(key, std::string(owned) +
                             " is the gate's to set (it measures into its own ledger and labels "
                             "the sides base and head)");
        }
      }
    }
    spec.run.push_back(std::move(words));
  }
  if (gate.has("program")) {
    spec.program = gate.string("program");
    if (spec.program->empty()) gate.fail("program", "an empty path");
  }
  if (gate.has("rounds")) {
    const std::int64_t rounds = gate.integer("rounds");
    if (rounds < 1 || rounds > 1000) gate.fail("rounds", "expected a whole number from 1 to 1000");
    spec.rounds = static_cast<int>(rounds);
  }
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
    refuse_unknown_keys(reader, {"ledger", "project", "thresholds", "run", "gate"});
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
    if (reader.has("gate")) config.gate = read_gate(reader.object("gate"));
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
