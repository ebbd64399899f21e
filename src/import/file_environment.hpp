// The environment an imported file states (docs/import.md, "Environment"): the readers fill
// FileEnvironment::env from the file's own words, then note_given_fields lists what they set.
#pragma once

#include <nlohmann/json.hpp>

#include "import/import.hpp"

namespace benchledger::import::detail {

// Sets environment.from_file to the dotted names of env's non-null fields (fingerprint aside).
void note_given_fields(FileEnvironment& environment);

// google-benchmark's `context` object: host_name, num_cpus, mhz_per_cpu, caches, load_avg;
// date as measured_at, library_version as tool_version; executable, cpu_scaling_enabled and
// library_build_type as facts (the library's build type is not the measured code's).
FileEnvironment google_benchmark_environment(const nlohmann::json& context);

}  // namespace benchledger::import::detail
