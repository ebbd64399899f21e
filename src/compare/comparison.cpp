// Matching cases and metrics across two sides, then one call of assess() for all of them so
// that the false discovery rate is controlled over the whole comparison.
#include "compare/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <benchledger/error.hpp>

#include "env/env.hpp"
#include "model/failure.hpp"
#include "model/units.hpp"
#include "stats/order_statistics.hpp"

namespace benchledger::compare {
namespace {

// A case's results on one side, all runs pooled, invalidated results left out: numbers of
// results of `side`, in the order added.
struct CaseResults {
  const SideResults* side = nullptr;
  std::uint32_t number = 0;  // the case's number on its side
  std::span<const std::uint32_t> results;

  std::string_view bench() const { return side->bench(number); }
  const Params& params() const { return side->params(number); }
};

// Every case of a side that has a result left once invalidated ones are out, by case number
// (an empty span for the others).
struct SideCases {
  std::vector<std::uint32_t> results;  // grouped by case, each case's in the order added
  std::vector<std::uint32_t> begin;    // case c's are results[begin[c], begin[c + 1])
  std::size_t present = 0;             // cases with at least one

  CaseResults of(const SideResults& side, std::uint32_t c) const {
    return {&side, c,
            std::span<const std::uint32_t>(results).subspan(begin[c], begin[c + 1] - begin[c])};
  }
};

SideCases group_cases(const SideResults& side,
                      const std::set<std::string, std::less<>>& invalidated) {
  // A counting sort by case: stable, so each case keeps its results' order.
  SideCases cases;
  cases.begin.assign(side.case_count() + 1, 0);
  std::vector<bool> kept(side.size(), true);
  for (std::size_t r = 0; r < side.size(); ++r) {
    if (!invalidated.empty() && invalidated.contains(side.id(r))) {
      kept[r] = false;
      continue;
    }
    ++cases.begin[side.case_of(r) + 1];
  }
  for (std::size_t c = 0; c < side.case_count(); ++c) {
    cases.present += cases.begin[c + 1] > 0 ? 1 : 0;
    cases.begin[c + 1] += cases.begin[c];
  }
  cases.results.resize(cases.begin.back());
  std::vector<std::uint32_t> next(cases.begin.begin(), cases.begin.end() - 1);
  for (std::size_t r = 0; r < side.size(); ++r) {
    if (kept[r]) cases.results[next[side.case_of(r)]++] = static_cast<std::uint32_t>(r);
  }
  return cases;
}

// The cases of both sides, sorted by case key (bench, then canonical params): a case's number
// on each side that has it.
struct CaseMatch {
  const std::string* key = nullptr;
  std::optional<std::uint32_t> base, current;
};

std::vector<CaseMatch> match_cases(const SideResults& base, const SideCases& base_cases,
                                   const SideResults& current, const SideCases& current_cases) {
  const auto sorted_keys = [](const SideResults& side, const SideCases& cases) {
    std::vector<std::uint32_t> numbers;
    numbers.reserve(cases.present);
    for (std::uint32_t c = 0; c < side.case_count(); ++c) {
      if (cases.begin[c + 1] > cases.begin[c]) numbers.push_back(c);
    }
    std::sort(numbers.begin(), numbers.end(), [&](std::uint32_t a, std::uint32_t b) {
      return side.case_key(a) < side.case_key(b);
    });
    return numbers;
  };
  // The two sorts at once: with a million keys a side, they are half of the comparison's own work.
  std::future<std::vector<std::uint32_t>> sorting_base =
      std::async(std::launch::async, [&] { return sorted_keys(base, base_cases); });
  const std::vector<std::uint32_t> c = sorted_keys(current, current_cases);
  const std::vector<std::uint32_t> b = sorting_base.get();
  std::vector<CaseMatch> matches;
  matches.reserve(b.size() + c.size());
  std::size_t i = 0, j = 0;
  while (i < b.size() || j < c.size()) {
    const std::string* base_key = i < b.size() ? &base.case_key(b[i]) : nullptr;
    const std::string* current_key = j < c.size() ? &current.case_key(c[j]) : nullptr;
    CaseMatch match;
    if (current_key == nullptr || (base_key != nullptr && *base_key < *current_key)) {
      match = {base_key, b[i++], std::nullopt};
    } else if (base_key == nullptr || *current_key < *base_key) {
      match = {current_key, std::nullopt, c[j++]};
    } else {
      match = {current_key, b[i++], c[j++]};
    }
    matches.push_back(match);
  }
  return matches;
}

// The samples of a metric across a case's results (a metric without samples gives its value):
// those of its one result where the side keeps them, a copy only when several results pool (a
// million cases of one result each copy nothing).
struct Pooled {
  std::span<const double> values;
  std::vector<double> pooled;  // what `values` views when several results pool
  std::optional<SideResults::MetricValues> first;
};

Pooled pool(const CaseResults* entry, const std::string& metric) {
  Pooled pooled;
  if (entry == nullptr) return pooled;
  const std::optional<std::uint32_t> number = entry->side->metric_number(metric);
  if (!number) return pooled;
  std::size_t found = 0;
  for (const std::uint32_t r : entry->results) {
    const std::optional<SideResults::MetricValues> m = entry->side->metric(r, *number);
    if (!m) continue;
    if (!pooled.first) pooled.first = m;
    if (++found == 2) pooled.pooled.assign(pooled.values.begin(), pooled.values.end());
    if (found >= 2) {
      pooled.pooled.insert(pooled.pooled.end(), m->values.begin(), m->values.end());
    } else {
      pooled.values = m->values;
    }
  }
  if (found >= 2) pooled.values = pooled.pooled;
  return pooled;
}

RunSummary summarize_run(const RunRecord& run) {
  return {run.header.id, run.label, run.header.time, run.git, run.env.fingerprint};
}

// "field: base -> current" for every compared field that differs and is not ignored, values
// as the fingerprint text writes them (JSON).
std::vector<std::string> describe_differences(const Env& base, const Env& current,
                                              const Config& config) {
  std::vector<env::FieldDifference> differences;
  try {
    differences = env::environment_differences(base, current, config.environment_ignore);
  } catch (const Error& e) {
    throw Error(config.path.empty() ? e.what() : config.path.string() + ": " + e.what());
  }
  std::vector<std::string> out;
  for (const env::FieldDifference& d : differences) {
    out.push_back(fmt::format("{}: {} -> {}", d.field, d.base, d.current));
  }
  return out;
}

// The first note of `kind` that covers a case: one on a run of `runs` (every case of it, or the
// one bench the note names), or one on a result of the case.
std::shared_ptr<const Acceptance> find_acceptance(std::span<const NoteRecord> notes, NoteKind kind,
                                                  std::span<const RunRecord> runs,
                                                  const CaseResults* the_case) {
  if (the_case == nullptr) return nullptr;
  for (const NoteRecord& note : notes) {
    if (note.kind != kind) continue;
    bool covers = false;
    if (std::any_of(runs.begin(), runs.end(),
                    [&](const RunRecord& run) { return note.target == run.header.id; })) {
      covers = !note.bench || *note.bench == the_case->bench();
    } else {
      for (const std::uint32_t r : the_case->results)
        covers |= note.target == the_case->side->id(r);
    }
    if (covers)
      return std::make_shared<const Acceptance>(Acceptance{note.header.id, note.text, note.author});
  }
  return nullptr;
}

// Whether a side of a case measured: why not when every result of it failed, and the errors and
// operations of the results that did.
struct CaseHealth {
  std::optional<std::string> failure;
  std::string failure_output;  // the first failed result's stderr, when every result failed
  std::int64_t errors = 0, ops = 0;
  std::string primary = "failed";  // of the first result that measured
};

CaseHealth health_of(const CaseResults* the_case) {
  CaseHealth health;
  if (the_case == nullptr) return health;
  std::optional<std::string> first_failure;
  std::string first_output;
  bool measured = false;
  const SideResults& side = *the_case->side;
  for (const std::uint32_t r : the_case->results) {
    if (const auto failure = side.failure(r)) {
      if (!first_failure) {
        first_failure = std::string(*failure);
        first_output = side.failure_output(r);
      }
      continue;
    }
    if (!measured) health.primary = side.primary(r);
    measured = true;
    health.errors += side.errors(r);
    health.ops += side.ops(r);
  }
  if (!measured) {
    health.failure = first_failure;
    health.failure_output = std::move(first_output);
  }
  return health;
}

// Why the current side of a case counts as failed, or nothing when it does not: every result
// failed, or it counts errors where the base (which measured) counted none.
std::optional<std::string> current_failure(const CaseResults* base_case, const CaseHealth& base,
                                           const CaseResults* current_case,
                                           const CaseHealth& current) {
  if (current_case == nullptr) return std::nullopt;
  if (current.failure) return "the current side failed: " + *current.failure;
  if (base_case != nullptr && !base.failure && base.errors == 0 && current.errors > 0) {
    return fmt::format(
        "the current side counts {} {} in {} operations where the base counted "
        "none",
        current.errors, current.errors == 1 ? "error" : "errors", current.ops);
  }
  return std::nullopt;
}

// `01J… (baseline), 12 cases`, for the message that says there is nothing to compare.
std::string side_text(const ComparedSide& side, std::size_t cases) {
  const RunRecord& run = side.runs.front();
  std::string text = "run " + run.header.id;
  if (run.label) text += " (" + *run.label + ")";
  if (side.runs.size() > 1) text += fmt::format(" and {} older runs", side.runs.size() - 1);
  return text + fmt::format(" with {} {}", cases, cases == 1 ? "case" : "cases");
}

// Why an inconclusive comparison could not have been anything else, and what would do.
std::string unreachable_remark(const MetricAssessment& a) {
  const std::string samples =
      a.pairs > 0 ? fmt::format("{} pairs of rounds", a.pairs)
      : a.base_n == a.current_n
          ? fmt::format("{} samples a side", a.base_n)
          : fmt::format("{} base and {} current samples", a.base_n, a.current_n);
  const char* unit = a.pairs > 0 ? "pairs" : "a side";
  const std::string need = a.samples_needed ? fmt::format("need >= {} {}", *a.samples_needed, unit)
                                            : fmt::format("no size up to 1000 {} reaches it", unit);
  return fmt::format(
      "{} cannot reach significance among {} {} (smallest attainable p {:.3g}, needed "
      "<= {:.3g}): {}",
      samples, a.comparisons, a.comparisons == 1 ? "comparison" : "comparisons", *a.p_attainable,
      *a.p_needed, need);
}

// The state and the gate from the cases' verdicts.
void settle_state(ComparisonReport& report) {
  const bool fails = std::any_of(report.cases.begin(), report.cases.end(),
                                 [](const CaseComparison& c) { return c.fails_on_verdict; });
  const bool undecided = report.count(Verdict::inconclusive) > 0;
  report.state = fails ? GateState::failed : undecided ? GateState::undecided : GateState::passed;
  report.gate_pass = report.state == GateState::passed ||
                     (report.state == GateState::undecided && !report.undecided_fails);
}

void check_options(const CompareOptions& options) {
  if (options.allow_missing && std::find(options.fail_on.begin(), options.fail_on.end(),
                                         Verdict::missing) != options.fail_on.end()) {
    throw Error("--allow-missing and --fail-on missing contradict each other: give one");
  }
  if (!(options.alpha > 0.0 && options.alpha < 1.0)) {
    throw Error(fmt::format("--alpha {} is outside (0, 1)", options.alpha));
  }
  if (!(options.threshold >= 0.0) || !std::isfinite(options.threshold)) {
    throw Error(
        fmt::format("--threshold {} is not a non-negative percentage", 100.0 * options.threshold));
  }
}

// The report before any case: its options, the verdicts that fail the gate, the sides' runs.
ComparisonReport start_report(const ComparedSide& base, const ComparedSide& current,
                              const CompareOptions& options) {
  ComparisonReport report;
  report.alpha = options.alpha;
  report.threshold = options.threshold;
  report.deterministic_threshold = options.deterministic_threshold;
  report.test = options.test;
  // A failure and a regression always fail the gate, and a missing case does unless allowed:
  // a benchmark that disappears is how a regression hides. fail_on can only add verdicts.
  report.fail_on = {Verdict::failed, Verdict::regression};
  if (!options.allow_missing) report.fail_on.push_back(Verdict::missing);
  for (const Verdict verdict : options.fail_on) {
    if (std::find(report.fail_on.begin(), report.fail_on.end(), verdict) == report.fail_on.end()) {
      report.fail_on.push_back(verdict);
    }
  }
  for (const RunRecord& run : base.runs) report.base.push_back(summarize_run(run));
  report.current = summarize_run(current.runs.front());
  return report;
}

// The ids that invalidate notes name, whose results are left out; an invalidated run selected
// anyway is named in a warning.
std::set<std::string, std::less<>> invalidated_ids(std::span<const NoteRecord> notes,
                                                   const ComparedSide& base,
                                                   const ComparedSide& current,
                                                   std::vector<std::string>& warnings) {
  std::set<std::string, std::less<>> invalidated;
  for (const NoteRecord& note : notes) {
    if (note.kind == NoteKind::invalidate) invalidated.insert(note.target);
  }
  for (const auto* side : {&base, &current}) {
    for (const RunRecord& run : side->runs) {
      if (invalidated.contains(run.header.id)) {
        warnings.push_back(fmt::format(
            "run {} is invalidated by a note but was selected explicitly", run.header.id));
      }
    }
  }
  return invalidated;
}

// A warning for each base run whose environment differs from the current run's, field by field,
// not by fingerprint: the fingerprint leaves the runtimes out, and the config may ignore fields.
// Throws Error instead with require_same_env.
void add_environment_differences(std::span<const RunRecord> base_runs, const RunRecord& current,
                                 const CompareOptions& options, ComparisonReport& report) {
  for (const RunRecord& run : base_runs) {
    const std::vector<std::string> differences =
        describe_differences(run.env, current.env, options.config);
    if (differences.empty()) continue;
    const std::string message = fmt::format(
        "environments differ: base run {} and current run {} differ in {} ({})", run.header.id,
        current.header.id,
        differences.size() == 1 ? "one field" : fmt::format("{} fields", differences.size()),
        fmt::join(differences, "; "));
    if (options.require_same_env) throw Error(message + " (--require-same-env)");
    report.warnings.push_back(message);
    report.env_differences.insert(report.env_differences.end(), differences.begin(),
                                  differences.end());
  }
}

// Each run's own stability warnings, once per text, naming the runs that recorded it.
void add_run_warnings(const ComparedSide& base, const ComparedSide& current,
                      std::vector<std::string>& warnings) {
  std::vector<std::pair<std::string, std::vector<std::string>>> run_warnings;
  for (const auto& [side, name] : {std::pair{&base, "base"}, std::pair{&current, "current"}}) {
    for (const RunRecord& run : side->runs) {
      for (const std::string& warning : run.warnings) {
        auto it = std::find_if(run_warnings.begin(), run_warnings.end(),
                               [&](const auto& entry) { return entry.first == warning; });
        if (it == run_warnings.end()) it = run_warnings.insert(run_warnings.end(), {warning, {}});
        it->second.push_back(fmt::format("{} run {}", name, run.header.id));
      }
    }
  }
  const std::size_t all_runs = base.runs.size() + current.runs.size();
  for (const auto& [warning, runs] : run_warnings) {
    warnings.push_back(runs.size() == all_runs && all_runs > 1
                           ? fmt::format("every run: {}", warning)
                           : fmt::format("{}: {}", fmt::join(runs, ", "), warning));
  }
}

// What the gate still needs of a case and metric whose comparison is already in report.cases.
struct Pending {
  std::size_t index = 0;  // in report.cases
  const CaseResults* base_case = nullptr;
  const CaseResults* current_case = nullptr;
};

// One side of the comparison and its cases.
struct SideView {
  const ComparedSide* side = nullptr;
  const SideCases* cases = nullptr;
};

// A matched case on both sides: its results and how each side fared.
struct MatchedCase {
  const std::string& key;
  const CaseResults* base = nullptr;
  const CaseResults* current = nullptr;
  CaseHealth base_health, current_health;
  std::optional<std::string> failure;  // why the current side counts as failed

  const CaseResults& any() const { return current != nullptr ? *current : *base; }
};

// The comparisons of every case and metric, added to report.cases as the cases are matched,
// and the statistics' inputs: views of the sides' samples, or of values kept in `owned`
// (several results pooled, or converted to the current unit). Nothing more per case, so that a
// million of them are not a million comparisons twice.
struct CaseTable {
  CaseTable(SideView base_side, SideView current_side, const CompareOptions& compare_options,
            ComparisonReport& out)
      : base(base_side), current(current_side), options(compare_options), report(out) {}

  SideView base, current;
  const CompareOptions& options;
  ComparisonReport& report;

  std::vector<Pending> pending;
  std::vector<MetricInput> inputs;
  std::vector<std::size_t> compared;  // the report.cases index of each input
  std::set<std::string> metrics_seen;
  std::deque<std::vector<double>> owned;
  std::deque<CaseResults> case_results;  // what Pending points at

  void reserve(std::size_t matches) {
    pending.reserve(matches);
    report.cases.reserve(matches * std::max<std::size_t>(1, options.metrics.size()));
  }

  void release_inputs() {
    std::vector<MetricInput>().swap(inputs);
    std::deque<std::vector<double>>().swap(owned);
  }

  void add(const CaseMatch& match) {
    const CaseResults* base_case =
        match.base ? &case_results.emplace_back(base.cases->of(base.side->results, *match.base))
                   : nullptr;
    const CaseResults* current_case =
        match.current
            ? &case_results.emplace_back(current.cases->of(current.side->results, *match.current))
            : nullptr;
    CaseHealth base_health = health_of(base_case), current_health = health_of(current_case);
    std::optional<std::string> failure =
        current_failure(base_case, base_health, current_case, current_health);
    const MatchedCase matched{*match.key,
                              base_case,
                              current_case,
                              std::move(base_health),
                              std::move(current_health),
                              std::move(failure)};
    for (const std::string& metric : metrics_of(matched)) add_metric(matched, metric);
  }

  // The metrics compared for a case: the options', or the primary metric of a side that
  // measured (a failed side has only "failed").
  std::vector<std::string> metrics_of(const MatchedCase& matched) {
    if (!options.metrics.empty()) return options.metrics;
    const bool current_measured = matched.current != nullptr && !matched.current_health.failure;
    const bool base_measured = matched.base != nullptr && !matched.base_health.failure;
    const std::string primary =
        current_measured ? matched.current_health.primary
        : base_measured  ? matched.base_health.primary
                         : std::string(matched.any().side->primary(matched.any().results.front()));
    if (current_measured && base_measured && matched.base_health.primary != primary) {
      report.warnings.push_back(
          fmt::format("{}: the primary metric changed from \"{}\" to \"{}\"; comparing \"{}\"",
                      matched.key, matched.base_health.primary, primary, primary));
    }
    return {primary};
  }

  void add_metric(const MatchedCase& matched, const std::string& metric) {
    Pooled base_values = pool(matched.base, metric), current_values;
    // A side that failed has no value to show ("failed", 1 count, is not a measurement).
    if (!matched.current_health.failure) current_values = pool(matched.current, metric);
    if (!base_values.first && !current_values.first && !matched.failure) return;
    metrics_seen.insert(metric);
    CaseComparison cc = describe(matched.any(), metric, base_values, current_values);
    // Pooled values are kept where the input below views them (a vector's move keeps its data).
    if (!base_values.pooled.empty()) owned.push_back(std::move(base_values.pooled));
    if (!current_values.pooled.empty()) owned.push_back(std::move(current_values.pooled));
    if (const std::optional<MetricInput> input =
            judge(cc, matched, metric, base_values, current_values)) {
      inputs.push_back(*input);
      compared.push_back(report.cases.size());
    }
    pending.push_back({report.cases.size(), matched.base, matched.current});
    report.cases.push_back(std::move(cc));
  }

  // The comparison's names, units, threshold, counts and centres.
  CaseComparison describe(const CaseResults& any, const std::string& metric,
                          const Pooled& base_values, const Pooled& current_values) const {
    CaseComparison cc;
    cc.bench = any.bench();
    cc.params = any.params();
    cc.metric = metric;
    const auto& shown = current_values.first ? current_values.first : base_values.first;
    if (shown) {
      cc.unit = shown->unit;
      cc.better = shown->better;
    }
    cc.base_unit = base_values.first ? std::string(base_values.first->unit) : cc.unit;
    // Counts that are deterministic on both sides (instructions) are judged by their own
    // threshold alone (docs/statistics.md).
    cc.deterministic = base_values.first && current_values.first &&
                       base_values.first->deterministic && current_values.first->deterministic;
    cc.threshold = cc.deterministic
                       ? options.config.deterministic_threshold_for(
                             cc.bench, 100.0 * options.deterministic_threshold) /
                             100.0
                       : options.config.threshold_for(cc.bench, 100.0 * options.threshold) / 100.0;
    cc.base_n = base_values.values.size();
    cc.current_n = current_values.values.size();
    if (base_values.first) cc.base_center = stats::median(base_values.values);
    if (current_values.first) cc.current_center = stats::median(current_values.values);
    return cc;
  }

  // The verdict of a case that the statistics cannot judge (failed, new, missing, another
  // quantity), with its remark; or, for the others, the statistics' input.
  std::optional<MetricInput> judge(CaseComparison& cc, const MatchedCase& matched,
                                   const std::string& metric, const Pooled& base_values,
                                   const Pooled& current_values) {
    if (matched.failure) {
      cc.verdict = Verdict::failed;
      cc.remark = *matched.failure;
      cc.failure_output = matched.current_health.failure_output;
      return std::nullopt;
    }
    if (!base_values.first) {
      cc.verdict = Verdict::new_case;
      if (matched.base_health.failure) {
        cc.remark = "the base side failed (" + *matched.base_health.failure +
                    "): nothing to compare against";
        cc.failure_output = matched.base_health.failure_output;
      }
      return std::nullopt;
    }
    if (!current_values.first) {
      cc.verdict = Verdict::missing;
      return std::nullopt;
    }
    const auto factor = model::unit_factor(cc.base_unit, cc.unit);
    if (!factor || base_values.first->better != current_values.first->better) {
      // ns to ops/s, or lower-is-better to higher: another quantity, reported, not judged.
      cc.verdict = Verdict::inconclusive;
      cc.remark = fmt::format("the unit or direction changed ({} {} -> {} {}): not comparable",
                              cc.base_unit, to_string(base_values.first->better), cc.unit,
                              to_string(current_values.first->better));
      return std::nullopt;
    }
    // Judged by the statistics; ns to us is the same quantity, compared in the current unit.
    const auto in_current_unit = [this, factor = *factor](std::span<const double> values) {
      if (factor == 1.0) return values;
      std::vector<double>& converted = owned.emplace_back(values.begin(), values.end());
      for (double& v : converted) v *= factor;
      return std::span<const double>(converted);
    };
    MetricInput input{in_current_unit(base_values.values), current_values.values, cc.better,
                      cc.threshold, cc.deterministic};
    if (const auto by_case = options.pairs.find(matched.key); by_case != options.pairs.end()) {
      const auto by_metric = by_case->second.find(metric);
      if (by_metric != by_case->second.end()) {
        input.base_pairs = in_current_unit(by_metric->second.base);
        input.current_pairs = by_metric->second.current;
      }
    }
    return input;
  }
};

// The statistics' figures and verdict of each compared case, with a remark where the figures
// need one. Remarks many cases share (the same sample counts cannot reach significance the same
// way) are one string.
void apply_assessments(std::span<const MetricAssessment> assessed,
                       std::span<const std::size_t> compared, ComparisonReport& report) {
  std::map<std::string, SharedText> remarks;
  const auto shared = [&remarks](const std::string& text) {
    return remarks.try_emplace(text, text).first->second;
  };
  for (std::size_t k = 0; k < compared.size(); ++k) {
    CaseComparison& cc = report.cases[compared[k]];
    const MetricAssessment& a = assessed[k];
    cc.change = a.change;
    cc.ci_low = a.ci_low;
    cc.ci_high = a.ci_high;
    cc.p = a.p;
    cc.p_adjusted = a.p_adjusted;
    cc.detectable = a.detectable;
    cc.threshold_only = a.threshold_only;
    cc.pairs = a.pairs;
    cc.verdict = a.verdict;
    std::string remark;
    if (a.deterministic) {
      remark = "a deterministic count: only the threshold applies";
    } else if (a.threshold_only) {
      remark = fmt::format(
          "too few samples for a test ({} base, {} current; {} a side needed): only the threshold "
          "applies",
          a.base_n, a.current_n, k_min_samples);
    } else if (!a.change) {
      remark = "the base centre is 0: no relative change";
    }
    if (a.verdict == Verdict::inconclusive && a.p_attainable && *a.p_attainable > *a.p_needed) {
      const std::string unreachable = unreachable_remark(a);
      remark = remark.empty() ? unreachable : remark + "; " + unreachable;
    }
    if (!remark.empty()) cc.remark = shared(remark);
  }
}

// Each case's acceptance by a note, whether it fails the gate, and the report's counts.
void settle_verdicts(std::span<const Pending> pending, std::span<const NoteRecord> notes,
                     std::span<const RunRecord> base_runs, std::span<const RunRecord> current_runs,
                     ComparisonReport& report) {
  for (const Pending& item : pending) {
    CaseComparison& cc = report.cases[item.index];
    if (cc.verdict == Verdict::regression) {
      cc.accepted =
          find_acceptance(notes, NoteKind::accept_regression, current_runs, item.current_case);
    } else if (cc.verdict == Verdict::missing) {
      cc.accepted = find_acceptance(notes, NoteKind::remove, base_runs, item.base_case);
    }
    const bool failing_verdict =
        std::find(report.fail_on.begin(), report.fail_on.end(), cc.verdict) != report.fail_on.end();
    cc.fails_on_verdict = failing_verdict && !cc.accepted;
    report.counts[static_cast<std::size_t>(cc.verdict)] += 1;
    report.accepted += cc.accepted ? 1 : 0;
  }
}

}  // namespace

std::string_view to_string(GateState state) {
  switch (state) {
    case GateState::failed:
      return "failed";
    case GateState::undecided:
      return "undecided";
    case GateState::passed:
      break;
  }
  return "passed";
}

ComparisonReport compare_sides(const ComparedSide& base, const ComparedSide& current,
                               std::span<const NoteRecord> notes, const CompareOptions& options) {
  check_options(options);
  if (base.runs.empty()) throw Error("the base side has no run");
  if (current.runs.empty()) throw Error("the current side has no run");
  ComparisonReport report = start_report(base, current, options);
  const std::set<std::string, std::less<>> invalidated =
      invalidated_ids(notes, base, current, report.warnings);
  add_environment_differences(base.runs, current.runs.front(), options, report);
  add_run_warnings(base, current, report.warnings);

  const SideCases base_cases = group_cases(base.results, invalidated);
  const SideCases current_cases = group_cases(current.results, invalidated);
  const std::vector<CaseMatch> matches =
      match_cases(base.results, base_cases, current.results, current_cases);
  if (matches.size() == base_cases.present + current_cases.present) {
    // Every case is missing or new: a renamed command or a label taken by another suite, not a
    // comparison that passes.
    throw Error(fmt::format("nothing to compare: no case of the base ({}) is in the current ({})",
                            side_text(base, base_cases.present),
                            side_text(current, current_cases.present)));
  }

  CaseTable table({&base, &base_cases}, {&current, &current_cases}, options, report);
  table.reserve(matches.size());
  for (const CaseMatch& match : matches) table.add(match);
  for (const std::string& metric : options.metrics) {
    if (!table.metrics_seen.contains(metric)) {
      throw Error(fmt::format("no case of either run has the metric \"{}\"", metric));
    }
  }
  // Statistics for every comparable metric in one call: one false-discovery-rate adjustment.
  const std::vector<MetricAssessment> assessed =
      assess(table.inputs, {options.alpha, options.test});
  table.release_inputs();  // before the remarks below take their memory
  apply_assessments(assessed, table.compared, report);
  settle_verdicts(table.pending, notes, base.runs, current.runs, report);
  report.undecided_fails = options.undecided_fails;
  settle_state(report);
  return report;
}

ComparisonReport settle_looks(std::span<const ComparisonReport> looks, double alpha) {
  if (looks.empty()) throw Error("no look to settle");
  ComparisonReport out = looks.back();
  out.alpha = alpha;
  out.looks = looks.size();
  // Each case and metric as the first look that decided it: one pass over the looks.
  const auto key = [](const CaseComparison& c) {
    return case_key(c.bench, c.params) + '\n' + c.metric;
  };
  std::map<std::string, const CaseComparison*> decided;
  for (const ComparisonReport& look : looks) {
    for (const CaseComparison& c : look.cases) {
      if (c.verdict != Verdict::inconclusive) decided.emplace(key(c), &c);
    }
  }
  for (CaseComparison& c : out.cases) {
    if (const auto found = decided.find(key(c)); found != decided.end()) c = *found->second;
  }
  settle_gate(out);
  return out;
}

void settle_gate(ComparisonReport& report) {
  report.counts = {};
  report.accepted = 0;
  for (const CaseComparison& c : report.cases) {
    report.counts[static_cast<std::size_t>(c.verdict)] += 1;
    report.accepted += c.accepted ? 1 : 0;
  }
  settle_state(report);
}

ComparisonReport compare_sides(const Side& base, const Side& current,
                               std::span<const NoteRecord> notes, const CompareOptions& options) {
  const auto compared = [](const Side& side) {
    ComparedSide out{side.runs, SideResults()};
    for (const ResultRecord& result : side.results) out.results.add(result);
    return out;
  };
  return compare_sides(compared(base), compared(current), notes, options);
}

}  // namespace benchledger::compare
