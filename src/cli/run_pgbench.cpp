#include "cli/run_pgbench.hpp"

#include <charconv>
#include <map>

#include <fmt/format.h>

#include <benchledger/error.hpp>

#include "engine/pgbench_runner.hpp"
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

}  // namespace

import::ImportedResults run_pgbench_scan(
    const std::string& dsn, const std::string& args, const engine::ParamOverrides& overrides,
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
  engine::initialise_pgbench(dsn, scale);
  for (const std::int64_t c : clients) {
    for (const std::int64_t j : jobs) {
      const std::string name = fmt::format("pgbench -c {} -j {} {} (scale {})", c, j, args, scale);
      started(index++, total, name);
      const engine::PgbenchOutput out = engine::run_pgbench(dsn, c, j, words);
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
    const std::vector<std::pair<std::string, std::string>>& imports){
    std::vector<std::filesystem::path> paths;
for (const auto& [format, file] : imports) {
  if (format != "pgbench")
    throw Error("one run imports one format: --import pgbench and --import " + format);
  paths.emplace_back(file);
}
return import::import_pgbench(paths);
}

}  // namespace benchledger::cli
