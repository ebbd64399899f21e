// tinybench's task results, serialised as JSON, to result records.
#include <benchledger/error.hpp>

#include "import/file_environment.hpp"
#include "import/import.hpp"
#include "import/tinybench_results.hpp"

namespace benchledger::import {

namespace {

using namespace detail;

// tinybench 3 and later name its median p50 and its sample count samplesCount.
const StatisticNames k_tinybench_names = {"p50", "samplesCount"};

// Each result names its runtime (`node`, `bun`, `deno`, ...) and that runtime's version, and the
// clock tinybench read. The first result that does is the file's environment.
void read_runtime(const json& result, FileEnvironment& file) {
  if (file.facts.contains("runtime")) return;
  const auto runtime = optional_text(result, "runtime");
  const auto version = optional_text(result, "runtimeVersion");
  if (!runtime) return;
  file.facts["runtime"] = *runtime;
  if (version) file.facts["runtimeVersion"] = *version;
  if (*runtime == "node" && version) file.env.runtimes.node = "v" + *version;  // as node --version
  if (const auto clock = optional_text(result, "timestampProviderName"))
    file.facts["timestampProviderName"] = *clock;
}

}  // namespace

ImportedResults read_tinybench(std::string_view json_text, const std::string& origin) {
  const json document = parse_json(json_text, origin);
  if (!document.is_array())
    fail(origin, "",
         "expected an array of tasks, each {\"name\", \"result\"} (JSON.stringify(bench.tasks.map("
         "(t) => ({ name: t.name, result: t.result }))))");
  ImportedResults imported;
  bool warned = false;
  for (std::size_t i = 0; i < document.size(); ++i) {
    const std::string path = "[" + std::to_string(i) + "]";
    const json& task = document[i];
    const std::string name = text(member(task, "name", path, origin), path + ".name", origin);
    const std::string result_path = path + ".result";
    const json& result = member(task, "result", path, origin);
    if (result.is_object() && !result.contains("state") && result.contains("hz"))
      fail(origin, result_path,
           "a tinybench 2 result (hz, mean and samples at its top): expected tinybench 3 or "
           "later's state, latency and throughput");
    const std::string state =
        text(member(result, "state", result_path, origin), result_path + ".state", origin);
    read_runtime(result, imported.environment);
    NamedCase named = case_from_name("", name);
    // completed, or aborted by the bench's signal after some samples: both have statistics.
    if (state != "completed" && state != "aborted-with-statistics") {
      // An Error serialises as {} unless the user kept its message.
      std::string why = "tinybench's state is \"" + state + "\"";
      if (const auto error = result.find("error"); error != result.end()) {
        const auto message = error->is_string() ? std::optional(error->get<std::string>())
                                                : optional_text(*error, "message");
        why = "the task threw" + (message ? ": " + *message : std::string());
      }
      ResultRecord failed = failed_result(named.bench, why, 1, 1);
      failed.params = std::move(named.params);
      imported.results.push_back(std::move(failed));
      continue;
    }
    if (state == "aborted-with-statistics")
      imported.warnings.push_back(origin + ": " + name +
                                  ": aborted before it finished: its samples so far are kept");
    const std::string latency_path = result_path + ".latency";
    const json& latency = member(result, "latency", result_path, origin);
    if (!latency.is_object())
      fail(origin, latency_path, "expected an object (tinybench 3 or later's statistics)");
    ResultRecord r = new_result(named.bench, std::move(named.params));
    Metric time = metric_from_statistics(latency, k_tinybench_names, "ms", Better::lower,
                                         latency_path, origin);
    const std::string throughput_path = result_path + ".throughput";
    const json& throughput = member(result, "throughput", result_path, origin);
    if (!throughput.is_object()) fail(origin, throughput_path, "expected an object");
    Metric rate = metric_from_statistics(throughput, k_tinybench_names, "ops/s", Better::higher,
                                         throughput_path, origin);
    if (time.samples) {
      r.ops = static_cast<std::int64_t>(time.samples->size());
    } else {
      r.ops = time.summary.n;
      r.header.extra["tool_statistics"] = {{"latency", other_statistics(latency, "ms")},
                                           {"throughput", other_statistics(throughput, "ops/s")}};
      if (!warned) {
        imported.warnings.push_back(origin +
                                    ": no samples (create the Bench with retainSamples: true to "
                                    "compare with statistics): compare judges the statistics by "
                                    "the threshold alone");
        warned = true;
      }
    }
    r.metrics["time"] = std::move(time);
    r.metrics["throughput"] = std::move(rate);
    r.primary = "time";
    r.errors = 0;
    imported.results.push_back(std::move(r));
  }
  if (imported.results.empty()) fail(origin, "", "no tasks");
  note_given_fields(imported.environment);
  return imported;
}

}  // namespace benchledger::import
