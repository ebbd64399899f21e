// Comparing two sides of records (docs/statistics.md): cases matched by bench +
// params, one comparison per metric, verdicts, accept-regression notes, environment
// differences, and the gate. The result is a plain struct that src/report renders in every
// format (compare_render.hpp) and that `report` embeds.
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <benchledger/config.hpp>
#include <benchledger/record.hpp>

#include "compare/side_results.hpp"
#include "compare/verdict.hpp"

namespace benchledger::compare {

// One side of a comparison: the selected runs, newest first (several when --base-runs pools
// them), and their results. Samples of the same case across the runs are pooled.
struct Side {
  std::vector<RunRecord> runs;
  std::vector<ResultRecord> results;
};

// A side as the comparison reads it: the runs as in Side, and of their results only what
// compare_sides() reads (SideResults), for sides too large to hold as records.
struct ComparedSide {
  std::vector<RunRecord> runs;
  SideResults results;
};

// One metric of one case, measured in pairs of rounds: the base's and the current's centre of
// each round, pair i being base[i] and current[i] (same length).
struct RoundCentres {
  std::vector<double> base, current;
};

struct CompareOptions {
  double alpha = 0.05;      // false discovery rate, and 1 - the intervals' confidence
  double threshold = 0.05;  // fraction; per-benchmark values from config.thresholds win
  // The same for deterministic metrics (Metric::deterministic on both sides), whose verdict is
  // the threshold alone; per-benchmark values from config.deterministic_thresholds win.
  double deterministic_threshold = 0.005;
  Config config;  // thresholds by exact bench name or glob (percent)
  // Which metrics to compare; empty means each case's `primary` metric.
  std::vector<std::string> metrics;
  // Verdicts that fail the gate besides failed and regression, which always do, and missing,
  // which does unless allow_missing.
  std::vector<Verdict> fail_on;
  // A case in the base only passes the gate (as if every missing case had a remove note).
  bool allow_missing = false;
  bool require_same_env = false;  // differing fingerprints throw Error instead of warning
  DecidingTest test = DecidingTest::mann_whitney;
  // An undecided comparison (a case left inconclusive) fails the gate instead of passing it
  // under the title "undecided" (gate.undecided: fail).
  bool undecided_fails = false;
  // Paired rounds (docs/statistics.md, "Paired rounds and repeated looks"): for a case key
  // (case_key of bench and params) and a metric, each round's centre on both sides, in the
  // order the pairs were measured. A metric found here with at least k_min_samples pairs is
  // judged on the pairs' log-ratios; every other metric on its pooled samples.
  std::map<std::string, std::map<std::string, RoundCentres>> pairs;
};

// A selected run as the outputs show it.
struct RunSummary {
  std::string id;
  std::optional<std::string> label;
  std::string time;
  GitState git;
  std::string fingerprint;
};

// The note that accepts a regression (accept-regression) or a missing case (remove).
struct Acceptance {
  std::string note;  // the note's id
  std::string text;
  std::string author;
};

// A setting of the gate configuration (benchledger.json) as the base and the head revision have
// it, in the words the outputs print: {"threshold", "5%", "1000%"}, {"gate.run", "`--name work --
// sh work.sh`", "none"} (compare/gate_configuration.hpp).
struct SettingChange {
  std::string key;
  std::string base, head;
};

// One metric of one case. Fractions throughout (0.1 = 10%); renderers print percent.
// A remark's text, shared between the cases told the same thing: a million cases of 5 samples
// each cannot reach significance for the same reason, and a string a case was a tenth of the
// comparison's memory (docs/statistics.md).
class SharedText {
 public:
  SharedText() = default;
  SharedText(std::string text)  // NOLINT(google-explicit-constructor): assigned like a string
      : m_text(text.empty() ? nullptr : std::make_shared<const std::string>(std::move(text))) {}
  bool empty() const { return m_text == nullptr; }
  const std::string& str() const { return m_text ? *m_text : none(); }
  operator const std::string&() const { return str(); }  // NOLINT(google-explicit-constructor)
  friend bool operator==(const SharedText& a, std::string_view b) { return a.str() == b; }

 private:
  static const std::string& none() {
    static const std::string empty;
    return empty;
  }
  std::shared_ptr<const std::string> m_text;
};

struct CaseComparison {
  std::string bench;
  Params params;
  std::string metric;
  std::string unit;       // the current side's (the base's for a missing case)
  std::string base_unit;  // the base side's (the current's for a new case); base_center is in it
  Better better = Better::lower;
  std::size_t base_n = 0, current_n = 0;  // samples (a single value counts as 1)
  std::size_t pairs = 0;  // judged on this many pairs of rounds; 0 when on pooled samples
  std::optional<double> base_center, current_center;  // medians; absent on the side lacking it
  std::optional<double> change;                       // current / base - 1
  std::optional<double> ci_low, ci_high;
  std::optional<double> p, p_adjusted;
  std::optional<double> detectable;  // for inconclusive verdicts; may be infinite
  double threshold = 0.05;
  bool threshold_only = false;  // fewer than 3 samples a side, or deterministic
  bool deterministic = false;   // a count deterministic on both sides: its own threshold alone
  Verdict verdict = Verdict::inconclusive;
  // A regression an accept-regression note covers, or a missing case a remove note covers
  // (shared, not held: a pointer costs a million cases 16 bytes each, an Acceptance 104).
  std::shared_ptr<const Acceptance> accepted;
  // The verdict is one of the report's fail_on and no note accepts the case: the report's state
  // is failed. Not the whole exit status: under undecided_fails an inconclusive case fails it
  // too (gate_pass) without this.
  bool fails_on_verdict = false;
  // An accepted_by_change case: the verdict the base revision's gate configuration gave it, and
  // the head's settings that let it pass (the case's threshold, the gate options that differ).
  std::optional<Verdict> judged;
  std::vector<SettingChange> loosened;
  // Why the statistics are limited, or why a case failed (`the current side failed: error:
  // every run failed (first: run 1 exited with status 3)`), or empty.
  SharedText remark;
  // When the remark says a side failed: the last lines of its first failed run's stderr
  // (model::output_tail: bounded, secrets redacted), or empty when it wrote none.
  std::string failure_output;
};

inline constexpr std::size_t k_verdict_count = 8;

// What a comparison says of the change as a whole. passed: every case shown within its threshold,
// improved, new or accepted; failed: a case fails the gate; undecided: nothing fails, but a case
// is inconclusive, so a regression of it could not be excluded.
enum class GateState { passed, failed, undecided };
std::string_view to_string(GateState state);  // "passed", "failed", "undecided"

struct ComparisonReport {
  std::vector<RunSummary> base;  // newest first; more than one when pooled
  RunSummary current;
  std::vector<std::string> warnings;
  // Differing comparability fields (env::comparability_fields names) of each base run whose
  // fingerprint differs from the current run's, as "field: base value -> current value".
  std::vector<std::string> env_differences;
  // The gate's: where the head revision's gate configuration differs from the base's, which
  // judges (compare/gate_configuration.hpp); empty for `compare` and where they agree.
  std::vector<SettingChange> configuration;
  // Sorted by bench, params, metric; the gate puts accepted_by_change cases first.
  std::vector<CaseComparison> cases;
  std::array<std::size_t, k_verdict_count> counts{};  // indexed by Verdict
  std::size_t accepted = 0;
  double alpha = 0.05;
  double threshold = 0.05;
  double deterministic_threshold = 0.005;
  DecidingTest test = DecidingTest::mann_whitney;
  // failed, regression and (unless allow_missing) missing, then what CompareOptions::fail_on
  // added.
  std::vector<Verdict> fail_on;
  GateState state = GateState::passed;
  bool undecided_fails = false;  // CompareOptions::undecided_fails
  // The exit status's verdict: passed, or undecided unless undecided_fails.
  bool gate_pass = true;
  // How many looks settle_looks() made one report of, each at its share of alpha and with
  // intervals at that level; 0 for a single comparison at alpha.
  std::size_t looks = 0;

  std::size_t count(Verdict verdict) const { return counts[static_cast<std::size_t>(verdict)]; }
};

// Compares current against base. Results that an `invalidate` note targets are left out;
// `notes` may hold every note of the ledger. A case whose current side failed (every result
// failed, or it counts errors where the base counted none) gets the verdict failed, which always
// fails the gate; one whose base side alone failed is reported in its remark. Throws
// benchledger::Error when a side has no run, when no case is on both sides ("nothing to
// compare"), when options are out of range, when a metric asked for exists in no case, or (with
// require_same_env) when the environments differ.
ComparisonReport compare_sides(const Side& base, const Side& current,
                               std::span<const NoteRecord> notes, const CompareOptions& options);
// The same for sides read into SideResults: the same report for the same results, in memory that
// holds a few numbers a result rather than the records.
ComparisonReport compare_sides(const ComparedSide& base, const ComparedSide& current,
                               std::span<const NoteRecord> notes, const CompareOptions& options);

// Recounts the verdicts and accepted cases and settles the state and the gate from the cases'
// fails_on_verdict, the inconclusive count and undecided_fails: for a report whose cases were
// changed after compare_sides().
void settle_gate(ComparisonReport& report);

// One report from repeated looks at the same comparison as rounds were added (the gate's
// sequential rounds, docs/statistics.md): each case and metric as the first look that decided it
// showed it (any verdict but inconclusive), an undecided one as the last look showed it; counts,
// state and gate from those. `looks` in the order they were made; the last one gives the runs,
// warnings and settings, `alpha` the error rate of all the looks together. Throws Error when
// there is no look.
ComparisonReport settle_looks(std::span<const ComparisonReport> looks, double alpha);

}  // namespace benchledger::compare
