// google-benchmark and hyperfine JSON to result records.
#include "import/import.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include <benchledger/error.hpp>

#include "import/file_environment.hpp"
#include "import/json_input.hpp"
#include "model/user_file.hpp"

namespace benchledger::import {

namespace {

using namespace detail;

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
  // aggregate_name -> real_time of aggregates whose aggregate_unit is `percentage` (a fraction:
  // `cv` is stddev / mean)
  std::map<std::string, double> percentages;
  std::string time_unit;
  std::int64_t iterations = 0;
  std::optional<std::string> error;
};

// The fit that ->Complexity() reports for a family: the `BigO` entry (the coefficients of the
// term `big_o`, in time_unit per unit of that term) and the `RMS` entry (the fit's normalized
// root mean square error, a fraction).
struct ComplexityFit {
  std::optional<std::string> big_o, time_unit;
  std::optional<double> real_coefficient, cpu_coefficient, rms;
};

bool is_complexity(const json& entry) {
  const auto name = entry.find("aggregate_name");
  return entry.contains("big_o") || entry.contains("rms") ||
         (name != entry.end() && (*name == "BigO" || *name == "RMS"));
}

// The entries of `benchmarks` by run_name, each name in the order first seen: a case's
// iterations and aggregates in its group, a family's complexity fit in its fit.
struct GoogleEntries {
  std::vector<std::string> order, fit_order;
  std::map<std::string, GoogleGroup> groups;
  std::map<std::string, ComplexityFit> fits;
};

// Adds a BigO or RMS entry to its family's fit.
void read_google_fit(const json& entry, const std::string& path, const std::string& origin,
                     ComplexityFit& fit) {
  if (entry.contains("big_o")) {
    fit.big_o = text(entry["big_o"], path + ".big_o", origin);
    fit.time_unit = text_or(entry, "time_unit", "ns", path, origin);
  }
  if (entry.contains("real_coefficient"))
    fit.real_coefficient = number(entry["real_coefficient"], path + ".real_coefficient", origin);
  if (entry.contains("cpu_coefficient"))
    fit.cpu_coefficient = number(entry["cpu_coefficient"], path + ".cpu_coefficient", origin);
  if (entry.contains("rms")) fit.rms = number(entry["rms"], path + ".rms", origin);
}

// Adds an iteration or aggregate entry to its case's group; an entry that reports an error
// adds only its message.
void read_google_run(const json& entry, const std::string& path, const std::string& run_type,
                     const std::string& origin, GoogleGroup& group) {
  if (flag(entry, "error_occurred", path, origin)) {
    group.error = text_or(entry, "error_message", "the benchmark reported an error", path, origin);
    return;
  }
  const std::string unit = text_or(entry, "time_unit", "ns", path, origin);
  if (!group.time_unit.empty() && group.time_unit != unit) {
    fail(origin, path + ".time_unit",
         "\"" + unit + "\" differs from the earlier \"" + group.time_unit + "\"");
  }
  group.time_unit = unit;
  if (run_type == "aggregate") {
    const std::string aggregate_unit = text_or(entry, "aggregate_unit", "time", path, origin);
    const std::string aggregate_name = text_or(entry, "aggregate_name", "?", path, origin);
    // A null time (NaN in the file: non_finite_as_null) is an aggregate with nothing to say.
    const bool has_time = entry.contains("real_time") && !entry["real_time"].is_null();
    if (aggregate_unit == "time" && has_time) {
      group.aggregates[aggregate_name] = number(entry["real_time"], path + ".real_time", origin);
    } else if (aggregate_unit == "percentage" && has_time) {
      group.percentages[aggregate_name] = number(entry["real_time"], path + ".real_time", origin);
    }
    return;
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
  add_count(group.iterations, iterations.get<std::int64_t>(), path + ".iterations", origin);
  for (const auto& [key, value] : entry.items()) {
    if (google_fixed_keys().count(key) != 0 || !value.is_number()) continue;
    group.counters[key].push_back(number(value, path + "." + key, origin));
  }
}

// Sorts every entry of the `benchmarks` array into its case's group or its family's fit.
GoogleEntries read_google_entries(const json& benchmarks, const std::string& origin) {
  GoogleEntries read;
  for (std::size_t i = 0; i < benchmarks.size(); ++i) {
    const std::string path = "benchmarks[" + std::to_string(i) + "]";
    const json& entry = benchmarks[i];
    if (!entry.is_object()) fail(origin, path, "expected an object");
    const std::string name = text(member(entry, "name", path, origin), path + ".name", origin);
    const std::string run_name = text_or(entry, "run_name", name, path, origin);
    // A family's fit, not a case of its own: its run_name is the family's.
    const std::string run_type = text_or(entry, "run_type", "iteration", path, origin);
    if (run_type == "aggregate" && is_complexity(entry)) {
      if (read.fits.count(run_name) == 0) read.fit_order.push_back(run_name);
      read_google_fit(entry, path, origin, read.fits[run_name]);
      continue;
    }
    if (read.groups.count(run_name) == 0) read.order.push_back(run_name);
    read_google_run(entry, path, run_type, origin, read.groups[run_name]);
  }
  return read;
}

// A group's samples as metrics: time, and each of the others that every sample has.
void add_google_sample_metrics(const GoogleGroup& group, ResultRecord& r) {
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
    r.metrics[name] = metric_from_samples("count", higher ? Better::higher : Better::lower, values);
  }
}

// Adds a case's result: from its samples, else from its aggregates (warned about), else, when
// it reported an error, a failed result.
void add_google_case(const std::string& run_name, const GoogleGroup& group,
                     const std::string& origin, ImportedResults& imported) {
  if (group.error && group.real.empty()) {
    imported.results.push_back(failed_result(run_name, *group.error,
                                             std::max<std::int64_t>(group.iterations, 1),
                                             std::max<std::int64_t>(group.iterations, 1)));
    return;
  }
  ResultRecord r = new_result(run_name);
  if (!group.real.empty()) {
    add_google_sample_metrics(group, r);
  } else if (!group.aggregates.empty() || !group.percentages.empty()) {
    if (!group.aggregates.empty()) {
      const auto median = group.aggregates.find("median");
      const double value =
          median != group.aggregates.end() ? median->second : group.aggregates.begin()->second;
      r.metrics["time"] = single_value_metric(group.time_unit, Better::lower, value);
    }
    // Kept only without samples: with them, compare computes its own spread.
    for (const auto& [name, fraction] : group.percentages)
      r.metrics[name] = single_value_metric("%", Better::lower, fraction * 100);
    imported.warnings.push_back(origin + ": " + run_name +
                                ": only aggregates were reported (no samples); rerun without "
                                "--benchmark_report_aggregates_only to compare with statistics");
  } else {
    fail(origin, "benchmarks", "\"" + run_name + "\" has neither iterations nor aggregates");
  }
  r.primary = r.metrics.count("time") != 0 ? "time" : r.metrics.begin()->first;
  r.ops = group.iterations;
  r.errors = 0;
  imported.results.push_back(std::move(r));
}

// Adds a family's complexity fit as a result of its own, or warns that it states nothing.
void add_google_fit(const std::string& run_name, const ComplexityFit& fit,
                    const std::string& origin, ImportedResults& imported) {
  ResultRecord r = new_result(run_name);
  if (fit.big_o) r.params["big_o"] = *fit.big_o;  // a different term is a different case
  const std::string unit = fit.time_unit.value_or("ns");
  if (fit.real_coefficient)
    r.metrics["real_coefficient"] = single_value_metric(unit, Better::lower, *fit.real_coefficient);
  if (fit.cpu_coefficient)
    r.metrics["cpu_coefficient"] = single_value_metric(unit, Better::lower, *fit.cpu_coefficient);
  if (fit.rms) r.metrics["rms"] = single_value_metric("%", Better::lower, *fit.rms * 100);
  if (r.metrics.empty()) {
    imported.warnings.push_back(origin + ": " + run_name +
                                ": a complexity entry without coefficients or rms, skipped");
    return;
  }
  r.primary =
      r.metrics.count("real_coefficient") != 0 ? "real_coefficient" : r.metrics.begin()->first;
  r.ops = 0;
  r.errors = 0;
  imported.results.push_back(std::move(r));
}

}  // namespace

ImportedResults read_google_benchmark(std::string_view json_text, const std::string& origin) {
  const json document = parse_json(non_finite_as_null(json_text), origin);
  const json& benchmarks = member(document, "benchmarks", "", origin);
  if (!benchmarks.is_array()) fail(origin, "benchmarks", "expected an array");

  ImportedResults imported;
  if (document.contains("context"))
    imported.environment = google_benchmark_environment(document["context"]);
  if (document.contains("context") && document["context"].is_object()) {
    const auto& context = document["context"];
    if (context.contains("library_build_type") && context["library_build_type"] == "debug") {
      imported.warnings.push_back(origin + ": the google-benchmark library was a debug build");
    }
  }
  GoogleEntries read = read_google_entries(benchmarks, origin);
  for (const std::string& run_name : read.order)
    add_google_case(run_name, read.groups[run_name], origin, imported);
  for (const std::string& run_name : read.fit_order)
    add_google_fit(run_name, read.fits[run_name], origin, imported);
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
    // A run that exited non-zero is an error, not a sample: its time measures the failure.
    std::vector<bool> run_failed(times.size(), false);
    std::int64_t errors = 0;
    if (entry.contains("exit_codes")) {
      const json& codes = entry["exit_codes"];
      if (!codes.is_array() || codes.size() != times.size())
        fail(origin, path + ".exit_codes",
             "expected an array of " + std::to_string(times.size()) + " exit codes, one per time");
      for (std::size_t t = 0; t < codes.size(); ++t) {
        // null: killed by a signal
        run_failed[t] = !codes[t].is_number_integer() || codes[t].get<std::int64_t>() != 0;
        errors += run_failed[t] ? 1 : 0;
      }
    }
    std::vector<double> wall;
    for (std::size_t t = 0; t < times.size(); ++t) {
      const double seconds = number(times[t], path + ".times[" + std::to_string(t) + "]", origin);
      if (!run_failed[t]) wall.push_back(seconds * 1e3);
    }
    if (errors > 0 && !wall.empty()) {
      imported.warnings.push_back(origin + ": " + command + ": " + std::to_string(errors) + " of " +
                                  std::to_string(times.size()) +
                                  " runs exited with a non-zero status; their times are left out");
    }
    ResultRecord r = wall.empty()
                         ? failed_result(command,
                                         "every one of its " + std::to_string(times.size()) +
                                             " runs exited with a non-zero status",
                                         errors, errors)
                         : new_result(command);
    if (entry.contains("parameters") && entry["parameters"].is_object()) {
      for (const auto& [key, value] : entry["parameters"].items()) {
        r.params[key] =
            value.is_string() ? ParamValue(value.get<std::string>()) : ParamValue(value.dump());
      }
    }
    if (wall.empty()) {
      imported.warnings.push_back(origin + ": " + command + ": every run failed");
      imported.results.push_back(std::move(r));
      continue;
    }
    r.metrics["wall"] = metric_from_samples("ms", Better::lower, wall);
    if (entry.contains("user"))
      r.metrics["user"] = single_value_metric("ms", Better::lower,
                                              number(entry["user"], path + ".user", origin) * 1e3);
    if (entry.contains("system")) {
      r.metrics["sys"] = single_value_metric(
          "ms", Better::lower, number(entry["system"], path + ".system", origin) * 1e3);
    }
    r.primary = "wall";
    r.ops = static_cast<std::int64_t>(times.size());
    r.errors = errors;
    imported.results.push_back(std::move(r));
  }
  return imported;
}

namespace {

// asv keeps the benchmarks' declarations (param names, types, units) beside the machines'
// folders: results/benchmarks.json for results/MACHINE/RESULTS.json.
ImportedResults read_asv_file(const std::string& content, const std::filesystem::path& path) {
  const std::filesystem::path declarations = path.parent_path().parent_path() / "benchmarks.json";
  std::error_code ignored;
  if (!std::filesystem::is_regular_file(declarations, ignored))
    return read_asv(content, path.string(), "", "");
  const std::string text = model::read_input_file(declarations, k_max_import_bytes, "");
  ImportedResults imported = read_asv(content, path.string(), text, declarations.string());
  imported.environment.facts["benchmarks_json"] = declarations.string();
  return imported;
}

}  // namespace

const std::vector<std::string>& import_formats() {
  static const std::vector<std::string> formats = {
      // clang-format off
      "auto", "google-benchmark", "hyperfine", "pytest-benchmark", "go-test", "pyperf",
      "catch2", "asv", "mitata",
      "criterion", "jmh",
      "vitest", "tinybench",
      "ndjson", "csv"};
  // clang-format on
  return formats;
}

ImportedResults import_file(const std::string& format, const std::filesystem::path& path,
                            const std::string& mapping, Partial partial) {
  if (std::find(import_formats().begin(), import_formats().end(), format) ==
      import_formats().end()) {
    std::string known;
    for (const std::string& f : import_formats()) known += (known.empty() ? "" : ", ") + f;
    throw Error("--import " + format + ": unknown format (known: " + known + ")");
  }
  const bool mapped = format == "ndjson" || format == "csv";
  if (mapped && mapping.empty())
    throw Error("--import " + format + " " + path.string() +
                ": needs --map (e.g. --map bench=.name,value=.ms,unit=ms)");
  if (!mapped && !mapping.empty())
    throw Error("--map is for --import ndjson and csv, not " + format);
  // criterion writes a folder per benchmark: read as a whole, or found from one of its files.
  std::error_code not_a_folder;
  if (format == "criterion" ||
      (format == "auto" && std::filesystem::is_directory(path, not_a_folder))) {
    ImportedResults imported = read_criterion(path, partial);
    imported.format = "criterion";
    return imported;
  }
  // Bounded, and a regular file only: a FIFO would block, a device might never end.
  const std::string content = model::read_input_file(path, k_max_import_bytes, "");
  const std::string origin = path.string();
  const std::string chosen = format == "auto" ? detect_format(content, origin) : format;
  const auto read = [&] {
    return chosen == "google-benchmark"   ? read_google_benchmark(content, origin)
           : chosen == "hyperfine"        ? read_hyperfine(content, origin)
           : chosen == "pytest-benchmark" ? read_pytest_benchmark(content, origin)
           : chosen == "go-test"          ? read_go_test(content, origin, partial)
           : chosen == "catch2"           ? read_catch2_xml(content, origin)
           : chosen == "asv"              ? read_asv_file(content, path)
           : chosen == "mitata"           ? read_mitata(content, origin)
           : chosen == "criterion"        ? read_criterion(path, partial)
           : chosen == "jmh"              ? read_jmh(content, origin, partial)
           : chosen == "vitest"           ? read_vitest(content, origin)
           : chosen == "tinybench"        ? read_tinybench(content, origin)
           : chosen == "ndjson"           ? read_mapped_ndjson(content, origin, mapping)
           : chosen == "csv"              ? read_mapped_csv(content, origin, mapping)
                                          : read_pyperf(content, origin);
  };
  ImportedResults imported;
  try {
    imported = read();
  } catch (const Error& e) {
    // The usual cause of a named format refusing a file is the wrong name: say which format the
    // file looks like, when detection recognises another one.
    if (format == "auto" || mapped) throw;
    std::optional<std::string> looks_like;
    try {
      looks_like = detect_format(content, origin);
    } catch (const Error&) {
      // Not a format benchledger recognises: the reader's own message says why.
    }
    if (!looks_like || *looks_like == chosen) throw;
    throw Error(std::string(e.what()) + " (" + origin + " looks like " + *looks_like +
                " output: --import " + *looks_like + ")");
  }
  imported.format = chosen;
  if (chosen != "criterion") imported.sha256 = sha256_hex(content);
  return imported;
}

}  // namespace benchledger::import
