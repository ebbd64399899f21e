// The config file benchledger.json.
#include <fnmatch.h>

#include <set>
#include <string_view>

#include <fmt/format.h>

#include <benchledger/config.hpp>
#include <benchledger/error.hpp>
#include <benchledger/record.hpp>

#include "model/config_text.hpp"
#include "model/json_reader.hpp"
#include "model/ranges.hpp"
#include "model/user_file.hpp"

namespace benchledger {

namespace {

// A config file is small; the bound of a record line is generous for it.
constexpr std::size_t k_max_config_bytes = k_max_line_bytes;

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

// A count from a config key, in the range the flag that sets the same thing takes.
int count_in(const model::JsonReader& reader, const std::string& key,
             const model::NumberRange& range) {
  const nlohmann::json& value = reader.member(key);
  if (!value.is_number()) reader.fail(key, "expected " + model::describe(range));
  const double number = value.get<double>();
  if (!model::contains(range, number)) {
    reader.fail(key, "must be " + model::describe(range) + ", got " + value.dump());
  }
  return static_cast<int>(number);
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
  if (reader.has("runs")) spec.runs = count_in(reader, "runs", model::k_runs_range);
  if (reader.has("warmup")) spec.warmup = count_in(reader, "warmup", model::k_warmup_range);
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

// One of two words, as a bool: `yes` for true.
std::optional<bool> one_of(const model::JsonReader& gate, const std::string& key, const char* yes,
                           const char* no) {
  if (!gate.has(key)) return std::nullopt;
  const std::string word = gate.string(key);
  if (word != yes && word != no) {
    gate.fail(key, fmt::format("\"{}\" is neither \"{}\" nor \"{}\"", word, yes, no));
  }
  return word == yes;
}

// The gate's judging options: the words of the command line's flags. Verdict names are checked
// where they are used (the command line's --fail-on takes the same words).
void read_gate_judging(const model::JsonReader& gate, GateSpec& spec) {
  if (gate.has("metric")) {
    spec.metrics = gate.member("metric").is_string()
                       ? std::vector<std::string>{gate.string("metric")}
                       : gate.strings("metric");
    for (const std::string& metric : spec.metrics) {
      if (metric.empty()) gate.fail("metric", "an empty metric name");
    }
  }
  if (gate.has("fail-on")) {
    spec.fail_on = gate.member("fail-on").is_string()
                       ? std::vector<std::string>{gate.string("fail-on")}
                       : gate.strings("fail-on");
  }
  if (gate.has("allow-missing")) spec.allow_missing = gate.nullable_bool("allow-missing");
  if (gate.has("duet")) spec.duet = gate.nullable_bool("duet");
  if (gate.has("threshold")) {
    const double threshold = gate.number("threshold");
    if (!(threshold >= 0.0) || threshold > 1e6) {
      gate.fail("threshold", "expected a percentage of at least 0");
    }
    spec.threshold = threshold;
  }
  if (gate.has("budget")) {
    const double budget = gate.number("budget");
    if (!(budget > 0.0) || budget > 7.0 * 24 * 3600) {
      gate.fail("budget", "expected seconds, more than 0 and at most a week");
    }
    spec.budget = budget;
  }
  spec.undecided_fails = one_of(gate, "undecided", "fail", "pass");
  spec.paired = one_of(gate, "design", "paired", "pooled");
}

// The gate section. The gate itself gives each round's run --ledger, --label, --dry-run and
// --format: an entry that sets them would measure into the wrong place or print what the gate
// cannot read.
GateSpec read_gate(const model::JsonReader& gate) {
  refuse_unknown_keys(
      gate, {"build", "run", "prepare", "program", "rounds", "metric", "fail-on", "allow-missing",
             "threshold", "budget", "duet", "undecided", "design"});
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
  read_gate_judging(gate, spec);
  return spec;
}

// The reason `pattern` is not a glob fnmatch reads as written, or empty: fnmatch takes an
// unclosed '[' or a trailing '\' as literal characters, so a typo would match nothing, silently.
std::string glob_problem(const std::string& pattern) {
  if (pattern.empty()) return "an empty pattern matches no benchmark";
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '\\') {
      if (++i == pattern.size()) return "ends in an unescaped '\\'";
    } else if (pattern[i] == '[') {
      std::size_t at = i + 1;
      if (at < pattern.size() && (pattern[at] == '!' || pattern[at] == '^')) ++at;
      if (at < pattern.size() && pattern[at] == ']') ++at;  // a ']' first is a member
      while (at < pattern.size() && pattern[at] != ']') {
        if (pattern.compare(at, 2, "[:") == 0) {  // a class such as [:digit:]
          const std::size_t end = pattern.find(":]", at + 2);
          if (end == std::string::npos) break;
          at = end + 2;
        } else {
          ++at;
        }
      }
      if (at >= pattern.size()) {
        return "the '[' at character " + std::to_string(i + 1) + " is never closed by ']'";
      }
      i = at;
    }
  }
  return {};
}

}  // namespace

namespace {

double first_match(const std::vector<std::pair<std::string, double>>& list,
                   const std::string& bench, double fallback) {
  for (const auto& [pattern, percent] : list) {
    if (pattern == bench) return percent;
  }
  for (const auto& [pattern, percent] : list) {
    if (::fnmatch(pattern.c_str(), bench.c_str(), 0) == 0) return percent;
  }
  return fallback;
}

// The thresholds of `key` (pattern -> percent), in file order.
std::vector<std::pair<std::string, double>> read_thresholds(
    const model::JsonReader& reader, const nlohmann::ordered_json& in_file_order,
    const std::string& key) {
  std::vector<std::pair<std::string, double>> out;
  if (!reader.has(key)) return out;
  const model::JsonReader thresholds = reader.object(key);
  for (const auto& [pattern, value] : in_file_order.at(key).items()) {
    const double percent = thresholds.number(pattern);
    if (!model::contains(model::k_threshold_range, percent)) {
      thresholds.fail(pattern, "a threshold in percent must be " +
                                   model::describe(model::k_threshold_range) + ", got " +
                                   fmt::format("{}", percent));
    }
    if (const std::string problem = glob_problem(pattern); !problem.empty()) {
      thresholds.fail(pattern, "not a valid glob: " + problem);
    }
    out.emplace_back(pattern, percent);
  }
  return out;
}

}  // namespace

double Config::threshold_for(const std::string& bench, double fallback) const {
  return first_match(thresholds, bench, fallback);
}

double Config::deterministic_threshold_for(const std::string& bench, double fallback) const {
  return first_match(deterministic_thresholds, bench, fallback);
}

Config load_config(const std::filesystem::path& path) {
  // Bounded, and a regular file only: a FIFO would block, a device might never end.
  const std::string text = model::read_input_file(path, k_max_config_bytes, "config file");
  Config config = model::parse_config(text, path.string());
  config.path = path;
  return config;
}

Config model::parse_config(std::string_view text, const std::string& origin) {
  if (text.size() > k_max_config_bytes) {
    throw Error(fmt::format("{}: {} bytes, more than a config file may hold ({} bytes)", origin,
                            text.size(), k_max_config_bytes));
  }
  nlohmann::json json;
  // The same text again with its key order kept: thresholds are tried in file order, and
  // nlohmann::json sorts keys.
  nlohmann::ordered_json in_file_order;
  try {
    json = model::parse_bounded_json(text, model::RepeatedNames::refuse);
    // Within the limits: the same text parsed again is no deeper and holds no larger number.
    in_file_order = nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(origin + ": malformed JSON: " + e.what());
  } catch (const Error& e) {
    throw Error(origin + ": " + e.what());
  }
  try {
    const model::JsonReader reader(json, "");
    refuse_unknown_keys(reader, {"ledger", "project", "pg", "thresholds",
                                 "deterministic_thresholds", "run", "gate", "environment"});
    Config config;
    if (reader.has("ledger")) config.ledger = reader.string("ledger");
    if (reader.has("project")) config.project = reader.string("project");
    if (reader.has("pg")) config.pg = reader.string("pg");
    config.thresholds = read_thresholds(reader, in_file_order, "thresholds");
    config.deterministic_thresholds =
        read_thresholds(reader, in_file_order, "deterministic_thresholds");
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
    if (reader.has("gate")) config.gate = read_gate(reader.object("gate"));
    return config;
  } catch (const Error& e) {
    throw Error(origin + ": " + e.what());
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
