// The end of a run: what was appended, as a summary table or as the stored records, and the
// run's warnings.
#include <iostream>
#include <map>
#include <set>

#include <fmt/format.h>
#include <benchledger/error.hpp>

#include "cli/run_steps.hpp"
#include "model/failure.hpp"
#include "report/format.hpp"
#include "report/text_fields.hpp"
#include "report/text_table.hpp"

namespace benchledger::cli {
namespace {

std::string failure_text(const ResultRecord& r) {
  const auto failure = model::failure_of(r);
  if (!failure) return "FAILED";
  return "FAILED (" + failure->kind + "): " + failure->message;
}

// The stored bytes of the records just appended, for --format json (their `prev` is the
// store's). One pass over the store.
std::vector<std::string> stored_bytes(const ledger::Store& store,
                                      const std::vector<std::string>& ids) {
  std::map<std::string, std::string> found;
  const std::set<std::string> wanted(ids.begin(), ids.end());
  store.scan_bytes([&](std::int64_t, std::string_view bytes) {
    const std::size_t at = bytes.find("\"id\":\"");
    if (at != std::string_view::npos && at + 6 + 26 <= bytes.size()) {
      const std::string id(bytes.substr(at + 6, 26));
      if (wanted.count(id) != 0) found[id] = std::string(bytes);
    }
    return true;
  });
  std::vector<std::string> lines;
  for (const std::string& id : ids) {
    const auto it = found.find(id);
    if (it == found.end())
      throw Error("record " + id + " was appended but cannot be read back from " + store.uri());
    lines.push_back(it->second);
  }
  return lines;
}

// A row of the summary: the case and, unless it failed, the figures of its metrics.
struct SummaryRow {
  std::vector<std::string> cells;
  std::string failure;
};

// The params of each bench that take more than one value in `results`, by bench: the only ones
// a row names, the constant ones are in the ledger.
using VaryingParams = std::map<std::string, std::map<std::string, std::set<std::string>>>;

SummaryRow summary_row(const ResultRecord& r, VaryingParams& seen) {
  SummaryRow row;
  Params varying;
  for (const auto& [key, value] : r.params) {
    if (seen[r.bench][key].size() > 1) varying.emplace(key, value);
  }
  row.cells.push_back(report::case_label(r.bench, varying));
  if (model::failure_of(r)) {
    row.failure = failure_text(r);
    return row;
  }
  const Metric& primary = r.metrics.at(r.primary);
  row.cells.push_back(report::format_quantity(primary.value, primary.unit));
  const double cv =
      primary.summary.mean != 0 ? 100.0 * primary.summary.stddev / primary.summary.mean : 0;
  row.cells.push_back(primary.samples && primary.samples->size() > 1 ? fmt::format("{:.1f}%", cv)
                                                                     : "");
  const auto items = r.metrics.find("items");
  const auto throughput = r.metrics.find("throughput");
  if (items != r.metrics.end())
    row.cells.push_back(report::format_quantity(items->second.value, items->second.unit));
  else if (throughput != r.metrics.end())
    row.cells.push_back(report::format_quantity(throughput->second.value, "ops/s"));
  else
    row.cells.emplace_back("");
  const auto latency = r.metrics.find("latency");
  if (latency != r.metrics.end() && latency->second.summary.p50) {
    row.cells.push_back(
        report::format_quantity(*latency->second.summary.p50, latency->second.unit));
    row.cells.push_back(
        report::format_quantity(*latency->second.summary.p99, latency->second.unit));
  } else {
    row.cells.insert(row.cells.end(), {"", ""});
  }
  row.cells.push_back(r.errors == 0 ? "0" : fmt::format("{} of {}", r.errors, r.ops));
  const auto rss =
      r.metrics.count("peak_rss") != 0 ? r.metrics.find("peak_rss") : r.metrics.find("max_rss");
  row.cells.push_back(rss != r.metrics.end() ? report::format_quantity(rss->second.value, "bytes")
                                             : "");
  return row;
}

}  // namespace

void print_summary(const std::vector<ResultRecord>& results) {
  VaryingParams seen;
  for (const auto& r : results) {
    for (const auto& [key, value] : r.params) seen[r.bench][key].insert(to_string(value));
  }
  const std::vector<std::string> header = {"case", "median", "±",      "throughput",
                                           "p50",  "p99",    "errors", "memory"};
  std::vector<SummaryRow> rows;
  for (const auto& r : results) rows.push_back(summary_row(r, seen));
  // The case's name on the left, the figures on the right; a failed case's message runs on.
  std::vector<report::Align> align(header.size(), report::Align::right);
  align.front() = report::Align::left;
  report::TextTable table(align);
  table.fit(header);
  for (const SummaryRow& row : rows) table.fit(row.cells);  // a failed case's: its name alone
  std::cout << table.line(header);
  bool spread = false;
  for (const SummaryRow& row : rows) {
    if (!row.failure.empty()) {
      std::cout << table.line({row.cells[0], row.failure});
    } else {
      std::cout << table.line(row.cells);
      spread = spread || !row.cells[2].empty();
    }
  }
  if (spread) std::cout << "±: the samples' coefficient of variation (stddev / mean)\n";
}

void print_run(const RunOptions& o, const RunRecord& run, const std::vector<ResultRecord>& results,
               const std::vector<Record>& batch, const ledger::Store* store, bool show_warnings) {
  if (o.format == "json") {
    if (store) {
      std::vector<std::string> ids;
      for (const Record& record : batch) ids.push_back(header_of(record).id);
      for (const std::string& line : stored_bytes(*store, ids)) std::cout << line << '\n';
    } else {
      for (const Record& record : batch) std::cout << serialize(record) << '\n';
    }
  } else {
    print_summary(results);
    if (store) {
      std::cout << fmt::format("\nrun {}{}: {} appended to {}\n", run.header.id,
                               run.label ? " (" + *run.label + ")" : "",
                               report::plural(results.size(), "result", "results"), store->uri());
    } else {
      std::cout << fmt::format("\nrun {}: {} (dry run: nothing appended)\n", run.header.id,
                               report::plural(results.size(), "result", "results"));
    }
  }
  std::cout.flush();
  if (show_warnings) {
    for (const std::string& warning : run.warnings) std::cerr << "warning: " << warning << '\n';
  }
}

}  // namespace benchledger::cli
