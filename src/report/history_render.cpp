#include "report/history_render.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/escape.hpp"
#include "report/format.hpp"
#include "report/text_fields.hpp"
#include "report/text_table.hpp"

namespace benchledger::report {
namespace {

std::string commit_text(const ledger::SeriesPoint& p) {
  if (!p.commit) return "-";
  return p.commit->substr(0, 12) + (p.dirty ? "+dirty" : "");
}

std::string heading(const ledger::Series& s) {
  return fmt::format("{}  {} ({}, {} is better)  {} {}", case_label(s.bench, s.params), s.metric,
                     s.unit, to_string(s.better), s.points.size(),
                     s.points.size() == 1 ? "run" : "runs");
}

std::vector<std::string> row_of(const ledger::Series& s, const ledger::SeriesPoint& p) {
  return {p.run_id,
          p.time,
          commit_text(p),
          format_quantity(p.centre, s.unit),
          fmt::format("{} – {}", format_quantity(p.low, s.unit), format_quantity(p.high, s.unit)),
          std::to_string(p.samples)};
}

const std::vector<std::string> k_columns = {"run", "time", "commit", "centre", "interval", "n"};

nlohmann::ordered_json params_json(const Params& params) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [key, value] : params) out[key] = to_json(value);
  return out;
}

}  // namespace

std::string render_history_table(const std::vector<ledger::Series>& series) {
  std::string out;
  for (const ledger::Series& s : series) {
    if (!out.empty()) out += '\n';
    out += heading(s) + '\n';
    std::vector<std::vector<std::string>> rows{k_columns};
    for (const auto& p : s.points) rows.push_back(row_of(s, p));
    out += TextTable({}, "  ").render(rows);
  }
  return out;
}

std::string render_history_markdown(const std::vector<ledger::Series>& series) {
  std::string out;
  for (const ledger::Series& s : series) {
    if (!out.empty()) out += '\n';
    out += fmt::format("### {}\n\n{} ({}, {} is better), {} {}\n\n",
                       escape_markdown(case_label(s.bench, s.params)), escape_markdown(s.metric),
                       escape_markdown(s.unit), to_string(s.better), s.points.size(),
                       s.points.size() == 1 ? "run" : "runs");
    out += "| run | time | commit | centre | interval | n |\n|---|---|---|--:|--:|--:|\n";
    for (const auto& p : s.points) {
      const auto row = row_of(s, p);
      out += fmt::format("| `{}` | {} | `{}` | {} | {} | {} |\n", row[0], row[1], row[2], row[3],
                         row[4], row[5]);
    }
  }
  return out;
}

std::string render_history_json(const std::vector<ledger::Series>& series) {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const ledger::Series& s : series) {
    nlohmann::ordered_json points = nlohmann::ordered_json::array();
    for (const auto& p : s.points) {
      points.push_back({{"run", p.run_id},
                        {"time", p.time},
                        {"commit", p.commit ? nlohmann::ordered_json(*p.commit) : nullptr},
                        {"dirty", p.dirty},
                        {"centre", p.centre},
                        {"low", p.low},
                        {"high", p.high},
                        {"samples", p.samples}});
    }
    all.push_back({{"bench", s.bench},
                   {"params", params_json(s.params)},
                   {"metric", s.metric},
                   {"unit", s.unit},
                   {"better", to_string(s.better)},
                   {"points", std::move(points)}});
  }
  return nlohmann::ordered_json{{"series", std::move(all)}}.dump(2) + '\n';
}

std::string render_history_csv(const std::vector<ledger::Series>& series) {
  std::string out =
      "bench,params,metric,unit,better,run,time,commit,dirty,centre,low,high,samples\n";
  for (const ledger::Series& s : series) {
    const std::string head =
        fmt::format("{},{},{},{},{}", csv_field(s.bench), csv_field(params_json(s.params).dump()),
                    csv_field(s.metric), csv_field(s.unit), to_string(s.better));
    for (const auto& p : s.points) {
      out +=
          fmt::format("{},{},{},{},{},{},{},{},{}\n", head, p.run_id, p.time, p.commit.value_or(""),
                      p.dirty ? "true" : "false", p.centre, p.low, p.high, p.samples);
    }
  }
  return out;
}

}  // namespace benchledger::report
