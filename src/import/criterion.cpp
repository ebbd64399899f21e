// Rust criterion's files (target/criterion/**/new/) and cargo-criterion's JSON messages to result
// records.
#include <algorithm>
#include <numeric>

#include <benchledger/error.hpp>

#include "import/file_environment.hpp"
#include "import/import.hpp"
#include "import/json_input.hpp"
#include "model/lines.hpp"
#include "model/user_file.hpp"

namespace benchledger::import {

namespace {

using namespace detail;
namespace fs = std::filesystem;

// One benchmark as criterion names it: the group, the function within it (BenchmarkId::new) and
// the value (BenchmarkId's parameter), each absent when the id has no such part.
struct CriterionId {
  std::string group;
  std::optional<std::string> function, value;
};

ResultRecord result_of(const CriterionId& id) {
  Params params;
  if (id.function) params["function"] = *id.function;
  if (id.value) params["value"] = param_value(*id.value);
  return new_result(id.group, std::move(params));
}

// A throughput as criterion states it per iteration: elements or bytes.
struct Throughput {
  double per_iteration = 0;
  std::string unit;  // elements/s or bytes/s
};

// benchmark.json's `throughput`: null, {"Elements": N}, {"Bytes": N} or {"BytesDecimal": N}.
std::optional<Throughput> throughput_of(const json& value, const std::string& path,
                                        const std::string& origin) {
  if (value.is_null()) return std::nullopt;
  if (!value.is_object() || value.size() != 1)
    fail(origin, path, "expected null or an object such as {\"Elements\": 64}");
  // The one member, by iterator: a binding to `*value.items().begin()` outlives the proxy.
  const std::string kind = value.begin().key();
  const json& amount = value.begin().value();
  const double per_iteration = static_cast<double>(count(amount, path + "." + kind, origin));
  if (kind == "Elements") return Throughput{per_iteration, "elements/s"};
  if (kind == "Bytes" || kind == "BytesDecimal") return Throughput{per_iteration, "bytes/s"};
  fail(origin, path, "expected Elements, Bytes or BytesDecimal, got \"" + kind + "\"");
}

// Time per iteration from criterion's measurements: each sample is `times[i]` ns over
// `iters[i]` iterations.
std::vector<double> per_iteration(const json& iters, const json& times, const std::string& path,
                                  const std::string& iters_key, const std::string& times_key,
                                  const std::string& origin, std::int64_t& ops) {
  if (!iters.is_array() || iters.empty())
    fail(origin, path + iters_key, "expected a non-empty array of iteration counts");
  if (!times.is_array()) fail(origin, path + times_key, "expected an array of times");
  std::vector<double> counts, samples;
  for (std::size_t i = 0; i < iters.size(); ++i) {
    const std::string at = path + iters_key + "[" + std::to_string(i) + "]";
    const std::int64_t n = positive_count(iters[i], at, origin);
    add_count(ops, n, at, origin);
    counts.push_back(static_cast<double>(n));
  }
  for (std::size_t i = 0; i < times.size(); ++i)
    samples.push_back(number(times[i], path + times_key + "[" + std::to_string(i) + "]", origin));
  if (samples.size() != counts.size())
    fail(origin, path + times_key,
         "expected " + std::to_string(counts.size()) + " times, one per " + iters_key + ", got " +
             std::to_string(samples.size()));
  for (std::size_t i = 0; i < samples.size(); ++i) samples[i] /= counts[i];
  return samples;
}

// The throughput's samples from the time samples (ns per iteration).
std::vector<double> rates(const Throughput& throughput, const std::vector<double>& ns) {
  std::vector<double> out;
  for (const double t : ns) out.push_back(t > 0 ? throughput.per_iteration / (t * 1e-9) : 0);
  return out;
}

// estimates.json: {"mean": {"confidence_interval": {...}, "point_estimate": ...}, ...}.
json statistics_of_estimates(const json& estimates, const std::string& origin) {
  if (!estimates.is_object()) fail(origin, "", "expected an object of estimates");
  json statistics = json::object();
  for (const char* key : {"mean", "median", "std_dev", "median_abs_dev", "slope"}) {
    const auto it = estimates.find(key);
    if (it == estimates.end() || it->is_null()) continue;  // slope: null in flat sampling
    const std::string path = key;
    const double value =
        number(member(*it, "point_estimate", path, origin), path + ".point_estimate", origin);
    json entry = {{"value", value}};
    if (const auto ci = it->find("confidence_interval"); ci != it->end()) {
      const std::string ci_path = path + ".confidence_interval";
      entry["lower"] =
          number(member(*ci, "lower_bound", ci_path, origin), ci_path + ".lower_bound", origin);
      entry["upper"] =
          number(member(*ci, "upper_bound", ci_path, origin), ci_path + ".upper_bound", origin);
      if (const auto level = optional_number(*ci, "confidence_level")) entry["level"] = *level;
    }
    statistics[key] = std::move(entry);
  }
  if (!statistics.contains("mean")) fail(origin, "mean", "missing");
  statistics["unit"] = "ns";
  return statistics;
}

json read_json_file(const fs::path& path) {
  return parse_json(model::read_input_file(path, k_max_import_bytes, ""), path.string());
}

// One folder criterion writes for a benchmark (`new`, or `base` after a later run):
// benchmark.json names it, sample.json holds the measurements, estimates.json criterion's
// statistics.
ResultRecord read_benchmark_folder(const fs::path& folder, ImportedResults& imported) {
  const fs::path benchmark_path = folder / "benchmark.json";
  const std::string benchmark_origin = benchmark_path.string();
  const json benchmark = read_json_file(benchmark_path);
  CriterionId id;
  id.group =
      text(member(benchmark, "group_id", "", benchmark_origin), "group_id", benchmark_origin);
  for (const auto& [key, part] :
       {std::pair{"function_id", &id.function}, {"value_str", &id.value}}) {
    const auto it = benchmark.find(key);
    if (it != benchmark.end() && !it->is_null()) *part = text(*it, key, benchmark_origin);
  }
  const std::string full_id = text_or(benchmark, "full_id", id.group, "", benchmark_origin);
  const auto throughput_json = benchmark.find("throughput");
  const std::optional<Throughput> throughput =
      throughput_json == benchmark.end()
          ? std::nullopt
          : throughput_of(*throughput_json, "throughput", benchmark_origin);

  ResultRecord r = result_of(id);
  const fs::path estimates_path = folder / "estimates.json";
  std::error_code ignored;
  const bool has_estimates = fs::is_regular_file(estimates_path, ignored);
  json statistics;
  if (has_estimates)
    statistics = statistics_of_estimates(read_json_file(estimates_path), estimates_path.string());
  const fs::path sample_path = folder / "sample.json";
  if (fs::is_regular_file(sample_path, ignored)) {
    const std::string origin = sample_path.string();
    const json sample = read_json_file(sample_path);
    std::int64_t ops = 0;
    std::vector<double> ns =
        per_iteration(member(sample, "iters", "", origin), member(sample, "times", "", origin), "",
                      "iters", "times", origin, ops);
    if (throughput)
      r.metrics["throughput"] =
          metric_from_samples(throughput->unit, Better::higher, rates(*throughput, ns));
    r.metrics["time"] = metric_from_samples("ns", Better::lower, std::move(ns));
    r.ops = ops;
  } else if (has_estimates) {
    const double mean = statistics["mean"]["value"].get<double>();
    r.metrics["time"] = single_value_metric("ns", Better::lower, mean);
    if (throughput && mean > 0)
      r.metrics["throughput"] = single_value_metric(throughput->unit, Better::higher,
                                                    throughput->per_iteration / (mean * 1e-9));
    r.ops = 0;
    imported.warnings.push_back(folder.string() + ": " + full_id +
                                ": no sample.json, only criterion's estimates (no samples)");
  } else {
    throw Error(folder.string() + ": " + full_id +
                ": neither sample.json nor estimates.json beside benchmark.json");
  }
  if (has_estimates) r.header.extra["tool_statistics"] = std::move(statistics);
  r.primary = "time";
  r.errors = 0;
  return r;
}

bool is_benchmark_folder(const fs::path& folder) {
  std::error_code ignored;
  return fs::is_regular_file(folder / "benchmark.json", ignored);
}

// What a benchmark's folder lacks of what criterion writes after its sample.json (estimates.json,
// then benchmark.json: analysis::common), or nothing when it is whole or holds no sample.json.
std::optional<std::string> cut_short_folder(const fs::path& folder) {
  std::error_code ignored;
  if (!fs::is_regular_file(folder / "sample.json", ignored)) return std::nullopt;
  const bool estimates = fs::is_regular_file(folder / "estimates.json", ignored);
  const bool benchmark = is_benchmark_folder(folder);
  if (estimates && benchmark) return std::nullopt;
  return std::string("has sample.json without ") +
         (!estimates && !benchmark ? "the estimates.json and benchmark.json"
          : !estimates             ? "the estimates.json"
                                   : "the benchmark.json") +
         " criterion writes after it";
}

// cargo-criterion's id "group/function/value": the group is the one a later group-complete
// message names; of the rest, the last of two parts is the value, and one part is the value
// when it is a number, else the function (BenchmarkId::from_parameter or ::new).
CriterionId split_id(const std::string& id, const std::string& group) {
  CriterionId out{group, std::nullopt, std::nullopt};
  if (id.size() <= group.size() || id.compare(0, group.size(), group) != 0 ||
      id[group.size()] != '/')
    return CriterionId{id, std::nullopt, std::nullopt};
  const std::string rest = id.substr(group.size() + 1);
  const auto slash = rest.rfind('/');
  if (slash != std::string::npos) {
    out.function = rest.substr(0, slash);
    out.value = rest.substr(slash + 1);
  } else if (std::holds_alternative<std::string>(param_value(rest))) {
    out.function = rest;
  } else {
    out.value = rest;
  }
  return out;
}

// cargo-criterion's estimate: {"estimate": E, "lower_bound": L, "upper_bound": U, "unit": "ns"}.
json statistic_of_message(const json& value, const std::string& path, const std::string& origin) {
  json entry = {
      {"value", number(member(value, "estimate", path, origin), path + ".estimate", origin)}};
  for (const auto& [key, name] : {std::pair{"lower_bound", "lower"}, {"upper_bound", "upper"}}) {
    if (const auto it = value.find(key); it != value.end() && !it->is_null())
      entry[name] = number(*it, path + "." + key, origin);
  }
  return entry;
}

}  // namespace

ImportedResults read_criterion(const std::filesystem::path& path, Partial partial) {
  std::error_code ignored;
  if (!fs::is_directory(path, ignored)) {
    const std::string name = path.filename().string();
    const bool criterion_file = name == "benchmark.json" || name == "estimates.json" ||
                                name == "sample.json" || name == "tukey.json";
    if (criterion_file &&
        (is_benchmark_folder(path.parent_path()) || cut_short_folder(path.parent_path())))
      return read_criterion(path.parent_path(), partial);
    return read_cargo_criterion(model::read_input_file(path, k_max_import_bytes, ""), path.string(),
                                partial);
  }
  std::vector<fs::path> folders;
  if (is_benchmark_folder(path) || cut_short_folder(path)) {
    folders.push_back(path);
  } else {
    std::error_code error;
    for (fs::recursive_directory_iterator it(path, error), end; !error && it != end;
         it.increment(error)) {
      // A link that loops or a folder that cannot be read is not a benchmark: passed over.
      std::error_code unreadable;
      if (it->is_directory(unreadable) && it->path().filename() == "new" &&
          (is_benchmark_folder(it->path()) || cut_short_folder(it->path())))
        folders.push_back(it->path());
    }
    if (error) throw Error(path.string() + ": cannot read the folder: " + error.message());
    // Directory order is the file system's: sorted, the same benchmarks come in the same order.
    std::sort(folders.begin(), folders.end());
  }
  if (folders.empty())
    throw Error(path.string() +
                ": no criterion benchmark here (expected target/criterion, a benchmark's `new` "
                "folder with benchmark.json, or one of its files)");
  ImportedResults imported;
  std::string ending;
  std::vector<std::string> dropped;
  for (const fs::path& folder : folders) {
    if (const auto lacks = cut_short_folder(folder)) {
      const std::string name = folder.lexically_relative(path).string();
      const std::string shown = name.empty() || name == "." ? folder.string() : name;
      ending += (ending.empty() ? "" : "; ") + shown + " " + *lacks;
      dropped.push_back(shown);
      continue;
    }
    imported.results.push_back(read_benchmark_folder(folder, imported));
  }
  // criterion writes nothing of the machine, the time or its own version.
  imported.environment.facts["criterion_folder"] = path.string();
  note_given_fields(imported.environment);
  if (!dropped.empty()) cut_short(imported, partial, path.string(), ending, dropped);
  return imported;
}

ImportedResults read_cargo_criterion(std::string_view ndjson, const std::string& origin,
                                     Partial partial) {
  struct Pending {
    ResultRecord record;
    std::string id;
  };
  std::vector<Pending> pending;  // benchmark-complete messages whose group is not known yet
  ImportedResults imported;
  // A group-complete message lists its benchmarks' ids after them: it names their group.
  const auto settle = [&](const std::string& group, const json* ids) {
    for (Pending& p : pending) {
      const bool listed = ids != nullptr && std::find(ids->begin(), ids->end(), p.id) != ids->end();
      const CriterionId id = split_id(p.id, listed ? group : p.id);
      p.record.bench = id.group;
      p.record.params = result_of(id).params;
      imported.results.push_back(std::move(p.record));
    }
    pending.clear();
  };
  std::string last_complete;  // the id of the last benchmark-complete message
  bool cut_mid_line = false;
  for (const model::TextLine& line : model::Lines(ndjson)) {
    const std::string where = origin + ":" + std::to_string(line.number);
    json message;
    try {
      message = parse_json(line.text, where);
    } catch (const Error&) {
      // The message cargo-criterion was writing when it was killed: the ones before may be kept.
      if (line.terminated || partial == Partial::refuse) throw;
      cut_mid_line = true;
      break;
    }
    const std::string reason =
        text(member(message, "reason", "", where), "reason", where);  // cargo's messages too
    if (reason == "group-complete") {
      const json& ids = member(message, "benchmarks", "", where);
      if (!ids.is_array()) fail(where, "benchmarks", "expected an array of benchmark ids");
      settle(text(member(message, "group_name", "", where), "group_name", where), &ids);
      continue;
    }
    if (reason != "benchmark-complete") continue;  // cargo's build messages
    const std::string id = text(member(message, "id", "", where), "id", where);
    const std::string unit = text(member(message, "unit", "", where), "unit", where);
    std::int64_t ops = 0;
    std::vector<double> values = per_iteration(member(message, "iteration_count", "", where),
                                               member(message, "measured_values", "", where), "",
                                               "iteration_count", "measured_values", where, ops);
    ResultRecord r = new_result(id);
    const json& throughputs = member(message, "throughput", "", where);
    if (!throughputs.is_array()) fail(where, "throughput", "expected an array");
    if (!throughputs.empty() && unit == "ns") {
      const std::string path = "throughput[0]";
      const std::string kind =
          text(member(throughputs[0], "unit", path, where), path + ".unit", where);
      const double per_iteration_count = static_cast<double>(count(
          member(throughputs[0], "per_iteration", path, where), path + ".per_iteration", where));
      r.metrics["throughput"] =
          metric_from_samples(kind.rfind("bytes", 0) == 0 ? "bytes/s" : kind + "/s", Better::higher,
                              rates(Throughput{per_iteration_count, ""}, values));
    }
    r.metrics["time"] = metric_from_samples(unit, Better::lower, std::move(values));
    json statistics = json::object();
    for (const char* key : {"typical", "mean", "median", "median_abs_dev", "slope"}) {
      if (const auto it = message.find(key); it != message.end() && !it->is_null())
        statistics[key] = statistic_of_message(*it, key, where);
    }
    statistics["unit"] = unit;
    r.header.extra["tool_statistics"] = std::move(statistics);
    r.primary = "time";
    r.ops = ops;
    r.errors = 0;
    pending.push_back({std::move(r), id});
    last_complete = id;
  }
  if (imported.results.empty() && pending.empty())
    fail(origin, "",
         std::string("no benchmark-complete message (expected cargo criterion "
                     "--message-format=json)") +
             (cut_mid_line ? ": " + std::string(k_cut_short) : ""));
  note_given_fields(imported.environment);
  // cargo-criterion ends each group with its group-complete message, which names the group its
  // benchmarks' ids begin with: without it they cannot be named, and the group may lack some.
  if (!pending.empty() || cut_mid_line) {
    std::vector<std::string> dropped;
    for (const Pending& p : pending) dropped.push_back(p.id);
    cut_short(imported, partial, origin,
              "ends after " +
                  (last_complete.empty() ? std::string("a group-complete message")
                                         : last_complete + "'s benchmark-complete message") +
                  (cut_mid_line ? " and part of a line" : "") +
                  ", without cargo-criterion's group-complete message of " +
                  (pending.empty() ? std::string("the group it began") : "its group"),
              dropped);
  }
  return imported;
}

}  // namespace benchledger::import
