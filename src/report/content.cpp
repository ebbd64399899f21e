// The frame of a report: its title and intro, the order of its sections (content_sections.hpp
// names the file of each), the Warnings section, and the pieces every section uses.
#include "report/content.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <benchledger/error.hpp>

#include "report/compare_render.hpp"
#include "report/content_sections.hpp"
#include "report/format.hpp"

namespace benchledger::report {
namespace content {

std::string run_name(const RunRecord& run) {
  return run.label ? *run.label : run.header.id;
}

std::string display_time(const std::string& time) {
  if (time.size() >= 19 && time[10] == 'T')
    return time.substr(0, 10) + " " + time.substr(11, 8) + " UTC";
  return time;
}

std::vector<const RunRecord*> all_runs(const ReportInput& input) {
  std::vector<const RunRecord*> runs;
  if (input.base) runs.push_back(&input.base->run);
  for (const RunData& data : input.runs) runs.push_back(&data.run);
  return runs;
}

std::vector<std::string> run_headers(const ReportInput& input) {
  std::vector<std::string> headers;
  if (input.base) headers.push_back("base: " + run_name(input.base->run));
  for (const RunData& data : input.runs) headers.push_back(run_name(data.run));
  return headers;
}

Cell text_cell(std::string text) {
  return Cell{{plain(std::move(text))}, {}, {}};
}

Params common_params(const std::vector<const Params*>& cases) {
  if (cases.size() < 2) return {};
  Params common = *cases.front();
  for (const Params* p : cases) {
    for (auto it = common.begin(); it != common.end();) {
      const auto found = p->find(it->first);
      it = found == p->end() || found->second != it->second ? common.erase(it) : std::next(it);
    }
  }
  return common;
}

Params without(const Params& params, const Params& common) {
  Params out;
  for (const auto& [key, value] : params) {
    if (common.find(key) == common.end()) out.emplace(key, value);
  }
  return out;
}

Text case_text(const std::string& bench, const Params& params) {
  Text text{code(bench)};
  // The same `bench [k=v, ...]` as every other output of a case (text_fields.hpp, case_label).
  if (!params.empty()) text.push_back(plain(" [" + params_text(params) + "]"));
  return text;
}

Paragraph common_params_note(const Params& common) {
  return Paragraph{{plain("Every row has " + params_text(common) + ".")}, "note"};
}

Text summarised_note(std::size_t cases, const std::string& chosen) {
  return {
      strong(fmt::format(" This report summarises: of {} cases, charts are drawn for the {} {};",
                         format_integer(static_cast<std::int64_t>(cases)),
                         format_integer(static_cast<std::int64_t>(k_max_charted_cases)), chosen)),
      plain(" the tables list every case.")};
}

std::string axis_label(const std::string& what, const DisplayUnit& unit) {
  return unit.unit.empty() ? what : what + " (" + unit.unit + ")";
}

double max_abs(const std::vector<double>& values) {
  double m = 0;
  for (double v : values) m = std::max(m, std::fabs(v));
  return m;
}

void add_warnings(Document& doc, const ReportInput& input) {
  BulletList list;
  std::set<std::string> seen;
  // A comparison's warnings already name the compared runs' own warnings and how their
  // environments differ; runs outside every comparison speak for themselves.
  std::set<std::string> covered;
  for (const ComparisonSection& section : input.comparisons) {
    covered.insert(section.current_run_id);
    if (input.base) covered.insert(input.base->run.header.id);
    for (const std::string& w : section.report.warnings) {
      if (seen.insert(w).second) list.items.push_back({plain(w)});
    }
  }
  const auto add_run = [&](const RunRecord& run) {
    if (covered.count(run.header.id) != 0) return;
    for (const std::string& w : run.warnings) {
      list.items.push_back({strong(run_name(run) + ":"), plain(" " + w)});
    }
  };
  if (input.base) add_run(input.base->run);
  for (const RunData& data : input.runs) add_run(data.run);
  const std::vector<const RunRecord*> runs = all_runs(input);
  for (std::size_t i = 1; i < runs.size(); ++i) {
    const bool compared =
        covered.count(runs[0]->header.id) != 0 && covered.count(runs[i]->header.id) != 0;
    if (!compared && runs[i]->env.fingerprint != runs[0]->env.fingerprint) {
      list.items.push_back(
          {plain("environment fingerprints differ between " + run_name(*runs[0]) + " and " +
                 run_name(*runs[i]) + ": their numbers may not be comparable")});
    }
  }
  for (const std::string& w : input.warnings) list.items.push_back({plain(w)});
  doc.blocks.emplace_back(Heading{2, "Warnings"});
  if (list.items.empty()) {
    doc.blocks.emplace_back(Paragraph{{plain("None.")}, {}});
  } else {
    doc.blocks.emplace_back(std::move(list));
  }
}

}  // namespace content

namespace {

std::string display_date(const std::string& time) {
  if (time.size() >= 16 && time[10] == 'T')
    return time.substr(0, 10) + " " + time.substr(11, 5) + " UTC";
  return time;
}

}  // namespace

std::string suite_of(const std::string& bench) {
  const std::size_t slash = bench.find('/');
  return slash == std::string::npos ? bench : bench.substr(0, slash);
}

std::string params_text(const Params& params, const std::string& skip) {
  std::string text;
  for (const auto& [key, value] : params) {
    if (key == skip) continue;
    if (!text.empty()) text += ", ";
    text += key + "=" + to_string(value);
  }
  return text;
}

Document build_document(const ReportInput& input) {
  if (input.runs.empty()) throw Error("a report needs at least one run");
  Document doc;
  const RunRecord& newest = std::max_element(input.runs.begin(), input.runs.end(),
                                             [](const RunData& a, const RunData& b) {
                                               return a.run.header.time < b.run.header.time;
                                             })
                                ->run;
  doc.title = "Benchmark report: " +
              (newest.project.empty() ? std::string("(no project)") : newest.project);
  Text intro{plain("Date: " + display_date(newest.header.time) + ". ")};
  if (input.runs.size() == 1) {
    intro.push_back(plain("Run "));
    intro.push_back(code(newest.header.id));
    if (newest.label) intro.push_back(plain(" (" + *newest.label + ")"));
  } else {
    intro.push_back(plain(format_integer(static_cast<std::int64_t>(input.runs.size())) + " runs"));
  }
  if (input.base) {
    intro.push_back(plain(" against "));
    intro.push_back(code(input.base->run.header.id));
    if (input.base->run.label) intro.push_back(plain(" (" + *input.base->run.label + ")"));
  }
  intro.push_back(plain("."));
  for (const ComparisonSection& section : input.comparisons) {
    const compare::ComparisonReport& r = section.report;
    intro.push_back(plain(" "));
    intro.push_back(strong(report_gate_word(r)));
    intro.push_back(
        plain(input.comparisons.size() > 1 ? " for " + section.current_run_id : std::string()));
    intro.push_back(plain(
        " (" + plural(r.count(compare::Verdict::regression), "regression", "regressions") + ", " +
        plural(r.count(compare::Verdict::improvement), "improvement", "improvements") + ")."));
  }
  doc.blocks.emplace_back(Paragraph{std::move(intro), {}});

  content::add_runs(doc, input);
  content::add_environment(doc, input);
  content::add_comparisons(doc, input);
  content::add_results(doc, input);
  content::add_trends(doc, input);
  content::add_change_points(doc, input);
  if (input.comparisons.empty()) content::add_distributions(doc, input);
  content::add_warnings(doc, input);
  return doc;
}

}  // namespace benchledger::report
