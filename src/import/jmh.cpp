// JMH's JSON (`-rf json`) to result records.
#include <algorithm>
#include <cmath>

#include <benchledger/error.hpp>

#include "import/file_environment.hpp"
#include "import/import.hpp"
#include "import/json_input.hpp"

namespace benchledger::import {

namespace {

using namespace detail;

// JMH's score units as the ledger's: a time per operation is a time (ns/op → ns), B/op is
// bytes, `counts` (the gc profiler's) a count; a rate (ops/s, MB/sec) stays as JMH writes it.
std::string ledger_unit(const std::string& unit) {
  for (const char* time : {"ns", "us", "ms", "s"})
    if (unit == std::string(time) + "/op") return time;
  if (unit == "B/op") return "bytes";
  if (unit == "counts") return "count";
  return unit;
}

// Operations per time unit (thrpt's ops/s, ops/ms, ...) grow as the code gets faster; every
// other unit JMH writes (a time per operation, the gc profiler's allocation and GC counts) is
// better lower.
Better better_of(const std::string& unit) {
  return starts_with(unit, "ops/") ? Better::higher : Better::lower;
}

// The samples of a metric: `rawData`, one value per fork and measurement iteration; in sample
// mode (`rawDataHistogram`, per fork and iteration a list of [value, count]) the mean of each
// iteration's histogram, JMH's score for that iteration. `ops` adds the calls a histogram counts.
std::vector<double> samples_of(const json& metric, const std::string& path,
                               const std::string& origin, std::int64_t& ops) {
  std::vector<double> samples;
  if (const auto raw = metric.find("rawData"); raw != metric.end()) {
    if (!raw->is_array()) fail(origin, path + ".rawData", "expected an array per fork");
    for (std::size_t f = 0; f < raw->size(); ++f) {
      const std::string fork_path = path + ".rawData[" + std::to_string(f) + "]";
      const json& fork = (*raw)[f];
      if (!fork.is_array()) fail(origin, fork_path, "expected an array of iterations' scores");
      for (std::size_t i = 0; i < fork.size(); ++i)
        samples.push_back(number(fork[i], fork_path + "[" + std::to_string(i) + "]", origin));
    }
    return samples;
  }
  const json& histograms = member(metric, "rawDataHistogram", path, origin);
  if (!histograms.is_array())
    fail(origin, path + ".rawDataHistogram", "expected an array per fork");
  for (std::size_t f = 0; f < histograms.size(); ++f) {
    const std::string fork_path = path + ".rawDataHistogram[" + std::to_string(f) + "]";
    const json& fork = histograms[f];
    if (!fork.is_array()) fail(origin, fork_path, "expected an array of iterations' histograms");
    for (std::size_t i = 0; i < fork.size(); ++i) {
      const std::string iteration_path = fork_path + "[" + std::to_string(i) + "]";
      const json& histogram = fork[i];
      if (!histogram.is_array() || histogram.empty())
        fail(origin, iteration_path, "expected a non-empty array of [value, count] pairs");
      double total = 0;
      std::int64_t calls = 0;
      for (std::size_t b = 0; b < histogram.size(); ++b) {
        const std::string bin_path = iteration_path + "[" + std::to_string(b) + "]";
        const json& bin = histogram[b];
        if (!bin.is_array() || bin.size() != 2) fail(origin, bin_path, "expected [value, count]");
        const double value = number(bin[0], bin_path + "[0]", origin);
        const std::int64_t n = count(bin[1], bin_path + "[1]", origin);
        total += value * static_cast<double>(n);
        add_count(calls, n, bin_path + "[1]", origin);
      }
      if (calls == 0) fail(origin, iteration_path, "expected a histogram of at least one call");
      samples.push_back(total / static_cast<double>(calls));
      if (!std::isfinite(samples.back()))
        fail(origin, iteration_path, "the histogram's mean is not a finite number");
      add_count(ops, calls, iteration_path, origin);
    }
  }
  return samples;
}

Metric metric_of(const json& metric, const std::string& path, const std::string& origin,
                 std::int64_t& ops) {
  if (!metric.is_object()) fail(origin, path, "expected an object");
  const std::string unit =
      text(member(metric, "scoreUnit", path, origin), path + ".scoreUnit", origin);
  std::vector<double> samples = samples_of(metric, path, origin, ops);
  if (samples.empty()) {
    // An entry without raw data (written by hand, or a profiler's summary): JMH's score.
    return single_value_metric(
        ledger_unit(unit), better_of(unit),
        number(member(metric, "score", path, origin), path + ".score", origin));
  }
  return metric_from_samples(ledger_unit(unit), better_of(unit), std::move(samples));
}

// Each entry repeats the JVM and the run's settings: the first entry's are the file's, and the
// facts name the settings of each benchmark only where they differ (they do with annotations).
void read_jvm(const json& entry, FileEnvironment& file) {
  file.tool_version = optional_text(entry, "jmhVersion");
  for (const char* key : {"jvm", "jdkVersion", "vmName", "vmVersion", "jvmArgs"}) {
    if (const auto it = entry.find(key); it != entry.end()) file.facts[key] = *it;
  }
  // The JVM that measured, as the environment comparison holds it: the VM's name and its full
  // version (the build as well as the release), else the JDK's version alone.
  const auto vm = optional_text(entry, "vmName");
  const auto version = optional_text(entry, "vmVersion");
  if (vm && version)
    file.env.runtimes.java = *vm + " " + *version;
  else if (const auto jdk = optional_text(entry, "jdkVersion"))
    file.env.runtimes.java = "JDK " + *jdk;
}

const std::vector<std::string>& run_settings() {
  static const std::vector<std::string> keys = {"forks",
                                                "threads",
                                                "warmupIterations",
                                                "warmupTime",
                                                "warmupBatchSize",
                                                "measurementIterations",
                                                "measurementTime",
                                                "measurementBatchSize"};
  return keys;
}

}  // namespace

ImportedResults read_jmh(std::string_view json_text, const std::string& origin, Partial partial) {
  const json document = parse_json(json_text, origin);
  if (!document.is_array())
    fail(origin, "", "expected an array of benchmarks (jmh -rf json writes one)");
  if (document.empty()) fail(origin, "", "no benchmarks");
  ImportedResults imported;
  FileEnvironment& file = imported.environment;
  read_jvm(document[0], file);
  std::string incomplete;
  std::vector<std::string> dropped;
  for (std::size_t i = 0; i < document.size(); ++i) {
    const std::string path = "[" + std::to_string(i) + "]";
    const json& entry = document[i];
    if (!entry.is_object()) fail(origin, path, "expected an object");
    const std::string bench =
        text(member(entry, "benchmark", path, origin), path + ".benchmark", origin);
    const std::string mode = text(member(entry, "mode", path, origin), path + ".mode", origin);
    if (mode != "thrpt" && mode != "avgt" && mode != "sample" && mode != "ss")
      fail(origin, path + ".mode", "expected thrpt, avgt, sample or ss, got \"" + mode + "\"");
    // The same method in two modes (-bm all) is two cases.
    Params params{{"mode", mode}};
    if (const auto given = entry.find("params"); given != entry.end()) {
      if (!given->is_object()) fail(origin, path + ".params", "expected an object");
      for (const auto& [key, value] : given->items())
        params[key] = value.is_string() ? param_value(value.get<std::string>()) : json_param(value);
    }
    ResultRecord r = new_result(bench, std::move(params));
    std::int64_t histogram_calls = 0;
    const std::string primary_path = path + ".primaryMetric";
    Metric primary = metric_of(member(entry, "primaryMetric", path, origin), primary_path, origin,
                               histogram_calls);
    const std::size_t iterations = primary.samples ? primary.samples->size() : 1;
    // JMH writes a score per fork (in this JVM when 0) and measurement iteration: fewer is an
    // entry whose run stopped early.
    const auto forks = optional_integer(entry, "forks");
    const auto measured = optional_integer(entry, "measurementIterations");
    if (forks && measured && *forks >= 0 && *measured > 0 && primary.samples) {
      const auto expected = static_cast<std::size_t>(std::max<std::int64_t>(*forks, 1)) *
                            static_cast<std::size_t>(*measured);
      if (iterations < expected) {
        incomplete += (incomplete.empty() ? "" : "; ") + std::string("entry ") + path + " (" +
                      bench + ", " + mode + ") has " + std::to_string(iterations) + " of the " +
                      std::to_string(expected) + " scores of its " +
                      std::to_string(std::max<std::int64_t>(*forks, 1)) + " forks of " +
                      std::to_string(*measured) + " measurement iterations";
        dropped.push_back(path + " " + bench + " (" + mode + ")");
        continue;
      }
    }
    r.primary = mode == "thrpt" ? "throughput" : "time";
    r.metrics[r.primary] = std::move(primary);
    if (const auto secondary = entry.find("secondaryMetrics"); secondary != entry.end()) {
      if (!secondary->is_object()) fail(origin, path + ".secondaryMetrics", "expected an object");
      for (const auto& [key, value] : secondary->items()) {
        // Older JMH writes the profilers' metrics as `·gc.alloc.rate`.
        const std::string name = starts_with(key, "\xC2\xB7") ? key.substr(2) : key;
        std::int64_t ignored = 0;
        if (r.metrics.count(name) == 0)
          r.metrics[name] = metric_of(value, path + ".secondaryMetrics." + key, origin, ignored);
      }
    }
    // JMH writes no operation counts: a histogram counts its calls, else each sample is one
    // measurement iteration.
    r.ops = histogram_calls > 0 ? histogram_calls : static_cast<std::int64_t>(iterations);
    r.errors = 0;
    json settings = json::object();
    for (const std::string& key : run_settings())
      if (const auto it = entry.find(key); it != entry.end()) settings[key] = *it;
    if (!file.facts.contains("settings")) {
      file.facts["settings"] = settings;
    } else if (settings != file.facts["settings"]) {
      file.facts["settings_of"][bench + " " + mode] = settings;
    }
    imported.results.push_back(std::move(r));
  }
  note_given_fields(file);
  if (!dropped.empty()) cut_short(imported, partial, origin, incomplete, dropped);
  return imported;
}

}  // namespace benchledger::import
