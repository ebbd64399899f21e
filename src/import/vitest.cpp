// vitest's benchmark report (`vitest bench --outputJson FILE`) to result records.
#include <benchledger/error.hpp>

#include "import/file_environment.hpp"
#include "import/import.hpp"
#include "import/tinybench_results.hpp"

namespace benchledger::import {

namespace {

using namespace detail;

// vitest keeps tinybench 2's statistics of each benchmark in the benchmark's own object,
// with the median and sample count it adds (vitest's createBenchmarkResult and its "complete"
// listener).
const StatisticNames k_vitest_names = {"median", "sampleCount"};

}  // namespace

ImportedResults read_vitest(std::string_view json_text, const std::string& origin) {
  const json document = parse_json(json_text, origin);
  const json& files = member(document, "files", "", origin);
  if (!files.is_array()) fail(origin, "files", "expected an array");
  ImportedResults imported;
  // The report states nothing of the machine, the runtime or vitest's version.
  note_given_fields(imported.environment);
  bool warned = false;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string file_path = "files[" + std::to_string(i) + "]";
    const json& groups = member(files[i], "groups", file_path, origin);
    if (!groups.is_array()) fail(origin, file_path + ".groups", "expected an array");
    for (std::size_t j = 0; j < groups.size(); ++j) {
      const std::string group_path = file_path + ".groups[" + std::to_string(j) + "]";
      // The file relative to the project and its describe blocks: `bench/a.bench.js > sort`.
      const std::string full_name =
          text(member(groups[j], "fullName", group_path, origin), group_path + ".fullName", origin);
      const json& benchmarks = member(groups[j], "benchmarks", group_path, origin);
      if (!benchmarks.is_array()) fail(origin, group_path + ".benchmarks", "expected an array");
      for (std::size_t k = 0; k < benchmarks.size(); ++k) {
        const std::string path = group_path + ".benchmarks[" + std::to_string(k) + "]";
        const json& entry = benchmarks[k];
        const std::string name = text(member(entry, "name", path, origin), path + ".name", origin);
        NamedCase named = case_from_name(full_name, name);
        // A benchmark that threw: vitest writes its name and rank, no statistics (and exits 0).
        if (!entry.contains("hz") && !entry.contains("mean")) {
          ResultRecord failed = failed_result(
              named.bench, "vitest wrote no statistics for it (the benchmark threw)", 1, 1);
          failed.params = std::move(named.params);
          imported.warnings.push_back(origin + ": " + full_name + " > " + name +
                                      ": no statistics (the benchmark threw): a failed result");
          imported.results.push_back(std::move(failed));
          continue;
        }
        ResultRecord r = new_result(named.bench, std::move(named.params));
        Metric time =
            metric_from_statistics(entry, k_vitest_names, "ms", Better::lower, path, origin);
        if (time.samples) {
          r.ops = static_cast<std::int64_t>(time.samples->size());
        } else {
          r.ops = time.summary.n;
          r.header.extra["tool_statistics"] = other_statistics(entry, "ms");
          if (!warned) {
            imported.warnings.push_back(
                origin +
                ": vitest's report has no samples, only each benchmark's statistics: compare "
                "judges them by the threshold alone");
            warned = true;
          }
        }
        r.metrics["time"] = std::move(time);
        r.metrics["hz"] =
            single_value_metric("ops/s", Better::higher,
                                number(member(entry, "hz", path, origin), path + ".hz", origin));
        r.primary = "time";
        r.errors = 0;
        imported.results.push_back(std::move(r));
      }
    }
  }
  if (imported.results.empty()) fail(origin, "files", "no benchmarks");
  return imported;
}

}  // namespace benchledger::import
