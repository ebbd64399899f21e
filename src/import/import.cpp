// google-benchmark and hyperfine JSON to result records.
#include "import/import.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include <benchledger/error.hpp>

#include "import/result_parts.hpp"
#include "model/user_file.hpp"

namespace benchledger::import {

namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& origin, const std::string& field,
                       const std::string& problem) {
  if (field.empty()) throw Error(origin + ": the document: " + problem);
  throw Error(origin + ": field \"" + field + "\": " + problem);
}

json parse_json(std::string_view text, const std::string& origin) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    throw Error(origin + ": not JSON: " + e.what());
  }
}

const json& member(const json& object, const std::string& key, const std::string& path,
                   const std::string& origin) {
  if (!object.is_object()) fail(origin, path, "expected an object");
  const auto it = object.find(key);
  if (it == object.end()) fail(origin, path.empty() ? key : path + "." + key, "missing");
  return *it;
}

double number(const json& value, const std::string& path, const std::string& origin) {
  if (!value.is_number()) fail(origin, path, "expected a number");
  const double x = value.get<double>();
  if (!std::isfinite(x)) fail(origin, path, "expected a finite number");
  return x;
}

std::string text(const json& value, const std::string& path, const std::string& origin) {
  if (!value.is_string()) fail(origin, path, "expected a string");
  return value.get<std::string>();
}

// An optional string member of an entry, or `absent` when it is not there.
std::string text_or(const json& entry, const std::string& key, const std::string& absent,
                    const std::string& path, const std::string& origin) {
  const auto it = entry.find(key);
  return it == entry.end() ? absent : text(*it, path + "." + key, origin);
}

// An optional boolean member of an entry, false when it is not there.
bool flag(const json& entry, const std::string& key, const std::string& path,
          const std::string& origin) {
  const auto it = entry.find(key);
  if (it == entry.end()) return false;
  if (!it->is_boolean()) fail(origin, path + "." + key, "expected true or false");
  return it->get<bool>();
}

// The same shape the engine gives a case that produced no measurement (docs/engine.md).
ResultRecord failed(std::string bench, const std::string& message, std::int64_t ops,
                    std::int64_t errors) {
  ResultRecord r = new_result(std::move(bench));
  r.metrics["failed"] = single_value("count", Better::lower, 1);
  r.primary = "failed";
  r.ops = ops;
  r.errors = errors;
  r.header.extra["failure"] = {{"kind", "error"}, {"message", message}};
  return r;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Keys of a google-benchmark entry that are not user counters.
const std::set<std::string>& google_fixed_keys() {
  static const std::set<std::string> keys = {"name",
                                             "family_index",
                                             "per_family_instance_index",
                                             "run_name",
                                             "run_type",
                                             "repetitions",
                                             "repetition_index",
                                             "threads",
                                             "iterations",
                                             "real_time",
                                             "cpu_time",
                                             "time_unit",
                                             "aggregate_name",
                                             "aggregate_unit",
                                             "error_occurred",
                                             "error_message",
                                             "label",
                                             "big_o",
                                             "rms",
                                             "complexity",
                                             "items_per_second",
                                             "bytes_per_second"};
  return keys;
}

struct GoogleGroup {
  std::vector<double> real, cpu, items, bytes;
  std::map<std::string, std::vector<double>> counters;
  std::map<std::string, double> aggregates;  // aggregate_name -> real_time (time aggregates only)
  std::string time_unit;
  std::int64_t iterations = 0;
  std::optional<std::string> error;
};

}  // namespace

ImportedResults read_google_benchmark(std::string_view json_text, const std::string& origin) {
  const json document = parse_json(json_text, origin);
  const json& benchmarks = member(document, "benchmarks", "", origin);
  if (!benchmarks.is_array()) fail(origin, "benchmarks", "expected an array");

  ImportedResults imported;
  if (document.contains("context") && document["context"].is_object()) {
    const auto& context = document["context"];
    if (context.contains("library_build_type") && context["library_build_type"] == "debug") {
      imported.warnings.push_back(origin + ": the google-benchmark library was a debug build");
    }
  }
  std::vector<std::string> order;
  std::map<std::string, GoogleGroup> groups;
  for (std::size_t i = 0; i < benchmarks.size(); ++i) {
    const std::string path = "benchmarks[" + std::to_string(i) + "]";
    const json& entry = benchmarks[i];
    if (!entry.is_object()) fail(origin, path, "expected an object");
    const std::string name = text(member(entry, "name", path, origin), path + ".name", origin);
    const std::string run_name = text_or(entry, "run_name", name, path, origin);
    if (groups.count(run_name) == 0) order.push_back(run_name);
    GoogleGroup& group = groups[run_name];
    if (flag(entry, "error_occurred", path, origin)) {
      group.error =
          text_or(entry, "error_message", "the benchmark reported an error", path, origin);
      continue;
    }
    const std::string unit = text_or(entry, "time_unit", "ns", path, origin);
    if (!group.time_unit.empty() && group.time_unit != unit) {
      fail(origin, path + ".time_unit",
           "\"" + unit + "\" differs from the earlier \"" + group.time_unit + "\"");
    }
    group.time_unit = unit;
    const std::string run_type = text_or(entry, "run_type", "iteration", path, origin);
    if (run_type == "aggregate") {
      if (text_or(entry, "aggregate_unit", "time", path, origin) == "time" &&
          entry.contains("real_time")) {
        group.aggregates[text_or(entry, "aggregate_name", "?", path, origin)] =
            number(entry["real_time"], path + ".real_time", origin);
      }
      continue;
    }
    group.real.push_back(
        number(member(entry, "real_time", path, origin), path + ".real_time", origin));
    if (entry.contains("cpu_time"))
      group.cpu.push_back(number(entry["cpu_time"], path + ".cpu_time", origin));
    if (entry.contains("items_per_second")) {
      group.items.push_back(number(entry["items_per_second"], path + ".items_per_second", origin));
    }
    if (entry.contains("bytes_per_second")) {
      group.bytes.push_back(number(entry["bytes_per_second"], path + ".bytes_per_second", origin));
    }
    const json& iterations = member(entry, "iterations", path, origin);
    if (!iterations.is_number_integer() || iterations.get<std::int64_t>() < 0) {
      fail(origin, path + ".iterations", "expected a non-negative integer");
    }
    group.iterations += iterations.get<std::int64_t>();
    for (const auto& [key, value] : entry.items()) {
      if (google_fixed_keys().count(key) != 0 || !value.is_number()) continue;
      group.counters[key].push_back(number(value, path + "." + key, origin));
    }
  }

  for (const std::string& run_name : order) {
    const GoogleGroup& group = groups[run_name];
    if (group.error && group.real.empty()) {
      imported.results.push_back(failed(run_name, *group.error,
                                        std::max<std::int64_t>(group.iterations, 1),
                                        std::max<std::int64_t>(group.iterations, 1)));
      continue;
    }
    ResultRecord r = new_result(run_name);
    if (!group.real.empty()) {
      r.metrics["time"] = metric_from_samples(group.time_unit, Better::lower, group.real);
      if (group.cpu.size() == group.real.size()) {
        r.metrics["cpu_time"] = metric_from_samples(group.time_unit, Better::lower, group.cpu);
      }
      if (group.items.size() == group.real.size()) {
        r.metrics["items"] = metric_from_samples("items/s", Better::higher, group.items);
      }
      if (group.bytes.size() == group.real.size()) {
        r.metrics["bytes"] = metric_from_samples("bytes/s", Better::higher, group.bytes);
      }
      for (const auto& [name, values] : group.counters) {
        if (values.size() != group.real.size() || r.metrics.count(name) != 0) continue;
        const bool higher = ends_with(name, "per_second") || ends_with(name, "_rate");
        r.metrics[name] =
            metric_from_samples("count", higher ? Better::higher : Better::lower, values);
      }
    } else if (!group.aggregates.empty()) {
      const auto median = group.aggregates.find("median");
      const double value =
          median != group.aggregates.end() ? median->second : group.aggregates.begin()->second;
      r.metrics["time"] = single_value(group.time_unit, Better::lower, value);
      imported.warnings.push_back(origin + ": " + run_name +
                                  ": only aggregates were reported (no samples); rerun without "
                                  "--benchmark_report_aggregates_only to compare with statistics");
    } else {
      fail(origin, "benchmarks", "\"" + run_name + "\" has neither iterations nor aggregates");
    }
    r.primary = "time";
    r.ops = group.iterations;
    r.errors = 0;
    imported.results.push_back(std::move(r));
  }
  return imported;
}

ImportedResults read_hyperfine(std::string_view json_text, const std::string& origin) {
  const json document = parse_json(json_text, origin);
  const json& results = member(document, "results", "", origin);
  if (!results.is_array()) fail(origin, "results", "expected an array");
  ImportedResults imported;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const std::string path = "results[" + std::to_string(i) + "]";
    const json& entry = results[i];
    const std::string command =
        text(member(entry, "command", path, origin), path + ".command", origin);
    const json& times = member(entry, "times", path, origin);
    if (!times.is_array() || times.empty())
      fail(origin, path + ".times", "expected a non-empty array");
    std::vector<double> wall;
    for (std::size_t t = 0; t < times.size(); ++t) {
      wall.push_back(number(times[t], path + ".times[" + std::to_string(t) + "]", origin) * 1e3);
    }
    std::int64_t errors = 0;
    if (entry.contains("exit_codes") && entry["exit_codes"].is_array()) {
      for (const auto& code : entry["exit_codes"]) {
        if (!code.is_number_integer() || code.get<std::int64_t>() != 0) ++errors;
      }
    }
    ResultRecord r = new_result(command);
    if (entry.contains("parameters") && entry["parameters"].is_object()) {
      for (const auto& [key, value] : entry["parameters"].items()) {
        r.params[key] =
            value.is_string() ? ParamValue(value.get<std::string>()) : ParamValue(value.dump());
      }
    }
    r.metrics["wall"] = metric_from_samples("ms", Better::lower, wall);
    if (entry.contains("user"))
      r.metrics["user"] =
          single_value("ms", Better::lower, number(entry["user"], path + ".user", origin) * 1e3);
    if (entry.contains("system")) {
      r.metrics["sys"] = single_value("ms", Better::lower,
                                      number(entry["system"], path + ".system", origin) * 1e3);
    }
    r.primary = "wall";
    r.ops = static_cast<std::int64_t>(wall.size());
    r.errors = errors;
    imported.results.push_back(std::move(r));
  }
  return imported;
}

const std::vector<std::string>& import_formats() {
  static const std::vector<std::string> formats = {"google-benchmark", "hyperfine"};
  return formats;
}

ImportedResults import_file(const std::string& format, const std::filesystem::path& path) {
  if (std::find(import_formats().begin(), import_formats().end(), format) ==
      import_formats().end()) {
    throw Error("--import " + format + ": unknown format (known: google-benchmark, hyperfine)");
  }
  // Bounded, and a regular file only: a FIFO would block, a device might never end.
  const std::string content = model::read_input_file(path, k_max_import_bytes, "");
  const std::string origin = path.string();
  return format == "google-benchmark" ? read_google_benchmark(content, origin)
                                      : read_hyperfine(content, origin);
}

}  // namespace benchledger::import
