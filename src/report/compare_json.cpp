// The JSON form of a comparison (docs/ci-gate.md). Key order is fixed, so
// the same report gives the same bytes.
//
// Written as it goes: each case is a small nlohmann object dumped on its own, indented to its
// depth, so that a comparison of a million cases is never one tree (some 3 KB a case) nor one
// string. The bytes are those of dumping the whole object with an indent of 2: nlohmann writes
// the scalars, and a dumped value's only line breaks are its own layout (a string's are escaped).
#include <cmath>
#include <ostream>
#include <sstream>
#include <string_view>

#include "report/compare_render.hpp"
#include "report/explain_render.hpp"
#include "report/json_values.hpp"

namespace benchledger::report {
namespace {

using nlohmann::ordered_json;

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

ordered_json case_json(const compare::CaseComparison& c) {
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
  item["ci"] = c.ci_low && c.ci_high ? ordered_json::array({100.0 * *c.ci_low, 100.0 * *c.ci_high})
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
  item["gate"] = c.fails_on_verdict ? "fail" : "pass";
  const std::string remark = comparison_remark(c);
  item["remark"] = remark.empty() ? ordered_json(nullptr) : ordered_json(remark);
  if (!c.failure_output.empty()) item["stderr"] = c.failure_output;
  return item;
}

// `value` as dump(2) writes it `depth` levels deep: each of its lines after the first indented
// by two spaces a level.
void write_value(std::ostream& out, const ordered_json& value, std::size_t depth) {
  const std::string text = value.dump(2);
  const std::string indent(2 * depth, ' ');
  std::size_t begin = 0;
  for (std::size_t end = text.find('\n'); end != std::string::npos;
       begin = end + 1, end = text.find('\n', begin)) {
    out.write(text.data() + begin, static_cast<std::streamsize>(end + 1 - begin));
    out << indent;
  }
  out.write(text.data() + begin, static_cast<std::streamsize>(text.size() - begin));
}

// One member of the top-level object, `"key": value`, with the comma of a member that follows.
void write_member(std::ostream& out, std::string_view key, const ordered_json& value,
                  bool last = false) {
  out << "  " << ordered_json(key).dump() << ": ";
  write_value(out, value, 1);
  out << (last ? "\n" : ",\n");
}

}  // namespace

void write_comparison_json(std::ostream& out, const compare::ComparisonReport& report,
                           const compare::RegressionProfiles* profiles) {
  out << "{\n";
  ordered_json base = report.base.empty() ? ordered_json(nullptr) : run_json(report.base.front());
  if (!report.base.empty()) {
    ordered_json pooled = ordered_json::array();
    for (const compare::RunSummary& run : report.base) pooled.push_back(run.id);
    base["runs"] = pooled;
  }
  write_member(out, "base", base);
  write_member(out, "current", run_json(report.current));
  ordered_json options;
  options["test"] = compare::to_string(report.test);
  options["alpha"] = report.alpha;
  options["threshold"] = 100.0 * report.threshold;
  options["deterministic_threshold"] = 100.0 * report.deterministic_threshold;
  options["fail_on"] = ordered_json::array();
  for (const compare::Verdict v : report.fail_on)
    options["fail_on"].push_back(compare::to_string(v));
  write_member(out, "options", options);
  if (!report.configuration.empty()) {
    write_member(out, "configuration", settings_json(report.configuration));
  }
  write_member(out, "warnings", report.warnings);
  write_member(out, "environment_differences", report.env_differences);
  if (report.cases.empty()) {
    write_member(out, "cases", ordered_json::array());
  } else {
    out << "  \"cases\": [\n";
    for (std::size_t i = 0; i < report.cases.size(); ++i) {
      out << "    ";
      write_value(out, case_json(report.cases[i]), 2);
      out << (i + 1 == report.cases.size() ? "\n" : ",\n");
    }
    out << "  ],\n";
  }
  if (profiles != nullptr) write_member(out, "profiles", regression_profiles_json(*profiles));
  ordered_json summary;
  for (std::size_t v = 0; v < compare::k_verdict_count; ++v) {
    summary[std::string(compare::to_string(static_cast<compare::Verdict>(v)))] = report.counts[v];
  }
  summary["accepted"] = report.accepted;
  write_member(out, "summary", summary);
  write_member(out, "gate", report.gate_pass ? "pass" : "fail");
  write_member(out, "state", std::string(compare::to_string(report.state)), report.looks == 0);
  if (report.looks > 0) write_member(out, "looks", report.looks, true);
  out << "}\n";
}

std::string render_comparison_json(const compare::ComparisonReport& report,
                                   const compare::RegressionProfiles* profiles) {
  std::ostringstream out;
  write_comparison_json(out, report, profiles);
  return out.str();
}

}  // namespace benchledger::report
