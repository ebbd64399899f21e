// The Results section: a table per suite, with columns for the latency, throughput and memory
// metrics the suite's cases record, and a note that names the metric each column reads.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "report/content_sections.hpp"
#include "report/format.hpp"

namespace benchledger::report::content {
namespace {

bool name_suggests_memory(const std::string& name) {
  return name.find("rss") != std::string::npos || name.find("mem") != std::string::npos ||
         name.find("peak") != std::string::npos;
}

Figures figures_of(const ResultRecord& result) {
  Figures f;
  const auto pick = [&](UnitKind kind,
                        const auto& prefer) -> std::pair<std::string, const Metric*> {
    if (const auto it = result.metrics.find(result.primary); it != result.metrics.end() &&
                                                             unit_kind(it->second.unit) == kind &&
                                                             prefer(it->first, it->second)) {
      return {it->first, &it->second};
    }
    for (const auto& [name, metric] : result.metrics) {
      if (unit_kind(metric.unit) == kind && prefer(name, metric)) return {name, &metric};
    }
    return {"", nullptr};
  };
  const auto any = [](const std::string&, const Metric&) { return true; };
  // Latency: a time metric with percentiles (per-operation latency), the primary first; else
  // the primary when it is a time; else any time metric.
  std::tie(f.latency_name, f.latency) =
      pick(UnitKind::time, [](const std::string&, const Metric& m) {
        return m.summary.p50 || m.summary.p95 || m.summary.p99;
      });
  if (f.latency == nullptr) std::tie(f.latency_name, f.latency) = pick(UnitKind::time, any);
  // Throughput: the metric named so, else one in operations per second, else any rate.
  std::tie(f.rate_name, f.rate) = pick(
      UnitKind::rate, [](const std::string& name, const Metric&) { return name == "throughput"; });
  if (f.rate == nullptr) {
    std::tie(f.rate_name, f.rate) =
        pick(UnitKind::rate, [](const std::string&, const Metric& m) { return m.unit == "ops/s"; });
  }
  if (f.rate == nullptr) std::tie(f.rate_name, f.rate) = pick(UnitKind::rate, any);
  std::tie(f.memory_name, f.memory) =
      pick(UnitKind::bytes,
           [](const std::string& name, const Metric&) { return name_suggests_memory(name); });
  if (f.memory == nullptr) std::tie(f.memory_name, f.memory) = pick(UnitKind::bytes, any);
  for (const auto& [name, metric] : result.metrics) {
    if (&metric != f.latency && &metric != f.rate && &metric != f.memory)
      f.others.emplace(name, &metric);
  }
  if (const auto it = result.metrics.find(result.primary); it != result.metrics.end()) {
    f.samples = it->second.summary.n;
  }
  return f;
}

std::string quantity(const Metric& metric, double value) {
  return format_quantity(value, metric.unit);
}

// The columns after a results table's first: samples, then those of the metrics some row has.
struct Column {
  std::string header;
  std::function<std::string(const ResultRecord&, const Figures&)> cell;
};
std::vector<Column> result_columns(const std::vector<const ResultRecord*>& results,
                                   const std::vector<Figures>& figures) {
  std::vector<Column> columns;
  const auto any_of = [&](const std::function<bool(const ResultRecord&, const Figures&)>& has) {
    for (std::size_t i = 0; i < results.size(); ++i) {
      if (has(*results[i], figures[i])) return true;
    }
    return false;
  };
  // "samples", not "n": a param named `n` (a common name for a size) heads the first column of
  // its scaling table, and two columns called `n` would leave the reader guessing.
  columns.push_back(
      {"samples", [](const ResultRecord&, const Figures& f) { return format_integer(f.samples); }});
  if (any_of([](const ResultRecord& r, const Figures&) { return r.ops > 0; })) {
    columns.push_back(
        {"ops", [](const ResultRecord& r, const Figures&) { return format_integer(r.ops); }});
  }
  if (any_of([](const ResultRecord&, const Figures& f) { return f.rate != nullptr; })) {
    columns.push_back({"throughput", [](const ResultRecord&, const Figures& f) {
                         return f.rate ? quantity(*f.rate, f.rate->value) : k_missing;
                       }});
  }
  if (any_of([](const ResultRecord&, const Figures& f) { return f.latency != nullptr; })) {
    columns.push_back({"mean", [](const ResultRecord&, const Figures& f) {
                         return f.latency ? quantity(*f.latency, f.latency->summary.mean)
                                          : k_missing;
                       }});
  }
  using Percentile = std::optional<double> Summary::*;
  const std::pair<const char*, Percentile> percentiles[] = {
      {"p50", &Summary::p50}, {"p95", &Summary::p95}, {"p99", &Summary::p99}};
  for (const auto& [name, member] : percentiles) {
    const Percentile p = member;
    if (any_of([p](const ResultRecord&, const Figures& f) {
          return f.latency && f.latency->summary.*p;
        })) {
      columns.push_back({name, [p](const ResultRecord&, const Figures& f) {
                           if (!f.latency || !(f.latency->summary.*p))
                             return std::string(k_missing);
                           return quantity(*f.latency, *(f.latency->summary.*p));
                         }});
    }
  }
  columns.push_back(
      {"errors", [](const ResultRecord& r, const Figures&) { return format_integer(r.errors); }});
  if (any_of([](const ResultRecord& r, const Figures&) { return r.ops > 0; })) {
    columns.push_back({"error rate", [](const ResultRecord& r, const Figures&) {
                         if (r.ops <= 0) return std::string(k_missing);
                         return format_percent(static_cast<double>(r.errors) /
                                               static_cast<double>(r.ops));
                       }});
  }
  if (any_of([](const ResultRecord&, const Figures& f) { return f.memory != nullptr; })) {
    columns.push_back({"peak memory", [](const ResultRecord&, const Figures& f) {
                         return f.memory ? quantity(*f.memory, f.memory->value) : k_missing;
                       }});
  }
  std::set<std::string> other_names;
  for (const Figures& f : figures) {
    for (const auto& [name, metric] : f.others) other_names.insert(name);
  }
  for (const std::string& name : other_names) {
    const bool taken = std::any_of(columns.begin(), columns.end(),
                                   [&](const Column& c) { return c.header == name; });
    columns.push_back(
        {taken ? name + " (metric)" : name, [name](const ResultRecord&, const Figures& f) {
           const auto it = f.others.find(name);
           return it == f.others.end() ? std::string(k_missing)
                                       : quantity(*it->second, it->second->value);
         }});
  }
  return columns;
}

// Which metric each column of a results table reads, so that readers know what "mean" means.
Paragraph metrics_note(const std::vector<const ResultRecord*>& results) {
  std::set<std::string> latency, rate, memory;
  for (const Figures& f : table_figures(results)) {
    if (f.latency) latency.insert(f.latency_name);
    if (f.rate) rate.insert(f.rate_name);
    if (f.memory) memory.insert(f.memory_name);
  }
  Text text{plain("samples: measurements of the primary metric (repetitions). ")};
  const auto list = [&](const char* what, const std::set<std::string>& names) {
    if (names.empty()) return;
    text.push_back(plain(what));
    bool first = true;
    for (const std::string& name : names) {
      if (!first) text.push_back(plain(", "));
      text.push_back(code(name));
      first = false;
    }
    text.push_back(plain(". "));
  };
  list("Mean and percentiles: ", latency);
  list("Throughput: ", rate);
  list("Peak memory: ", memory);
  bool any_ops = false;
  for (const ResultRecord* r : results) any_ops = any_ops || r->ops > 0;
  if (any_ops) text.push_back(plain("Error rate: errors over operations measured."));
  while (!text.empty() && text.back().style == Span::Style::plain && !text.back().text.empty() &&
         text.back().text.back() == ' ') {
    text.back().text.pop_back();
  }
  return Paragraph{std::move(text), "note"};
}

}  // namespace

// The figures of the rows of one table, with one metric name per column across the rows:
// the name most rows would pick on their own (the first such on a tie), so that a column
// never mixes two metrics.
std::vector<Figures> table_figures(const std::vector<const ResultRecord*>& results) {
  std::vector<Figures> own;
  for (const ResultRecord* r : results) own.push_back(figures_of(*r));
  const auto majority = [&](std::string Figures::*name) {
    std::vector<std::string> order;
    std::map<std::string, int> votes;
    for (const Figures& f : own) {
      if ((f.*name).empty()) continue;
      if (votes[f.*name]++ == 0) order.push_back(f.*name);
    }
    std::string best;
    int most = 0;
    for (const std::string& n : order) {
      if (votes[n] > most) best = n, most = votes[n];
    }
    return best;
  };
  const std::string latency = majority(&Figures::latency_name);
  const std::string rate = majority(&Figures::rate_name);
  const std::string memory = majority(&Figures::memory_name);
  std::vector<Figures> figures;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const ResultRecord& r = *results[i];
    Figures f;
    f.samples = own[i].samples;
    const auto take = [&](const std::string& name, UnitKind kind, const Metric*& slot,
                          std::string& slot_name) {
      const auto it = r.metrics.find(name);
      if (name.empty() || it == r.metrics.end() || unit_kind(it->second.unit) != kind) return;
      slot = &it->second;
      slot_name = name;
    };
    take(latency, UnitKind::time, f.latency, f.latency_name);
    take(rate, UnitKind::rate, f.rate, f.rate_name);
    take(memory, UnitKind::bytes, f.memory, f.memory_name);
    for (const auto& [name, metric] : r.metrics) {
      if (&metric != f.latency && &metric != f.rate && &metric != f.memory)
        f.others.emplace(name, &metric);
    }
    figures.push_back(std::move(f));
  }
  return figures;
}

Table results_table(const std::vector<const ResultRecord*>& results,
                    const std::string& first_header,
                    const std::function<Cell(const ResultRecord&)>& first, Align first_align) {
  const std::vector<Figures> figures = table_figures(results);
  const std::vector<Column> columns = result_columns(results, figures);
  Table table;
  // A param named like a column (`samples`, `ops`, `mean`, a metric) is marked as the param.
  const bool first_taken = std::any_of(columns.begin(), columns.end(), [&](const Column& c) {
    return c.header == first_header || c.header == first_header + " (metric)";
  });
  table.header.push_back(first_taken ? first_header + " (param)" : first_header);
  table.align.push_back(first_align);
  for (const Column& c : columns) {
    table.header.push_back(c.header);
    table.align.push_back(Align::right);
  }
  for (std::size_t i = 0; i < results.size(); ++i) {
    std::vector<Cell> row{first(*results[i])};
    for (const Column& c : columns) row.push_back(text_cell(c.cell(*results[i], figures[i])));
    table.rows.push_back(std::move(row));
  }
  return table;
}

void add_results(Document& doc, const ReportInput& input) {
  std::size_t budget = k_max_charted_cases, left_out = 0;
  for (const RunData& data : input.runs) {
    const RunRecord& run = data.run;
    doc.blocks.emplace_back(
        Heading{2, input.runs.size() == 1 ? "Results" : "Results: " + run_name(run)});
    if (data.results.empty()) {
      doc.blocks.emplace_back(Paragraph{{plain("This run has no results.")}, {}});
      continue;
    }
    std::vector<std::string> suites;
    std::map<std::string, std::vector<const ResultRecord*>> by_suite;
    for (const ResultRecord& r : data.results) {
      const std::string suite = suite_of(r.bench);
      if (by_suite.find(suite) == by_suite.end()) suites.push_back(suite);
      by_suite[suite].push_back(&r);
    }
    for (const std::string& suite : suites) {
      const auto& results = by_suite[suite];
      doc.blocks.emplace_back(Heading{3, suite});
      std::vector<const Params*> params;
      for (const ResultRecord* r : results) params.push_back(&r->params);
      const Params common = common_params(params);
      doc.blocks.emplace_back(results_table(
          results, "case",
          [&common](const ResultRecord& r) {
            return Cell{case_text(r.bench, without(r.params, common)), {}, {}};
          },
          Align::left));
      if (!common.empty()) doc.blocks.emplace_back(common_params_note(common));
      doc.blocks.emplace_back(metrics_note(results));
      add_scaling(doc, results, common, budget, left_out);
    }
  }
  if (left_out > 0) {
    Text note = {strong(fmt::format(
        "This report summarises: {} more scaling tables and charts are left out, past the first "
        "{};",
        format_integer(static_cast<std::int64_t>(left_out)),
        format_integer(static_cast<std::int64_t>(k_max_charted_cases))))};
    note.push_back(plain(" the results tables list every case."));
    doc.blocks.emplace_back(Paragraph{std::move(note), "note"});
  }
}

}  // namespace benchledger::report::content
