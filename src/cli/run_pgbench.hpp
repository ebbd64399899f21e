// `run --pgbench "ARGS"` and `run --import pgbench FILE...` (docs/postgres.md): pgbench's runs
// and output to results, through engine/pgbench_runner.hpp and import/pgbench.hpp.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "engine/native.hpp"
#include "import/import.hpp"

namespace benchledger::cli {

// Runs pgbench ARGS against `dsn` for each combination of the params clients, jobs and scale
// (each 1 when not given; scale slowest, then clients, then jobs), initialising pgbench's
// tables once per scale value. `started` is told each combination before it runs. A pgbench
// still running after `timeout_s` is killed and recorded as the failed result of its
// combination (failure `timeout`). Throws Error for any other param, a value that is not a
// positive integer, and a failed pgbench (or `pgbench -i` past its time).
import::ImportedResults run_pgbench_scan(
    const std::string& dsn, const std::string& args, const engine::ParamOverrides& overrides,
    double timeout_s,
    const std::function<void(std::size_t index, std::size_t total, const std::string& name)>&
        started);

// The pgbench files of `--import pgbench FILE` flags (output and -l logs, in any order), read
// as one run.
import::ImportedResults import_pgbench_files(
    const std::vector<std::pair<std::string, std::string>>& imports, import::Partial partial);

}  // namespace benchledger::cli
