// `benchledger run --import`: other harnesses' files as one run (docs/import.md).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <benchledger/ledger.hpp>
#include <benchledger/record.hpp>

#include "import/import.hpp"

namespace benchledger::cli {

// Reads every (format, file) of `imports` (`mapping`: --map, for ndjson and csv) and returns their
// results, bound to `run`. Sets run.source to the format read (the one `auto` chose, which it notes
// on stderr unless `quiet`) and the run's field `imported` (each file, its format, tool version,
// date, the env fields it gave and its other facts). Unless `env_from_here`, run.env becomes the
// environment the first file states (null where it says nothing), with its fingerprint and
// stability warnings in place of this machine's. Throws Error for an unreadable file, a file cut
// short (unless `partial` keeps its complete benchmarks, with a run warning naming what was left
// out: compare, gate and report show a run's warnings) or mixed formats; nothing is appended then.
std::vector<ResultRecord> import_into_run(
    const std::vector<std::pair<std::string, std::string>>& imports, const std::string& mapping,
    RunRecord& run, bool env_from_here, bool quiet, import::Partial partial);

// A warning for each file of `run` (imported by import_into_run) whose bytes an earlier run of
// `store` imported already (the same sha256 in its `imported.files`), naming the file and the
// newest such run: appending it puts the same results in the ledger twice. Empty when there is
// none. Throws Error when the store cannot be read.
std::vector<std::string> repeated_imports(const RunRecord& run, const ledger::Store& store);

}  // namespace benchledger::cli
