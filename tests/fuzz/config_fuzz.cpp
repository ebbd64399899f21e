// Fuzz target `config`: benchledger.json, as every command reads it (load_config), on any bytes
// either gives a Config or throws benchledger::Error naming the file; the thresholds it gives
// are found by their patterns. Anything else is a finding.
#include <optional>
#include <string_view>

#include <benchledger/config.hpp>
#include <benchledger/error.hpp>

#include "fuzz_targets.hpp"
#include "scratch_file.hpp"

namespace benchledger::fuzz {

void config(std::string_view content) {
  const auto path = write_scratch_file("benchledger.json", content);
  std::optional<Config> parsed;
  require_error_only([&] { parsed = load_config(path); });
  if (!parsed) return;
  require(parsed->path == path);
  for (const auto& [pattern, percent] : parsed->thresholds) {
    static_cast<void>(parsed->threshold_for(pattern, -1));
  }
  for (const auto& [pattern, percent] : parsed->deterministic_thresholds) {
    static_cast<void>(parsed->deterministic_threshold_for(pattern, -1));
  }
}

}  // namespace benchledger::fuzz
