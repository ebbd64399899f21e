// CSV of a comparison (RFC 4180: CRLF-free lines, fields quoted when they hold a comma, quote
// or newline). Numbers are written with full round-trip precision; percent columns say so.
#include <cmath>
#include <iterator>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "model/canonical_writer.hpp"
#include "report/compare_render.hpp"
#include "report/rows_in_order.hpp"
#include "report/text_fields.hpp"

namespace benchledger::report {

// A line a case, made on two threads (rows_in_order.hpp): a comparison of a million cases writes
// a million of them.
void write_comparison_csv(std::ostream& out, const compare::ComparisonReport& report) {
  out << "bench,params,metric,unit,better,base_n,base_center,base_unit,current_n,current_center,"
         "change_percent,ci_low_percent,ci_high_percent,p,p_adjusted,threshold_percent,verdict,"
         "accepted_by,gate,detectable_percent,remark\n";
  write_rows_in_order(out, report.cases.size(), [&](std::size_t i, std::string& line) {
    const compare::CaseComparison& c = report.cases[i];
    const auto field = [&](std::string_view text) {
      append_csv_field(line, text);
      line += ',';
    };
    // Full round-trip precision; empty when absent or not finite.
    const auto number = [&](const std::optional<double>& value, double scale = 1.0) {
      if (value && std::isfinite(*value)) {
        fmt::format_to(std::back_inserter(line), "{}", *value * scale);
      }
      line += ',';
    };
    std::string params;
    model::CanonicalWriter w(params);
    model::write_params(w, c.params);
    w.finish();
    field(c.bench);
    field(params);
    field(c.metric);
    field(c.unit);
    field(to_string(c.better));
    fmt::format_to(std::back_inserter(line), "{},", c.base_n);
    number(c.base_center);
    field(c.base_unit);
    fmt::format_to(std::back_inserter(line), "{},", c.current_n);
    number(c.current_center);
    number(c.change, 100.0);
    number(c.ci_low, 100.0);
    number(c.ci_high, 100.0);
    number(c.p);
    number(c.p_adjusted);
    fmt::format_to(std::back_inserter(line), "{},", 100.0 * c.threshold);
    field(compare::to_string(c.verdict));
    field(c.accepted ? std::string_view(c.accepted->note) : std::string_view());
    field(c.fails_on_verdict ? "fail" : "pass");
    number(c.detectable, 100.0);
    append_csv_field(line, comparison_remark(c));
    line += '\n';
  });
}

std::string render_comparison_csv(const compare::ComparisonReport& report) {
  std::ostringstream out;
  write_comparison_csv(out, report);
  return out.str();
}

}  // namespace benchledger::report
