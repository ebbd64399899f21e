#include "cli/run_pgbench.hpp"

#include <algorithm>
#include <charconv>
#include <map>

#include <fmt/format.h>

#include <benchledger/error.hpp>

#include "engine/pgbench_runner.hpp"
#include "engine/records.hpp"
#include "import/pgbench.hpp"

namespace benchledger::cli {

namespace {

std::vector<std::int64_t> positive_values(const engine::ParamOverrides& overrides,
                                          const std::string& name) {
  for (const auto& [param, values] : overrides) {
    if (param != name) continue;
    std::vector<std::int64_t> out;
    for (const std::string& text : values) {
      std::int64_t value = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (ec != std::errc() || end != text.data() + text.size() || value < 1)
        throw Error("--param " + name + ": \"" + text + "\" is not a positive integer");
      out.push_back(value);
    }
    return out;
  }
  return {1};
}

// The value of a pgbench flag in `words` (`-b NAME`, `-bNAME`, `--builtin=NAME`, `--builtin
// NAME`), without a script's `@WEIGHT`; empty when it is not given.
std::string flag_value(const std::vector<std::string>& words, const std::string& short_flag,
                       const std::string& long_flag) {
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    std::string value;
    if (w == short_flag || w == long_flag) {
      value = i + 1 < words.size() ? words[i + 1] : "";
    } else if (w.rfind(long_flag + "=", 0) == 0) {
      value = w.substr(long_flag.size() + 1);
    } else if (w.rfind(short_flag, 0) == 0 && w.size() > short_flag.size()) {
      value = w.substr(short_flag.size());
    } else {
      continue;
    }
    return value.substr(0, value.find('@'));
  }
  return "";
}

// A pgbench run killed past its time limit, as the result of the case it would have been: the
// bench and params the pgbench importer gives a finished run (pgbench/SCRIPT; clients, jobs,
// scale, query_mode), the script named as ARGS give it, since pgbench printed no summary.
ResultRecord timed_out_result(const std::vector<std::string>& words, std::int64_t clients,
                              std::int64_t jobs, std::int64_t scale,
                              const engine::CaseFailure& failure) {
  std::string script = flag_value(words, "-b", "--builtin");
  if (script.empty()) script = flag_value(words, "-f", "--file");
  const auto has = [&words](const char* a, const char* b) {
    return std::find(words.begin(), words.end(), a) != words.end() ||
           std::find(words.begin(), words.end(), b) != words.end();
  };
  if (script.empty() && has("-S", "--select-only")) script = "select-only";
  if (script.empty() && has("-N", "--skip-some-updates")) script = "simple-update";
  if (script.empty()) script = "tpcb-like";
  std::string query_mode = flag_value(words, "-M", "--protocol");
  if (query_mode.empty()) query_mode = "simple";
  const Params params = {
      {"clients", clients}, {"jobs", jobs}, {"scale", scale}, {"query_mode", query_mode}};
  // The case as a whole is the one operation that failed, as for a native case.
  return engine::failed_result("", "pgbench/" + script, params, failure, 1, 1);
}

}  // namespace

import::ImportedResults run_pgbench_scan(
    const std::string& dsn, const std::string& args, const engine::ParamOverrides& overrides,
    double timeout_s,
    const std::function<void(std::size_t, std::size_t, const std::string&)>& started){
    for (const auto& [param, values] :overrides){
        if (param != "clients" && param != "jobs" && param != "scale") throw Error(
            "--param " + param + ": --pgbench takes clients, jobs and scale");
}  // namespace benchledger::cli
const std::vector<std::string> words = engine::split_pgbench_args(args);
const auto scales = positive_values(overrides, "scale");
const auto clients = positive_values(overrides, "clients");
const auto jobs = positive_values(overrides, "jobs");
const std::size_t total = scales.size() * clients.size() * jobs.size();
import::ImportedResults all;
std::size_t index = 0;
for (const std::int64_t scale : scales) {
  started(index, total, fmt::format("pgbench -i -s {}", scale));
  engine::initialise_pgbench(dsn, scale, timeout_s);
  for (const std::int64_t c : clients) {
    for (const std::int64_t j : jobs) {
      const std::string name = fmt::format("pgbench -c {} -j {} {} (scale {})", c, j, args, scale);
      started(index++, total, name);
      const engine::PgbenchOutput out = engine::run_pgbench(dsn, c, j, words, timeout_s);
      if (out.failure) {
        all.results.push_back(timed_out_result(words, c, j, scale, *out.failure));
        all.warnings.push_back(
            fmt::format("case {} failed ({}): {}", name, out.failure->kind, out.failure->message));
        continue;
      }
      std::vector<import::PgbenchFile> files = {{out.output, name}};
      for (const auto& [file, text] : out.logs) files.push_back({text, name + " " + file});
      import::ImportedResults one = import::read_pgbench(files);
      for (auto& r : one.results) all.results.push_back(std::move(r));
      all.warnings.insert(all.warnings.end(), one.warnings.begin(), one.warnings.end());
    }
  }
}
return all;
}

import::ImportedResults import_pgbench_files(
    const std::vector<std::pair<std::string, std::string>>& imports,
    import::Partial partial){std::vector<std::filesystem::path> paths;
for (const auto& [format, file] : imports) {
  if (format != "pgbench")
    throw Error("one run imports one format: --import pgbench and --import " + format);
  paths.emplace_back(file);
}
return import::import_pgbench(paths, partial);
}

}  // namespace benchledger::cli
