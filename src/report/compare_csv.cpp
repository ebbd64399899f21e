// CSV of a comparison (RFC 4180: CRLF-free lines, fields quoted when they hold a comma, quote
// or newline). Numbers are written with full round-trip precision; percent columns say so.
#include <cmath>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "report/compare_render.hpp"
#include "report/text_fields.hpp"

namespace benchledger::report {
namespace {

std::string number(const std::optional<double>& value, double scale = 1.0) {
  if (!value || !std::isfinite(*value)) return {};
  return fmt::format("{}", *value * scale);
}

}  // namespace

void write_comparison_csv(std::ostream& out, const compare::ComparisonReport& report) {
  out << "bench,params,metric,unit,better,base_n,base_center,base_unit,current_n,current_center,"
         "change_percent,ci_low_percent,ci_high_percent,p,p_adjusted,threshold_percent,verdict,"
         "accepted_by,gate,detectable_percent,remark\n";
  for (const compare::CaseComparison& c : report.cases) {
    nlohmann::ordered_json params = nlohmann::ordered_json::object();
    for (const auto& [key, value] : c.params) params[key] = to_json(value);
    const std::vector<std::string> fields{c.bench,
                                          params.dump(),
                                          c.metric,
                                          c.unit,
                                          std::string(to_string(c.better)),
                                          std::to_string(c.base_n),
                                          number(c.base_center),
                                          c.base_unit,
                                          std::to_string(c.current_n),
                                          number(c.current_center),
                                          number(c.change, 100.0),
                                          number(c.ci_low, 100.0),
                                          number(c.ci_high, 100.0),
                                          number(c.p),
                                          number(c.p_adjusted),
                                          fmt::format("{}", 100.0 * c.threshold),
                                          std::string(compare::to_string(c.verdict)),
                                          c.accepted ? c.accepted->note : std::string(),
                                          c.fails_on_verdict ? "fail" : "pass",
                                          number(c.detectable, 100.0),
                                          comparison_remark(c)};
    std::string line;
    for (std::size_t i = 0; i < fields.size(); ++i) {
      line += csv_field(fields[i]);
      line += i + 1 == fields.size() ? "\n" : ",";
    }
    out << line;
  }
}

std::string render_comparison_csv(const compare::ComparisonReport& report) {
  std::ostringstream out;
  write_comparison_csv(out, report);
  return out.str();
}

}  // namespace benchledger::report
