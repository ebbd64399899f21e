// What the import tests share: the run record of a ledger, and the end-to-end check every
// importer shares: two outputs of a harness, the second with one
// benchmark slowed down, imported as two runs, and the cases `compare` calls regressions.
#pragma once

#include <string>
#include <vector>

#include "run_support.hpp"

namespace benchledger::run_test {

// The run record of an imported ledger's records.
inline nlohmann::json run_record(const std::vector<nlohmann::json>& records) {
  for (const nlohmann::json& r : records)
    if (r["type"] == "run") return r;
  return nlohmann::json();
}

struct Regressions {
  int status = -1;                 // compare's exit status (1: the gate failed)
  std::vector<std::string> cases;  // `bench` or `bench {params}` of each regression, in order
  std::string output;              // compare's table and stderr, for a failing check's INFO
};

// Imports `base_args` and `current_args` (each `--import FORMAT FILE...` and what goes with it)
// into `ledger` as two runs, then compares them. Throws when an import fails.
inline Regressions regressions_between(const std::vector<std::string>& base_args,
                                       const std::vector<std::string>& current_args,
                                       const std::filesystem::path& ledger) {
  std::vector<std::string> ids;
  for (const auto* args : {&base_args, &current_args}) {
    std::vector<std::string> command = {"run", "--ledger", ledger.string(),
                                        "-q",  "--format", "json"};
    command.insert(command.end(), args->begin(), args->end());
    const Invocation imported = run_cli(command);
    if (imported.status != 0)
      throw std::runtime_error("the import failed (" + std::to_string(imported.status) +
                               "): " + imported.err);
    ids.push_back(nlohmann::json::parse(lines_of(imported.out).front())["id"]);
  }
  const Invocation table = run_cli({"compare", ids[0], ids[1], "--ledger", ledger.string()});
  const Invocation compared =
      run_cli({"compare", ids[0], ids[1], "--ledger", ledger.string(), "--format", "json"});
  Regressions found;
  found.status = compared.status;
  found.output = table.out + table.err;
  if (compared.status == 2) throw std::runtime_error("compare failed: " + compared.err);
  const nlohmann::json report = nlohmann::json::parse(compared.out);
  for (const auto& c : report["cases"]) {
    if (c["verdict"] != "regression") continue;
    std::string name = c["bench"].get<std::string>();
    if (!c["params"].empty()) name += " " + c["params"].dump();
    found.cases.push_back(name);
  }
  return found;
}

}  // namespace benchledger::run_test
