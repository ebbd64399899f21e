// `benchledger explain BASE HEAD [CASE…]` (docs/profiles.md): for each case both runs profiled
// (`run --measure instructions` under Valgrind), the functions whose self cost changed most.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <benchledger/record.hpp>

#include "compare/comparison.hpp"
#include "profile/flame_graph.hpp"
#include "profile/profile_diff.hpp"

namespace benchledger::compare {

// One case of the two runs: its diff, or why it has none.
struct CaseExplanation {
  std::string bench;
  Params params;
  std::optional<profile::ProfileDiff> diff;
  std::string missing;  // empty with a diff: "the base's result has no profile", ...
  // The two call graphs as a differential flame graph (the HTML report's); empty when a profile
  // keeps no call graph.
  profile::FlameGraph flame = {};
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

// Where the regressed cases of a comparison went, function by function: the one section that
// compare's formats (Markdown, JSON, the table) and the HTML report show under a comparison.
struct RegressionProfiles {
  // The regressed cases, in the head's order; a case without profiles on both sides has
  // `missing`. Empty when `unreadable` is set.
  Explanation explanation;
  std::string unreadable;  // why the profiles could not be read; empty when they were
  // How the profiles were made, said under the section's heading, when not by the runs compared
  // (the gate counts the cases once more for it); may be empty.
  std::string note;
  // Whether the table and Markdown list the cases without a profile too, with why: the gate's,
  // which counted them for this section. compare's leave them out (most results have none).
  bool list_missing = false;
  bool asked = false;  // cases asked for besides the regressed ones are explained
};

// The cases of `report` whose verdict is regression, and those of `asked` (case keys), explained
// in instructions from the two sides that `sides` returns (base, head; called once, and only when
// there is a case to explain). Nothing when there is none. An Error from `sides` or from reading
// a profile (an artifact missing or changed) is kept in `unreadable`, not thrown: the comparison
// stands without the section.
std::optional<RegressionProfiles> explain_regressions(
    const ComparisonReport& report,
    const std::function<std::pair<ExplainedSide, ExplainedSide>()>& sides,
    const std::set<std::string>& asked = {});

// The case keys of `report`'s cases whose verdict is regression.
std::set<std::string> regressed_cases(const ComparisonReport& report);

}  // namespace benchledger::compare
