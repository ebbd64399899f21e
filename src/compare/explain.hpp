// `benchledger explain BASE HEAD [CASE…]` (docs/profiles.md): for each case both runs profiled
// (`run --measure instructions` under Valgrind), the functions whose self cost changed most.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <benchledger/record.hpp>

#include "compare/comparison.hpp"
#include "profile/profile_diff.hpp"

namespace benchledger::compare {

// One case of the two runs: its diff, or why it has none.
struct CaseExplanation {
  std::string bench;
  Params params;
  std::optional<profile::ProfileDiff> diff;
  std::string missing;  // empty with a diff: "the base's result has no profile", ...
};

struct Explanation {
  std::string base_run, head_run;  // run ids
  std::vector<CaseExplanation> cases;
};

// A side to explain: its runs (the first is used) and results, and the artifact directory its
// results' profiles are read from (nothing: a ledger that keeps none).
struct ExplainedSide {
  Side side;
  std::optional<std::filesystem::path> artifacts;
};

// The cases in both sides' first runs that match one of `cases` (globs on the bench name or the
// case key, as history's; none: every case), in the head's order. Throws Error naming an
// artifact that is missing or changed (ledger/artifacts.hpp), or a glob that matches no case of
// either run.
Explanation explain_runs(const ExplainedSide& base, const ExplainedSide& head,
                         const std::vector<std::string>& cases, profile::Event event);

// The same for the cases whose case_key is one of `keys` (compare's regressed cases): a key of
// neither run is left out, not refused.
Explanation explain_cases(const ExplainedSide& base, const ExplainedSide& head,
                          const std::set<std::string>& keys, profile::Event event);

}  // namespace benchledger::compare
