// Pairing two runs' profiled cases and diffing their profiles (explain.hpp).
#include "compare/explain.hpp"

#include <map>

#include <fmt/format.h>

#include <benchledger/error.hpp>

#include "ledger/artifacts.hpp"
#include "ledger/series_filter.hpp"

namespace benchledger::compare {

namespace {

// Each case's first result in the side's first run.
std::map<std::string, const ResultRecord*> results_by_case(const Side& side) {
  std::map<std::string, const ResultRecord*> out;
  if (side.runs.empty()) return out;
  const std::string& run = side.runs.front().header.id;
  for (const ResultRecord& r : side.results) {
    if (r.run == run) out.emplace(case_key(r.bench, r.params), &r);
  }
  return out;
}

std::optional<profile::Profile> profile_of(const ResultRecord& result,
                                           const std::optional<std::filesystem::path>& artifacts) {
  const auto hash = ledger::profile_hash(result);
  if (!hash || !artifacts) return std::nullopt;
  return profile::profile_from_artifact(ledger::read_artifact(*artifacts, *hash), *hash);
}

using CaseFilter = std::function<bool(const ResultRecord&)>;

Explanation explain_matching(const ExplainedSide& base, const ExplainedSide& head,
                             const CaseFilter& wanted, profile::Event event) {
  Explanation out;
  if (!base.side.runs.empty()) out.base_run = base.side.runs.front().header.id;
  if (!head.side.runs.empty()) out.head_run = head.side.runs.front().header.id;
  const auto base_results = results_by_case(base.side);
  const auto head_results = results_by_case(head.side);
  const auto add = [&](const ResultRecord& any, const ResultRecord* b, const ResultRecord* h) {
    if (!wanted(any)) return;
    CaseExplanation explained{any.bench, any.params, std::nullopt, {}};
    const auto base_profile = b ? profile_of(*b, base.artifacts) : std::nullopt;
    const auto head_profile = h ? profile_of(*h, head.artifacts) : std::nullopt;
    if (!b) {
      explained.missing = "the base run has no result of this case";
    } else if (!h) {
      explained.missing = "the head run has no result of this case";
    } else if (!base_profile || !head_profile) {
      explained.missing = fmt::format(
          "{} (profiles come from run --measure instructions under Valgrind, into an NDJSON or "
          "SQLite ledger)",
          !base_profile && !head_profile ? "neither result has a profile"
          : !base_profile                ? "the base's result has no profile"
                                         : "the head's result has no profile");
    } else {
      explained.diff = profile::diff_profiles(*base_profile, *head_profile, event);
      explained.flame = profile::differential_flame_graph(*base_profile, *head_profile);
    }
    out.cases.push_back(std::move(explained));
  };
  for (const ResultRecord& r : head.side.results) {
    if (r.run != out.head_run) continue;
    const std::string key = case_key(r.bench, r.params);
    if (head_results.at(key) != &r) continue;  // a case's first result only
    const auto found = base_results.find(key);
    add(r, found == base_results.end() ? nullptr : found->second, &r);
  }
  for (const auto& [key, r] : base_results) {
    if (head_results.count(key) == 0) add(*r, r, nullptr);
  }
  return out;
}

}  // namespace

Explanation explain_runs(const ExplainedSide& base, const ExplainedSide& head,
                         const std::vector<std::string>& cases, profile::Event event) {
  for (const std::string& glob : cases) {
    const auto matches = [&](const Side& side) {
      for (const ResultRecord& r : side.results)
        if (ledger::case_matches({glob}, r.bench, r.params)) return true;
      return false;
    };
    if (!matches(base.side) && !matches(head.side)) {
      throw Error(fmt::format("case {}: matches no case of run {} or run {}", glob,
                              base.side.runs.empty() ? "" : base.side.runs.front().header.id,
                              head.side.runs.empty() ? "" : head.side.runs.front().header.id));
    }
  }
  return explain_matching(
      base, head,
      [&](const ResultRecord& r) { return ledger::case_matches(cases, r.bench, r.params); }, event);
}

Explanation explain_cases(const ExplainedSide& base, const ExplainedSide& head,
                          const std::set<std::string>& keys, profile::Event event) {
  return explain_matching(
      base, head,
      [&](const ResultRecord& r) { return keys.count(case_key(r.bench, r.params)) != 0; }, event);
}

std::set<std::string> regressed_cases(const ComparisonReport& report) {
  std::set<std::string> regressed;
  for (const CaseComparison& c : report.cases) {
    if (c.verdict == Verdict::regression) regressed.insert(case_key(c.bench, c.params));
  }
  return regressed;
}

std::optional<RegressionProfiles> explain_regressions(
    const ComparisonReport& report,
    const std::function<std::pair<ExplainedSide, ExplainedSide>()>& sides,
    const std::set<std::string>& asked) {
  std::set<std::string> explained = regressed_cases(report);
  explained.insert(asked.begin(), asked.end());
  if (explained.empty()) return std::nullopt;
  RegressionProfiles out;
  out.asked = !asked.empty();
  try {
    const auto [base, head] = sides();
    out.explanation = explain_cases(base, head, explained, profile::Event::instructions);
  } catch (const Error& e) {
    out.explanation = {};
    out.unreadable = e.what();
  }
  return out;
}

}  // namespace benchledger::compare
