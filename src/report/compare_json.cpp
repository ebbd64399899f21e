// The JSON form of a comparison (docs/ci-gate.md). Key order is fixed, so
// the same report gives the same bytes.
//
// Written as it goes, so that a comparison of a million cases is never one tree (some 3 KB a
// case) nor one string: each case straight into a buffer by the canonical writer in dump(2)'s
// layout, the few other members as small nlohmann objects dumped on their own, indented to their
// depth. The bytes are those of dumping the whole object with an indent of 2.
#include <cmath>
#include <ostream>
#include <sstream>
#include <string_view>

#include "model/canonical_writer.hpp"
#include "report/compare_render.hpp"
#include "report/explain_render.hpp"
#include "report/json_values.hpp"
#include "report/rows_in_order.hpp"

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

// A case as dump(2) lays out the object of its members, `depth` levels deep, written into `out`
// as it goes: the comparison of a million cases spends its output here, and an nlohmann object a
// case (built member by member, dumped, then indented) cost more than reading the two sides.
void write_case(std::string& out, const compare::CaseComparison& c, int depth) {
  model::CanonicalWriter w(out, 2, depth);
  const auto text = [&](std::string_view key, std::string_view value) {
    w.key(key);
    w.string(value, model::FieldPath{"cases[].", key, {}, {}});
  };
  // nlohmann writes a number that is not finite as null.
  const auto number = [&](std::string_view key, std::optional<double> value, double scale = 1.0) {
    w.key(key);
    if (value && std::isfinite(*value * scale)) {
      w.number(*value * scale, {});
    } else {
      w.null();
    }
  };
  const auto side = [&](std::string_view key, const std::optional<double>& center, std::size_t n,
                        std::string_view unit) {
    w.key(key);
    w.open('{');
    w.key("n");
    w.integer(static_cast<std::int64_t>(n));
    number("center", center);
    text("unit", unit);
    w.close('}');
  };
  w.open('{');
  text("bench", c.bench);
  w.key("params");
  model::write_params(w, c.params);
  text("metric", c.metric);
  text("unit", c.unit);
  text("better", to_string(c.better));
  side("base", c.base_center, c.base_n, c.base_unit);
  side("current", c.current_center, c.current_n, c.unit);
  number("change", c.change, 100.0);
  if (c.ci_low && c.ci_high) {
    w.key("ci");
    w.open('[');
    for (const double bound : {*c.ci_low, *c.ci_high}) {
      if (std::isfinite(100.0 * bound)) {
        w.number(100.0 * bound, {});
      } else {
        w.null();
      }
    }
    w.close(']');
  } else {
    w.key("ci");
    w.null();
  }
  number("p", c.p);
  number("p_adjusted", c.p_adjusted);
  number("threshold", c.threshold, 100.0);
  w.key("threshold_only");
  w.boolean(c.threshold_only);
  if (c.deterministic) {
    w.key("deterministic");
    w.boolean(true);
  }
  if (c.pairs > 0) {
    w.key("pairs");
    w.integer(static_cast<std::int64_t>(c.pairs));
  }
  text("verdict", compare::to_string(c.verdict));
  if (c.judged) text("judged", compare::to_string(*c.judged));
  if (!c.loosened.empty()) {
    w.key("loosened");
    w.open('[');
    for (const compare::SettingChange& change : c.loosened) {
      w.open('{');
      text("key", change.key);
      text("base", change.base);
      text("head", change.head);
      w.close('}');
    }
    w.close(']');
  }
  number("detectable", c.detectable, 100.0);
  w.key("accepted");
  if (c.accepted) {
    w.open('{');
    text("note", c.accepted->note);
    text("text", c.accepted->text);
    text("author", c.accepted->author);
    w.close('}');
  } else {
    w.null();
  }
  text("gate", c.fails_on_verdict ? "fail" : "pass");
  const std::string remark = comparison_remark(c);
  w.key("remark");
  if (remark.empty()) {
    w.null();
  } else {
    w.string(remark, model::FieldPath{"cases[].remark", {}, {}, {}});
  }
  if (!c.failure_output.empty()) text("stderr", c.failure_output);
  w.close('}');
  w.finish();
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
    write_rows_in_order(out, report.cases.size(), [&](std::size_t i, std::string& text) {
      // A string of its own: the writer treats all of its string's capacity as room, and the
      // rows' string holds thousands of cases.
      std::string one = "    ";
      write_case(one, report.cases[i], 2);
      text += one;
      text += i + 1 == report.cases.size() ? "\n" : ",\n";
    });
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
