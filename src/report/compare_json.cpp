// The JSON form of a comparison (docs/ci-gate.md). Key order is fixed, so
// the same report gives the same bytes.
#include <cmath>

#include "report/compare_render.hpp"

namespace benchledger::report {
namespace {

using nlohmann::ordered_json;

ordered_json optional_number(const std::optional<double>& value, double scale = 1.0) {
  if (!value || !std::isfinite(*value)) return nullptr;
  return *value * scale;
}

ordered_json optional_text(const std::optional<std::string>& value) {
  return value ? ordered_json(*value) : ordered_json(nullptr);
}

ordered_json run_json(const compare::RunSummary& run) {
  ordered_json git;
  git["commit"] = optional_text(run.git.commit);
  git["branch"] = optional_text(run.git.branch);
  git["dirty"] = run.git.dirty ? ordered_json(*run.git.dirty) : ordered_json(nullptr);
  ordered_json json;
  json["id"] = run.id;
  json["label"] = optional_text(run.label);
  json["time"] = run.time;
  json["git"] = git;
  json["fingerprint"] = run.fingerprint;
  return json;
}

ordered_json side_json(const std::optional<double>& center, std::size_t n,
                       const std::string& unit) {
  ordered_json json;
  json["n"] = n;
  json["center"] = optional_number(center);
  json["unit"] = unit;
  return json;
}

// [{"key": "thresholds.work", "base": "none", "head": "1000%"}, ...]
ordered_json settings_json(const std::vector<compare::SettingChange>& changes) {
  ordered_json out = ordered_json::array();
  for (const compare::SettingChange& change : changes) {
    ordered_json item;
    item["key"] = change.key;
    item["base"] = change.base;
    item["head"] = change.head;
    out.push_back(std::move(item));
  }
  return out;
}

}  // namespace

ordered_json comparison_to_json(const compare::ComparisonReport& report) {
  ordered_json json;
  json["base"] = report.base.empty() ? ordered_json(nullptr) : run_json(report.base.front());
  if (!report.base.empty()) {
    ordered_json pooled = ordered_json::array();
    for (const compare::RunSummary& run : report.base) pooled.push_back(run.id);
    json["base"]["runs"] = pooled;
  }
  json["current"] = run_json(report.current);
  ordered_json options;
  options["test"] = compare::to_string(report.test);
  options["alpha"] = report.alpha;
  options["threshold"] = 100.0 * report.threshold;
  options["deterministic_threshold"] = 100.0 * report.deterministic_threshold;
  options["fail_on"] = ordered_json::array();
  for (const compare::Verdict v : report.fail_on)
    options["fail_on"].push_back(compare::to_string(v));
  json["options"] = options;
  if (!report.configuration.empty()) json["configuration"] = settings_json(report.configuration);
  json["warnings"] = report.warnings;
  json["environment_differences"] = report.env_differences;
  ordered_json cases = ordered_json::array();
  for (const compare::CaseComparison& c : report.cases) {
    ordered_json item;
    item["bench"] = c.bench;
    ordered_json params = ordered_json::object();
    for (const auto& [key, value] : c.params) params[key] = to_json(value);
    item["params"] = params;
    item["metric"] = c.metric;
    item["unit"] = c.unit;
    item["better"] = to_string(c.better);
    item["base"] = side_json(c.base_center, c.base_n, c.base_unit);
    item["current"] = side_json(c.current_center, c.current_n, c.unit);
    item["change"] = optional_number(c.change, 100.0);
    item["ci"] = c.ci_low && c.ci_high
                     ? ordered_json::array({100.0 * *c.ci_low, 100.0 * *c.ci_high})
                     : ordered_json(nullptr);
    item["p"] = optional_number(c.p);
    item["p_adjusted"] = optional_number(c.p_adjusted);
    item["threshold"] = 100.0 * c.threshold;
    item["threshold_only"] = c.threshold_only;
    if (c.deterministic) item["deterministic"] = true;
    if (c.pairs > 0) item["pairs"] = c.pairs;
    item["verdict"] = compare::to_string(c.verdict);
    if (c.judged) item["judged"] = compare::to_string(*c.judged);
    if (!c.loosened.empty()) item["loosened"] = settings_json(c.loosened);
    item["detectable"] = optional_number(c.detectable, 100.0);
    if (c.accepted) {
      item["accepted"] = {
          {"note", c.accepted->note}, {"text", c.accepted->text}, {"author", c.accepted->author}};
    } else {
      item["accepted"] = nullptr;
    }
    item["gate"] = c.fails_gate ? "fail" : "pass";
    const std::string remark = comparison_remark(c);
    item["remark"] = remark.empty() ? ordered_json(nullptr) : ordered_json(remark);
    if (!c.failure_output.empty()) item["stderr"] = c.failure_output;
    cases.push_back(std::move(item));
  }
  json["cases"] = cases;
  ordered_json summary;
  for (std::size_t v = 0; v < compare::k_verdict_count; ++v) {
    summary[std::string(compare::to_string(static_cast<compare::Verdict>(v)))] = report.counts[v];
  }
  summary["accepted"] = report.accepted;
  json["summary"] = summary;
  json["gate"] = report.gate_pass ? "pass" : "fail";
  json["state"] = std::string(compare::to_string(report.state));
  if (report.looks > 0) json["looks"] = report.looks;
  return json;
}

std::string render_comparison_json(const compare::ComparisonReport& report) {
  return comparison_to_json(report).dump(2) + "\n";
}

}  // namespace benchledger::report
