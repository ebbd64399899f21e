// The base revision's gate configuration as the reference, the head's as a second judgement
// that can accept (visibly) or fail a case, never pass it silently.
#include "compare/gate_configuration.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

#include <fmt/format.h>

namespace benchledger::compare {
namespace {

constexpr const char* k_none = "none";

std::string percent(double value) {
  return fmt::format("{:g}%", value);
}

template <typename T, typename Show>
std::string optional_text(const std::optional<T>& value, Show show) {
  return value ? show(*value) : std::string(k_none);
}

std::string list_text(const std::vector<std::string>& words) {
  return words.empty() ? std::string(k_none) : fmt::format("{}", fmt::join(words, ", "));
}

std::string bool_text(bool value) {
  return value ? "true" : "false";
}

void add_if_differs(std::vector<SettingChange>& out, std::string key, std::string base,
                    std::string head) {
  if (base != head) out.push_back({std::move(key), std::move(base), std::move(head)});
}

// One row per pattern whose percent differs or that one side lacks, base's order first.
void add_patterns(std::vector<SettingChange>& out, const std::string& key,
                  const std::vector<std::pair<std::string, double>>& base,
                  const std::vector<std::pair<std::string, double>>& head) {
  const auto find = [](const std::vector<std::pair<std::string, double>>& patterns,
                       const std::string& pattern) -> std::optional<double> {
    for (const auto& [name, value] : patterns) {
      if (name == pattern) return value;
    }
    return std::nullopt;
  };
  for (const auto& [pattern, value] : base) {
    add_if_differs(out, key + "." + pattern, percent(value),
                   optional_text(find(head, pattern), percent));
  }
  for (const auto& [pattern, value] : head) {
    if (!find(base, pattern)) add_if_differs(out, key + "." + pattern, k_none, percent(value));
  }
}

// The `gate.run` entries only one side has: base's removed by head, then head's added.
void add_run_entries(std::vector<SettingChange>& out, const GateSpec& base, const GateSpec& head) {
  for (std::size_t i = 0; i < base.run.size(); ++i) {
    if (std::find(head.run.begin(), head.run.end(), base.run[i]) == head.run.end()) {
      out.push_back({"gate.run", base.run_text[i], k_none});
    }
  }
  for (std::size_t i = 0; i < head.run.size(); ++i) {
    if (std::find(base.run.begin(), base.run.end(), head.run[i]) == base.run.end()) {
      out.push_back({"gate.run", k_none, head.run_text[i]});
    }
  }
}

// A case's key across the two judgements: bench, params and metric.
std::string metric_key(const CaseComparison& c) {
  return case_key(c.bench, c.params) + '\n' + c.metric;
}

bool fails(const ComparisonReport& report, const CaseComparison& c) {
  return c.fails_on_verdict || (c.verdict == Verdict::inconclusive && report.undecided_fails);
}

// What differs between the two judgements of a case: its own threshold (which the thresholds
// patterns and gate.threshold decide), then every other judging setting that differs.
std::vector<SettingChange> case_settings(const CaseComparison& base, const CaseComparison* head,
                                         const std::vector<SettingChange>& configuration) {
  std::vector<SettingChange> out;
  if (head != nullptr && head->threshold != base.threshold) {
    out.push_back({"threshold", percent(100.0 * base.threshold), percent(100.0 * head->threshold)});
  }
  for (const SettingChange& change : configuration) {
    const bool threshold = change.key == "gate.threshold" ||
                           change.key.starts_with("thresholds.") ||
                           change.key.starts_with("deterministic_thresholds.");
    if (judging_setting(change) && !threshold) out.push_back(change);
  }
  return out;
}

std::string settings_text(const std::vector<SettingChange>& settings) {
  std::vector<std::string> parts;
  for (const SettingChange& s : settings) {
    parts.push_back(fmt::format("{} {} -> {}", s.key, s.base, s.head));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

std::vector<SettingChange> gate_configuration_changes(const Config& base, const Config& head) {
  std::vector<SettingChange> out;
  add_patterns(out, "thresholds", base.thresholds, head.thresholds);
  add_patterns(out, "deterministic_thresholds", base.deterministic_thresholds,
               head.deterministic_thresholds);
  const GateSpec none;
  const GateSpec& b = base.gate ? *base.gate : none;
  const GateSpec& h = head.gate ? *head.gate : none;
  const auto text = [](const std::string& s) { return s; };
  const auto number = [](auto v) { return fmt::format("{:g}", static_cast<double>(v)); };
  add_if_differs(out, "gate.build", optional_text(b.build, text), optional_text(h.build, text));
  add_run_entries(out, b, h);
  add_if_differs(out, "gate.prepare", optional_text(b.prepare, text),
                 optional_text(h.prepare, text));
  add_if_differs(out, "gate.program", optional_text(b.program, text),
                 optional_text(h.program, text));
  add_if_differs(out, "gate.rounds", optional_text(b.rounds, number),
                 optional_text(h.rounds, number));
  add_if_differs(out, "gate.metric", list_text(b.metrics), list_text(h.metrics));
  add_if_differs(out, "gate.threshold", optional_text(b.threshold, percent),
                 optional_text(h.threshold, percent));
  add_if_differs(out, "gate.fail-on", list_text(b.fail_on), list_text(h.fail_on));
  add_if_differs(out, "gate.allow-missing", optional_text(b.allow_missing, bool_text),
                 optional_text(h.allow_missing, bool_text));
  add_if_differs(out, "gate.budget", optional_text(b.budget, number),
                 optional_text(h.budget, number));
  add_if_differs(out, "gate.duet", optional_text(b.duet, bool_text),
                 optional_text(h.duet, bool_text));
  const auto undecided = [](bool fails) { return std::string(fails ? "fail" : "pass"); };
  add_if_differs(out, "gate.undecided", optional_text(b.undecided_fails, undecided),
                 optional_text(h.undecided_fails, undecided));
  const auto design = [](bool paired) { return std::string(paired ? "paired" : "pooled"); };
  add_if_differs(out, "gate.design", optional_text(b.paired, design),
                 optional_text(h.paired, design));
  return out;
}

bool judging_setting(const SettingChange& change) {
  static const std::set<std::string, std::less<>> judging{"gate.metric",    "gate.threshold",
                                                          "gate.fail-on",   "gate.allow-missing",
                                                          "gate.undecided", "gate.design"};
  return change.key.starts_with("thresholds.") ||
         change.key.starts_with("deterministic_thresholds.") || judging.contains(change.key);
}

ComparisonReport judge_by_base(ComparisonReport by_base, const ComparisonReport& by_head,
                               std::vector<SettingChange> configuration) {
  std::map<std::string, const CaseComparison*> head_metrics;
  std::map<std::string, bool> head_case_fails;  // by case_key: a metric of it fails by head
  for (const CaseComparison& c : by_head.cases) {
    head_metrics.emplace(metric_key(c), &c);
    head_case_fails[case_key(c.bench, c.params)] |= fails(by_head, c);
  }
  std::set<std::string> judged_by_base;
  for (CaseComparison& c : by_base.cases) {
    const std::string key = metric_key(c);
    judged_by_base.insert(key);
    const auto found = head_metrics.find(key);
    const CaseComparison* head = found == head_metrics.end() ? nullptr : found->second;
    if (fails(by_base, c)) {
      const auto head_case = head_case_fails.find(case_key(c.bench, c.params));
      const bool head_passes = head != nullptr
                                   ? !fails(by_head, *head)
                                   : head_case != head_case_fails.end() && !head_case->second;
      if (!head_passes) continue;
      c.loosened = case_settings(c, head, configuration);
      c.judged = c.verdict;
      c.verdict = Verdict::accepted_by_change;
      c.fails_on_verdict = std::find(by_base.fail_on.begin(), by_base.fail_on.end(),
                                     Verdict::accepted_by_change) != by_base.fail_on.end();
    } else if (head != nullptr && fails(by_head, *head)) {
      // The head's file may make its own gate stricter: what it adds applies.
      const std::vector<SettingChange> stricter = case_settings(c, head, configuration);
      c = *head;
      const std::string why =
          stricter.empty() ? std::string("fails by the head's gate configuration")
                           : fmt::format("fails by the head's stricter gate configuration ({})",
                                         settings_text(stricter));
      c.remark = c.remark.empty() ? why : c.remark.str() + "; " + why;
    }
  }
  for (const CaseComparison& c : by_head.cases) {
    if (!judged_by_base.contains(metric_key(c))) by_base.cases.push_back(c);
  }
  std::stable_sort(by_base.cases.begin(), by_base.cases.end(),
                   [](const CaseComparison& a, const CaseComparison& b) {
                     const bool a_first = a.verdict == Verdict::accepted_by_change;
                     const bool b_first = b.verdict == Verdict::accepted_by_change;
                     if (a_first != b_first) return a_first;
                     return case_key(a.bench, a.params) < case_key(b.bench, b.params);
                   });
  for (const Verdict verdict : by_head.fail_on) {
    if (std::find(by_base.fail_on.begin(), by_base.fail_on.end(), verdict) ==
        by_base.fail_on.end()) {
      by_base.fail_on.push_back(verdict);
    }
  }
  by_base.undecided_fails = by_base.undecided_fails || by_head.undecided_fails;
  by_base.configuration = std::move(configuration);
  settle_gate(by_base);
  return by_base;
}

}  // namespace benchledger::compare
