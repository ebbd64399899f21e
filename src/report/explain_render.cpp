// Rendering `benchledger explain` (explain_render.hpp).
#include "report/explain_render.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/escape.hpp"
#include "report/format.hpp"
#include "report/json_values.hpp"
#include "report/text_fields.hpp"
#include "report/text_table.hpp"

namespace benchledger::report {

namespace {

std::string count(double value) {
  return format_fixed(value, std::abs(value) >= 100 || value == std::round(value) ? 0 : 2);
}

std::string signed_count(double value) {
  return (value > 0 ? "+" : "") + count(value);
}

std::string share(const std::optional<double>& fraction) {
  return fraction ? fmt::format("{:.1f}%", *fraction * 100) : "";
}

std::string where(const profile::FunctionChange& f) {
  if (!f.file) return "";
  return f.line ? fmt::format("{}:{}", *f.file, *f.line) : *f.file;
}

// A side's figure of a function: "—" where the side does not name it, "—*" where it may be among
// the side's other functions.
std::string side_value(const std::optional<double>& value, bool capped) {
  if (value) return count(*value);
  return capped ? "—*" : "—";
}

void write_table(std::ostream& out, const std::vector<std::vector<std::string>>& rows) {
  // The function's name and its place are text (left); the figures are numbers (right).
  const std::size_t columns = rows.empty() ? 0 : rows.front().size();
  std::vector<Align> align(columns, Align::right);
  if (columns > 0) align.front() = align.back() = Align::left;
  out << TextTable(align, "  ").render(rows);
}

nlohmann::ordered_json function_json(const profile::FunctionChange& f) {
  return {{"name", f.name},
          {"file", f.file ? nlohmann::ordered_json(*f.file) : nlohmann::ordered_json(nullptr)},
          {"line", f.line ? nlohmann::ordered_json(*f.line) : nlohmann::ordered_json(nullptr)},
          {"base", optional_number(f.base)},
          {"head", optional_number(f.head)},
          {"change", f.change},
          {"share", optional_number(f.share)}};
}

}  // namespace

namespace {

// A case's line (its count on both sides and its change) and its table of the `top` functions
// with the largest change and one line for the rest. Returns whether a row shows `—*`.
bool write_case_text(std::ostream& out, const std::string& name, const profile::ProfileDiff& d,
                     std::size_t top) {
  bool capped = false;
  out << fmt::format("{}: {} {} → {} ({}{})\n", name, profile::to_string(d.event),
                     count(d.base_total), count(d.head_total), signed_count(d.change),
                     d.base_total != 0 ? ", " + format_change(d.change / d.base_total) : "");
  std::vector<std::vector<std::string>> rows = {
      {"function", "base", "head", "change", "share", "where"}};
  const std::size_t shown = std::min(top, d.functions.size());
  for (std::size_t i = 0; i < shown; ++i) {
    const profile::FunctionChange& f = d.functions[i];
    capped = capped || (!f.base && d.base_capped) || (!f.head && d.head_capped);
    rows.push_back({f.name, side_value(f.base, d.base_capped), side_value(f.head, d.head_capped),
                    signed_count(f.change), share(f.share), where(f)});
  }
  if (d.functions.size() > shown) {
    double base = 0, head = 0;
    for (std::size_t i = shown; i < d.functions.size(); ++i) {
      base += d.functions[i].base.value_or(0);
      head += d.functions[i].head.value_or(0);
    }
    base += d.other.base.value_or(0);
    head += d.other.head.value_or(0);
    rows.push_back({fmt::format("({} more functions)",
                                d.functions.size() - shown + (d.other.change != 0 ? 1 : 0)),
                    count(base), count(head), signed_count(head - base),
                    d.change != 0 ? share((head - base) / d.change) : "", ""});
  } else if (d.other.base.value_or(0) != 0 || d.other.head.value_or(0) != 0) {
    rows.push_back({d.other.name, count(d.other.base.value_or(0)), count(d.other.head.value_or(0)),
                    signed_count(d.other.change), share(d.other.share), ""});
  }
  write_table(out, rows);
  return capped;
}

// As compare's table names it: `sort [n=2000]`.
std::string case_name(const compare::CaseExplanation& c) {
  return case_label(c.bench, c.params);
}

constexpr const char* k_capped_legend =
    "—* not among that side's kept functions: it is absent there, or one of the functions its "
    "profile adds up as other";

}  // namespace

void write_explanation_text(std::ostream& out, const compare::Explanation& explanation,
                            std::size_t top) {
  out << fmt::format("base run {}, head run {}: self cost per operation of each function\n",
                     explanation.base_run, explanation.head_run);
  bool capped_anywhere = false;
  for (const compare::CaseExplanation& c : explanation.cases) {
    out << '\n';
    if (!c.diff) {
      out << fmt::format("{}: no explanation: {}\n", case_name(c), c.missing);
      continue;
    }
    capped_anywhere = write_case_text(out, case_name(c), *c.diff, top) || capped_anywhere;
  }
  if (capped_anywhere) out << '\n' << k_capped_legend << '\n';
}

void write_explanation_markdown(std::ostream& out, const compare::Explanation& explanation,
                                std::size_t top) {
  for (const compare::CaseExplanation& c : explanation.cases) {
    if (!c.diff || c.diff->functions.empty()) continue;
    const profile::ProfileDiff& d = *c.diff;
    const std::string name = case_name(c);
    const profile::FunctionChange& first = d.functions.front();
    const std::string most =
        first.change == 0
            ? std::string("no function's self cost changed")
            : fmt::format("most in {} ({}{})", escape_html(first.name), signed_count(first.change),
                          first.share ? ", " + share(first.share) + " of the change" : "");
    out << fmt::format("\n<details><summary>{}: {} {} → {}; {}</summary>\n\n", escape_html(name),
                       profile::to_string(d.event), count(d.base_total), count(d.head_total), most);
    out << "| function | base | head | change | share | where |\n|---|--:|--:|--:|--:|---|\n";
    const std::size_t shown = std::min(top, d.functions.size());
    for (std::size_t i = 0; i < shown; ++i) {
      const profile::FunctionChange& f = d.functions[i];
      out << fmt::format("| `{}` | {} | {} | {} | {} | {} |\n", escape_markdown_cell(f.name),
                         side_value(f.base, d.base_capped), side_value(f.head, d.head_capped),
                         signed_count(f.change), share(f.share), escape_markdown(where(f)));
    }
    out << "\n</details>\n";
  }
}

nlohmann::ordered_json explanation_json(const compare::Explanation& explanation) {
  nlohmann::ordered_json cases = nlohmann::ordered_json::array();
  for (const compare::CaseExplanation& c : explanation.cases) {
    nlohmann::ordered_json params = nlohmann::ordered_json::object();
    for (const auto& [key, value] : c.params) params[key] = to_json(value);
    nlohmann::ordered_json entry = {{"bench", c.bench}, {"params", std::move(params)}};
    if (!c.diff) {
      entry["missing"] = c.missing;
      cases.push_back(std::move(entry));
      continue;
    }
    const profile::ProfileDiff& d = *c.diff;
    entry["event"] = profile::to_string(d.event);
    entry["base"] = d.base_total;
    entry["head"] = d.head_total;
    entry["change"] = d.change;
    entry["base_capped"] = d.base_capped;
    entry["head_capped"] = d.head_capped;
    nlohmann::ordered_json functions = nlohmann::ordered_json::array();
    for (const profile::FunctionChange& f : d.functions) functions.push_back(function_json(f));
    entry["functions"] = std::move(functions);
    entry["other"] = function_json(d.other);
    cases.push_back(std::move(entry));
  }
  return {{"base_run", explanation.base_run},
          {"head_run", explanation.head_run},
          {"cases", std::move(cases)}};
}

void write_explanation_json(std::ostream& out, const compare::Explanation& explanation) {
  out << explanation_json(explanation).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
      << '\n';
}

namespace {

// Whether the section has anything to show: a case with a diff, or (listing them) one without.
bool shows_anything(const compare::RegressionProfiles& profiles) {
  return std::any_of(profiles.explanation.cases.begin(), profiles.explanation.cases.end(),
                     [&](const compare::CaseExplanation& c) {
                       return (c.diff && !c.diff->functions.empty()) ||
                              (!c.diff && profiles.list_missing);
                     });
}

// What the section is of: `the regressed cases' instructions`.
std::string section_subject(const compare::RegressionProfiles& profiles) {
  const compare::CaseExplanation* any = nullptr;
  for (const compare::CaseExplanation& c : profiles.explanation.cases) {
    if (c.diff) any = &c;
  }
  const std::string event =
      any ? std::string(profile::to_string(any->diff->event)) : std::string("instructions");
  return profiles.asked ? "the " + event + " of the regressed cases and of those asked for"
                        : "the regressed cases' " + event;
}

}  // namespace

void write_regression_profiles_text(std::ostream& out,
                                    const compare::RegressionProfiles& profiles) {
  if (!profiles.unreadable.empty()) {
    out << "\nthe profiles of the regressed cases cannot be read: " << profiles.unreadable << '\n';
    return;
  }
  if (!shows_anything(profiles)) return;
  out << "\nwhere " << section_subject(profiles)
      << " went: self cost per operation of each function, from the profiles of run --measure "
         "instructions under Valgrind (benchledger explain for all of them)\n";
  if (!profiles.note.empty()) out << profiles.note << '\n';
  bool capped_anywhere = false;
  for (const compare::CaseExplanation& c : profiles.explanation.cases) {
    if (!c.diff && profiles.list_missing) {
      out << fmt::format("\n{}: no profile: {}\n", case_name(c), c.missing);
    }
    if (!c.diff || c.diff->functions.empty()) continue;
    out << '\n';
    capped_anywhere = write_case_text(out, case_name(c), *c.diff, k_section_top) || capped_anywhere;
  }
  if (capped_anywhere) out << '\n' << k_capped_legend << '\n';
}

void write_regression_profiles_markdown(std::ostream& out,
                                        const compare::RegressionProfiles& profiles) {
  if (!profiles.unreadable.empty()) {
    out << "\nThe profiles of the regressed cases cannot be read: "
        << escape_markdown(profiles.unreadable) << '\n';
    return;
  }
  if (!shows_anything(profiles)) return;
  out << "\n### Where " << section_subject(profiles)
      << " went\n\nSelf cost per operation of each function, from the profiles of `run "
         "--measure instructions` under Valgrind (`benchledger explain` for all of them).\n";
  if (!profiles.note.empty()) out << '\n' << escape_markdown(profiles.note) << '\n';
  write_explanation_markdown(out, profiles.explanation, k_section_top);
  if (!profiles.list_missing) return;
  bool listed = false;
  for (const compare::CaseExplanation& c : profiles.explanation.cases) {
    if (c.diff) continue;
    if (!listed) out << "\nNo profile:\n\n";
    listed = true;
    out << fmt::format("- {}: {}\n", escape_markdown(case_name(c)), escape_markdown(c.missing));
  }
}

nlohmann::ordered_json regression_profiles_json(const compare::RegressionProfiles& profiles) {
  if (!profiles.unreadable.empty()) return {{"unreadable", profiles.unreadable}};
  nlohmann::ordered_json out = explanation_json(profiles.explanation);
  if (!profiles.note.empty()) out["note"] = profiles.note;
  return out;
}

}  // namespace benchledger::report
