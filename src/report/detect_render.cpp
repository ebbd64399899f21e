#include "report/detect_render.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/escape.hpp"
#include "report/format.hpp"
#include "report/text_fields.hpp"
#include "report/text_table.hpp"

namespace benchledger::report {
namespace {

std::string commit_text(const compare::DetectedChange& d) {
  if (!d.commit) return "-";
  return d.commit->substr(0, 12) + (d.dirty ? "+dirty" : "");
}

const char* verdict_of(const compare::DetectedChange& d) {
  return d.regression ? "regression" : "improvement";
}

// Where a change point lies: its run's 1-based position in the series, `41 of 60`.
std::string position_text(const compare::CaseChanges& c, const compare::DetectedChange& d) {
  return fmt::format("{} of {}", d.index + 1, c.points);
}

std::vector<std::string> row_of(const compare::CaseChanges& c, const compare::DetectedChange& d) {
  return {d.run_id,
          position_text(c, d),
          commit_text(d),
          format_quantity(d.before, c.unit),
          format_quantity(d.after, c.unit),
          format_change(d.change),
          format_number(d.p),
          verdict_of(d)};
}

std::string summary(const std::vector<compare::CaseChanges>& cases) {
  std::size_t count = 0, regressions = 0;
  for (const auto& c : cases) {
    count += c.changes.size();
    for (const auto& d : c.changes) regressions += d.regression ? 1 : 0;
  }
  return fmt::format("{} {}, {} change {} ({} {})", cases.size(),
                     cases.size() == 1 ? "case" : "cases", count, count == 1 ? "point" : "points",
                     regressions, regressions == 1 ? "regression" : "regressions");
}

}  // namespace

std::string render_changes_table(const std::vector<compare::CaseChanges>& cases) {
  std::vector<std::vector<std::string>> rows{
      {"case", "metric", "run", "position", "commit", "before", "after", "change", "p", "verdict"}};
  for (const auto& c : cases) {
    for (const auto& d : c.changes) {
      std::vector<std::string> row{case_label(c.bench, c.params), c.metric};
      for (auto& cell : row_of(c, d)) row.push_back(std::move(cell));
      rows.push_back(std::move(row));
    }
  }
  std::string out;
  if (rows.size() > 1) out += TextTable().render(rows);
  std::string notes;
  for (const auto& c : cases) {
    if (!c.remark.empty())
      notes += fmt::format("  {} {}: {}\n", case_label(c.bench, c.params), c.metric, c.remark);
  }
  if (!notes.empty()) out += (out.empty() ? "" : "\n") + std::string("notes:\n") + notes + '\n';
  return out + summary(cases) + '\n';
}

std::string render_changes_markdown(const std::vector<compare::CaseChanges>& cases) {
  std::string out = "## Change points\n\n" + summary(cases) + "\n";
  for (const auto& c : cases) {
    if (c.changes.empty() && c.remark.empty()) continue;
    out += fmt::format("\n### {}\n\n{} ({}, {} is better), {} runs\n\n",
                       escape_markdown(case_label(c.bench, c.params)), escape_markdown(c.metric),
                       escape_markdown(c.unit), to_string(c.better), c.points);
    if (!c.remark.empty()) out += escape_markdown(c.remark) + "\n\n";
    if (c.changes.empty()) continue;
    out +=
        "| run | position | commit | before | after | change | p | verdict |\n"
        "|---|--:|---|--:|--:|--:|--:|---|\n";
    for (const auto& d : c.changes) {
      const auto r = row_of(c, d);
      out += fmt::format("| `{}` | {} | `{}` | {} | {} | {} | {} | {} |\n", r[0], r[1], r[2], r[3],
                         r[4], r[5], r[6], r[7]);
    }
  }
  return out;
}

std::string render_changes_json(const std::vector<compare::CaseChanges>& cases) {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const auto& c : cases) {
    nlohmann::ordered_json params = nlohmann::ordered_json::object();
    for (const auto& [key, value] : c.params) params[key] = to_json(value);
    nlohmann::ordered_json points = nlohmann::ordered_json::array();
    for (const auto& d : c.changes) {
      points.push_back({{"run", d.run_id},
                        {"position", d.index + 1},
                        {"commit", d.commit ? nlohmann::ordered_json(*d.commit) : nullptr},
                        {"time", d.time},
                        {"before", d.before},
                        {"after", d.after},
                        {"change", d.change},
                        {"p", d.p},
                        {"verdict", verdict_of(d)}});
    }
    all.push_back({{"bench", c.bench},
                   {"params", std::move(params)},
                   {"metric", c.metric},
                   {"unit", c.unit},
                   {"better", to_string(c.better)},
                   {"points", c.points},
                   {"change_points", std::move(points)},
                   {"remark", c.remark.empty() ? nlohmann::ordered_json(nullptr)
                                               : nlohmann::ordered_json(c.remark)}});
  }
  return nlohmann::ordered_json{{"cases", std::move(all)}}.dump(2) + '\n';
}

}  // namespace benchledger::report
