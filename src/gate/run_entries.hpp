// Which `gate.run` entries measure which side (docs/ci-gate.md, "Whose configuration judges").
// The base revision's entries measure both sides, whatever the head's benchledger.json says:
// otherwise a head that points its entries at `true` measures nothing real on either side. An
// entry only the head's file has measures the head alone; its cases are `new`.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include <benchledger/config.hpp>

#include "gate/rounds.hpp"

namespace benchledger::gate {

struct RunEntry {
  std::vector<std::string> words;  // as GateSpec::run
  std::string text;                // as written, for messages
  // In the head's file only: measured on the head alone.
  bool head_only = false;
  // In the base's file only: still measured on both sides, since the head's file cannot stop
  // base's entries from judging it; where the head cannot run it (a failed case, or `benchledger
  // run` refusing the entry) the head has stopped running those benchmarks, and they are missing.
  bool removed_by_head = false;
};

// The entries of `reference` (the base's gate section, or the head's when the base has none), in
// its order, then those of `head` whose words no entry of `reference` has. `head` is null when
// `reference` is the head's own.
std::vector<RunEntry> run_entries(const GateSpec& reference, const GateSpec* head);

// Applies what a side does not keep to one round the head measured of `entry`, and returns why,
// for a warning (nothing when everything is kept): a removed_by_head entry's failed results are
// left out (its cases become missing); a head_only entry's results of a case that a base entry
// measures (`base_entry_cases`, the case keys the head's rounds of base entries recorded so far)
// are left out, so that an entry the head adds cannot pool other samples into a case the base's
// entries judge. A round of a base entry adds its cases to `base_entry_cases`.
std::optional<std::string> keep_head_results(const RunEntry& entry, Round& round,
                                             std::set<std::string>& base_entry_cases);

}  // namespace benchledger::gate
