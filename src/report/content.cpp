// The content of a report: runs, environment, results per suite, scaling, trends and warnings.
#include "report/content.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

#include <fmt/format.h>
#include <benchledger/error.hpp>

#include "env/env.hpp"
#include "model/redact.hpp"
#include "report/compare_render.hpp"
#include "report/format.hpp"

namespace benchledger::report {
namespace {

constexpr const char* k_missing = "—";

// ---- runs ----------------------------------------------------------------------------------

std::string run_name(const RunRecord& run) {
  return run.label ? *run.label : run.header.id;
}

// `2026-11-22T04:27:59.123456Z` → `2026-11-22 04:27:59 UTC`; other text is returned as is.
std::string display_time(const std::string& time) {
  if (time.size() >= 19 && time[10] == 'T')
    return time.substr(0, 10) + " " + time.substr(11, 8) + " UTC";
  return time;
}

std::string display_date(const std::string& time) {
  if (time.size() >= 16 && time[10] == 'T')
    return time.substr(0, 10) + " " + time.substr(11, 5) + " UTC";
  return time;
}

// Through redact_command() again: a run recorded before secrets were kept out may hold one.
std::string command_text(const std::vector<std::string>& command) {
  std::string text;
  for (const std::string& arg : model::redact_command(command)) {
    if (!text.empty()) text += ' ';
    const bool quote = arg.empty() || arg.find_first_of(" \t'\"\\$") != std::string::npos;
    if (!quote) {
      text += arg;
      continue;
    }
    text += '\'';
    for (char c : arg) text += c == '\'' ? std::string("'\\''") : std::string(1, c);
    text += '\'';
  }
  return text;
}

// Every run the report shows: the base first, then the reported runs.
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

// ---- environment ---------------------------------------------------------------------------

template <typename T>
std::string or_unknown(const std::optional<T>& value,
                       const std::function<std::string(const T&)>& show) {
  return value ? show(*value) : std::string("?");
}

std::string on_off(bool value) {
  return value ? "on" : "off";
}

struct EnvField {
  std::string name;
  std::function<std::optional<std::string>(const RunRecord&)> value;
  // The fields of env::compared_fields() the row shows: it is marked "differs" when
  // env::environment_differences finds one of them, as compare does. Rows of fields compare
  // does not hold (host, governor, load average: not a different environment) are never marked.
  std::vector<std::string> compared = {};
  bool only_when_known = false;  // rows for optional runtimes appear when some run has them
};

std::optional<std::string> join_known(const std::vector<std::optional<std::string>>& parts) {
  std::string text;
  bool any = false;
  for (const auto& part : parts) {
    if (!part) continue;
    any = true;
    if (!text.empty()) text += ", ";
    text += *part;
  }
  if (!any) return std::nullopt;
  return text;
}

std::vector<EnvField> env_fields() {
  const auto count = [](const std::optional<std::int64_t>& v,
                        const char* what) -> std::optional<std::string> {
    if (!v) return std::nullopt;
    return format_integer(*v) + " " + what;
  };
  const auto bytes = [](const std::optional<std::int64_t>& v) -> std::optional<std::string> {
    if (!v) return std::nullopt;
    return format_quantity(static_cast<double>(*v), "bytes");
  };
  std::vector<EnvField> fields{
      {"Host", [](const RunRecord& r) { return r.env.host; }},
      {"CPU",
       [](const RunRecord& r) -> std::optional<std::string> {
         const CpuInfo& cpu = r.env.cpu;
         if (!cpu.model && !cpu.arch) return std::nullopt;
         std::string text = cpu.model.value_or("?");
         if (cpu.arch) text += " (" + *cpu.arch + ")";
         return text;
       },
       {"cpu.model", "cpu.vendor", "cpu.arch"}},
      {"CPU cores",
       [count](const RunRecord& r) {
         const CpuInfo& cpu = r.env.cpu;
         return join_known(
             {count(cpu.logical, "logical"), count(cpu.physical, "physical"),
              cpu.sockets ? std::optional<std::string>(format_integer(*cpu.sockets) +
                                                       (*cpu.sockets == 1 ? " socket" : " sockets"))
                          : std::nullopt});
       },
       {"cpu.logical", "cpu.physical", "cpu.sockets"}},
      {"CPUs usable",
       [count](const RunRecord& r) -> std::optional<std::string> {
         const CpuInfo& cpu = r.env.cpu;
         // quota null means no cgroup limit (docs/environment.md); online and affinity null mean
         // unknown.
         return join_known(
             {count(cpu.online, "online"), count(cpu.affinity, "in affinity"),
              std::optional<std::string>(cpu.quota ? fmt::format("quota {:g} CPUs", *cpu.quota)
                                                   : "no quota")});
       },
       {"cpu.online", "cpu.affinity", "cpu.quota"}},
      {"CPU frequency",
       [](const RunRecord& r) -> std::optional<std::string> {
         if (!r.env.cpu.mhz) return std::nullopt;
         return format_number(*r.env.cpu.mhz, 4) + " MHz";
       }},
      {"Governor", [](const RunRecord& r) { return r.env.cpu.governor; }},
      {"Turbo",
       [](const RunRecord& r) -> std::optional<std::string> {
         if (!r.env.cpu.turbo) return std::nullopt;
         return on_off(*r.env.cpu.turbo);
       }},
      {"SMT",
       [](const RunRecord& r) -> std::optional<std::string> {
         if (!r.env.cpu.smt) return std::nullopt;
         return on_off(*r.env.cpu.smt);
       }},
      {"Caches",
       [bytes](const RunRecord& r) {
         const CacheBytes& c = r.env.cpu.cache_bytes;
         const auto level =
             [&](const char* name,
                 const std::optional<std::int64_t>& v) -> std::optional<std::string> {
           if (!v) return std::nullopt;
           return std::string(name) + " " + *bytes(v);
         };
         return join_known({level("L1d", c.l1d), level("L2", c.l2), level("L3", c.l3)});
       }},
      {"Memory",
       [bytes](const RunRecord& r) { return bytes(r.env.memory.total_bytes); },
       {"memory.total_bytes"}},
      {"Memory limit",
       [bytes](const RunRecord& r) -> std::optional<std::string> {
         // null means no cgroup limit (docs/environment.md).
         if (!r.env.memory.limit_bytes) return std::string("none");
         return bytes(r.env.memory.limit_bytes);
       },
       {"memory.limit_bytes"}},
      {"OS",
       [](const RunRecord& r) -> std::optional<std::string> {
         const OsInfo& os = r.env.os;
         if (!os.name && !os.version) return std::nullopt;
         std::string text = os.name.value_or("?");
         if (os.version) text += " " + *os.version;
         return text;
       },
       {"os.name", "os.version"}},
      {"Kernel", [](const RunRecord& r) { return r.env.os.kernel; }, {"os.kernel"}},
      {"Virtualization",
       [](const RunRecord& r) { return r.env.virtualization; },
       {"virtualization"}},
      {"Container",
       [](const RunRecord& r) -> std::optional<std::string> {
         const ContainerInfo& c = r.env.container;
         if (!c.kind && !c.docker_version) return std::nullopt;
         std::string text = c.kind.value_or("?");
         if (c.docker_version) text += ", Docker " + *c.docker_version;
         return text;
       },
       {"container.kind"}},
      {"Clock", [](const RunRecord& r) { return r.env.clock.source; }},
      // A measurement, different on every run: shown, not compared.
      {"Clock read",
       [](const RunRecord& r) -> std::optional<std::string> {
         if (!r.env.clock.read_ns) return std::nullopt;
         return format_quantity(*r.env.clock.read_ns, "ns");
       }},
      {"Compiler",
       [](const RunRecord& r) { return r.env.runtimes.compiler; },
       {"runtimes.compiler"}},
      {"Build type",
       [](const RunRecord& r) { return r.env.runtimes.build_type; },
       {"runtimes.build_type"}},
      {"benchledger",
       [](const RunRecord& r) { return r.env.runtimes.benchledger; },
       {"runtimes.benchledger"},
       true},
      {"Node", [](const RunRecord& r) { return r.env.runtimes.node; }, {"runtimes.node"}, true},
      {"Python",
       [](const RunRecord& r) { return r.env.runtimes.python; },
       {"runtimes.python"},
       true},
      {"PostgreSQL client",
       [](const RunRecord& r) { return r.env.runtimes.postgres_client; },
       {"runtimes.postgres_client"},
       true},
      {"PostgreSQL server",
       [](const RunRecord& r) { return r.env.runtimes.postgres_server; },
       {"runtimes.postgres_server"},
       true},
      {"Load average",
       [](const RunRecord& r) -> std::optional<std::string> {
         if (!r.env.load_avg) return std::nullopt;
         std::string text;
         for (double v : *r.env.load_avg)
           text += (text.empty() ? "" : ", ") + fmt::format("{:.2f}", v);
         return text;
       }},
      {"Fingerprint",
       [](const RunRecord& r) -> std::optional<std::string> {
         if (r.env.fingerprint.empty()) return std::nullopt;
         return r.env.fingerprint.substr(0, 12);
       },
       env::comparability_fields()},
  };
  return fields;
}

// ---- metrics -------------------------------------------------------------------------------

bool name_suggests_memory(const std::string& name) {
  return name.find("rss") != std::string::npos || name.find("mem") != std::string::npos ||
         name.find("peak") != std::string::npos;
}

// The metrics of a result that the results table has columns for.
struct Figures {
  const Metric* latency = nullptr;
  std::string latency_name;
  const Metric* rate = nullptr;
  std::string rate_name;
  const Metric* memory = nullptr;
  std::string memory_name;
  std::map<std::string, const Metric*> others;
  std::int64_t samples = 0;
};

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

std::string quantity(const Metric& metric, double value) {
  return format_quantity(value, metric.unit);
}

Cell text_cell(std::string text) {
  return Cell{{plain(std::move(text))}, {}, {}};
}

// The params every one of `cases` has with the same value, when there are two cases or more:
// a table states them once under it instead of on every row.
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
  if (!params.empty()) text.push_back(plain(" " + params_text(params)));
  return text;
}

Paragraph common_params_note(const Params& common) {
  return Paragraph{{plain("Every row has " + params_text(common) + ".")}, "note"};
}

// A results table: one row per result, the first column given by `first`.
Table results_table(const std::vector<const ResultRecord*>& results,
                    const std::string& first_header,
                    const std::function<Cell(const ResultRecord&)>& first, Align first_align) {
  const std::vector<Figures> figures = table_figures(results);

  struct Column {
    std::string header;
    std::function<std::string(const ResultRecord&, const Figures&)> cell;
  };
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

// ---- charts --------------------------------------------------------------------------------

// The display unit for values of one unit spanning up to `magnitude`.
std::string axis_label(const std::string& what, const DisplayUnit& unit) {
  return unit.unit.empty() ? what : what + " (" + unit.unit + ")";
}

double max_abs(const std::vector<double>& values) {
  double m = 0;
  for (double v : values) m = std::max(m, std::fabs(v));
  return m;
}

std::optional<double> numeric(const ParamValue& value) {
  if (const auto* d = std::get_if<double>(&value)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&value)) return static_cast<double>(*i);
  return std::nullopt;
}

// Scaling curves of one (bench, param): one series per slice, for the primary metric and, when
// the primary is not a rate, for the throughput too.
ChartGroup scaling_charts(const std::vector<const ScalingSlice*>& slices, const Params& common) {
  ChartGroup group;
  const ScalingSlice& first = *slices.front();
  const ResultRecord& sample = *first.cases.front();
  // The primary metric, and the throughput and latency that the scaling table shows (a client
  // sweep is read as both: TPS and latency against clients).
  std::vector<std::string> metrics{sample.primary};
  const Figures f = table_figures(first.cases).front();
  for (const Metric* m : {f.rate, f.latency}) {
    const std::string& name = m == f.rate ? f.rate_name : f.latency_name;
    if (m != nullptr && std::find(metrics.begin(), metrics.end(), name) == metrics.end())
      metrics.push_back(name);
  }
  bool log_x = true;
  double lo = 0, hi = 0;
  for (const ScalingSlice* s : slices) {
    for (double v : s->values) {
      if (v <= 0) log_x = false;
      lo = lo == 0 ? v : std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  log_x = log_x && lo > 0 && hi / lo >= 20;
  for (const std::string& metric_name : metrics) {
    const auto it = sample.metrics.find(metric_name);
    if (it == sample.metrics.end()) continue;
    const std::string unit = it->second.unit;
    std::vector<double> all;
    for (const ScalingSlice* s : slices) {
      for (const ResultRecord* r : s->cases) {
        if (const auto m = r->metrics.find(metric_name);
            m != r->metrics.end() && m->second.unit == unit) {
          all.push_back(m->second.value);
        }
      }
    }
    if (all.empty()) continue;
    const DisplayUnit shown = display_unit(max_abs(all), unit);
    LineChart chart;
    chart.title = first.bench + ": " + metric_name + " by " + first.param;
    chart.x_label = first.param;
    chart.y_label = axis_label(metric_name, shown);
    chart.note = it->second.better == Better::lower ? "lower is better" : "higher is better";
    chart.log_x = log_x;
    for (const ScalingSlice* s : slices) {
      ChartSeries series;
      const Params fixed = without(s->fixed, common);
      series.name = fixed.empty() ? first.bench : params_text(fixed);
      for (std::size_t i = 0; i < s->cases.size(); ++i) {
        const auto m = s->cases[i]->metrics.find(metric_name);
        if (m == s->cases[i]->metrics.end() || m->second.unit != unit) continue;
        ChartPoint p;
        p.x = s->values[i];
        p.y = m->second.value * shown.factor;
        if (m->second.samples && m->second.samples->size() > 1) {
          p.low = m->second.summary.min * shown.factor;
          p.high = m->second.summary.max * shown.factor;
        }
        p.tip = fmt::format("{}={}: {}", first.param, format_number(s->values[i], 6),
                            quantity(m->second, m->second.value));
        series.points.push_back(std::move(p));
      }
      chart.series.push_back(std::move(series));
    }
    group.charts.emplace_back(std::move(chart));
  }
  return group;
}

std::string short_date(const std::string& time, bool seconds) {
  if (time.size() < (seconds ? 19U : 16U)) return time;
  return time.substr(5, 5) + " " + time.substr(11, seconds ? 8 : 5);
}

// Tick labels for a trend's runs: month, day, hours and minutes; with seconds when two runs
// share a minute (a job that runs twice in a row), and with the run's position (#3) when they
// share a second too, so that no two ticks read the same.
std::vector<std::string> trend_tick_labels(const std::vector<TrendPoint>& points) {
  const auto labels_with = [&](bool seconds) {
    std::vector<std::string> labels;
    for (const TrendPoint& p : points) labels.push_back(short_date(p.time, seconds));
    return labels;
  };
  const auto unique = [](std::vector<std::string> labels) {
    std::sort(labels.begin(), labels.end());
    return std::adjacent_find(labels.begin(), labels.end()) == labels.end();
  };
  std::vector<std::string> labels = labels_with(false);
  if (unique(labels)) return labels;
  labels = labels_with(true);
  if (unique(labels)) return labels;
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i] += " #" + std::to_string(i + 1);
  return labels;
}

// The trends a report draws, in report order: all of them, or past k_max_charted_cases those
// whose newest point moved most from the one before it (relative to it).
std::vector<const Trend*> charted_trends(const ReportInput& input) {
  std::vector<const Trend*> trends;
  for (const Trend& trend : input.trends) {
    if (!trend.points.empty()) trends.push_back(&trend);
  }
  if (trends.size() <= k_max_charted_cases) return trends;
  const auto moved = [](const Trend* t) {
    if (t->points.size() < 2) return -1.0;
    const double before = t->points[t->points.size() - 2].value, now = t->points.back().value;
    return before != 0 ? std::abs(now / before - 1) : std::abs(now - before);
  };
  std::vector<std::pair<double, const Trend*>> ranked;
  for (const Trend* t : trends) ranked.emplace_back(moved(t), t);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  ranked.resize(k_max_charted_cases);
  std::set<const Trend*> keep;
  for (const auto& [m, t] : ranked) keep.insert(t);
  std::erase_if(trends, [&](const Trend* t) { return keep.count(t) == 0; });
  return trends;
}

ChartGroup trend_charts(const ReportInput& input) {
  ChartGroup group;
  std::set<std::string> highlighted;
  for (const RunData& data : input.runs) highlighted.insert(data.run.header.id);
  const std::string base_id = input.base ? input.base->run.header.id : std::string();
  for (const Trend* trend_ptr : charted_trends(input)) {
    const Trend& trend = *trend_ptr;
    std::vector<double> values;
    for (const TrendPoint& p : trend.points) values.push_back(p.high);
    const DisplayUnit shown = display_unit(max_abs(values), trend.unit);
    LineChart chart;
    chart.title = trend.bench + (trend.params.empty() ? "" : " " + params_text(trend.params));
    chart.x_label = "run (oldest to newest)";
    chart.y_label = axis_label(trend.metric, shown);
    chart.note = trend.better == Better::lower ? "lower is better" : "higher is better";
    ChartSeries line{"median", {}, true};
    ChartSeries base{"base run", {}, false};
    ChartSeries reported{"reported run", {}, false};
    for (std::size_t i = 0; i < trend.points.size(); ++i) {
      const TrendPoint& tp = trend.points[i];
      ChartPoint p;
      p.x = static_cast<double>(i);
      p.y = tp.value * shown.factor;
      if (tp.low != tp.value || tp.high != tp.value) {
        p.low = tp.low * shown.factor;
        p.high = tp.high * shown.factor;
      }
      p.tip = fmt::format("{} {}{}: {}", display_time(tp.time), tp.run_id,
                          tp.label ? " (" + *tp.label + ")" : "",
                          format_quantity(tp.value, trend.unit));
      if (tp.run_id == base_id) base.points.push_back(p);
      if (highlighted.count(tp.run_id) != 0) reported.points.push_back(p);
      line.points.push_back(std::move(p));
    }
    // At most six dated ticks, spread evenly, always including the newest run.
    const std::size_t n = trend.points.size();
    const std::size_t step = std::max<std::size_t>(1, (n + 5) / 6);
    const std::vector<std::string> labels = trend_tick_labels(trend.points);
    for (std::size_t i = (n - 1) % step; i < n; i += step) {
      chart.x_ticks.emplace_back(static_cast<double>(i), labels[i]);
    }
    chart.series = {std::move(line), std::move(base), std::move(reported)};
    chart.styles = {0, 1, 3};
    group.charts.emplace_back(std::move(chart));
  }
  return group;
}

// A run's results by case key, the first result of each case: looking a case up in a run
// without going through all of its results (which made a report of many cases quadratic).
class CaseIndex {
 public:
  explicit CaseIndex(const RunData& data) {
    for (const ResultRecord& r : data.results)
      m_results.try_emplace(case_key(r.bench, r.params), &r);
  }
  const ResultRecord* find(const std::string& bench, const Params& params) const {
    const auto it = m_results.find(case_key(bench, params));
    return it == m_results.end() ? nullptr : it->second;
  }

 private:
  std::unordered_map<std::string, const ResultRecord*> m_results;
};

// Samples of one metric of a case in a run, or its single value.
std::vector<double> samples_of(const CaseIndex& index, const std::string& bench,
                               const Params& params, const std::string& metric) {
  const ResultRecord* r = index.find(bench, params);
  if (r == nullptr) return {};
  const auto it = r->metrics.find(metric);
  if (it == r->metrics.end()) return {};
  if (it->second.samples && !it->second.samples->empty()) return *it->second.samples;
  return {it->second.value};
}

// How widely a metric's samples spread, relative to their median: the order in which a report
// of many cases picks the distributions it draws.
double relative_spread(const Metric& metric) {
  if (!metric.samples || metric.samples->size() < 2) return -1;
  const auto [low, high] = std::minmax_element(metric.samples->begin(), metric.samples->end());
  const double centre = std::abs(metric.value);
  return centre > 0 ? (*high - *low) / centre : *high - *low;
}

// "(N cases: charts for the K …; the tables list every case)" when a report summarises.
Text summarised_note(std::size_t cases, const std::string& chosen) {
  return {
      strong(fmt::format(" This report summarises: of {} cases, charts are drawn for the {} {};",
                         format_integer(static_cast<std::int64_t>(cases)),
                         format_integer(static_cast<std::int64_t>(k_max_charted_cases)), chosen)),
      plain(" the tables list every case.")};
}

// Without a base: the samples of each case's primary metric in every reported run.
ChartGroup distribution_charts(const ReportInput& input) {
  ChartGroup group;
  group.heading = "Distributions";
  group.intro = {plain(
      "Every sample of each case's primary metric (one per repetition), over a box from the first "
      "to the third quartile with the median as a bar and whiskers to the extremes.")};
  std::vector<const ResultRecord*> drawn;
  for (const ResultRecord& result : input.runs.back().results) {
    if (result.metrics.count(result.primary) != 0) drawn.push_back(&result);
  }
  if (drawn.size() > k_max_charted_cases) {
    // The widest spreads, shown in the run's order.
    std::vector<const ResultRecord*> widest = drawn;
    std::stable_sort(widest.begin(), widest.end(), [](const auto* a, const auto* b) {
      return relative_spread(a->metrics.at(a->primary)) >
             relative_spread(b->metrics.at(b->primary));
    });
    widest.resize(k_max_charted_cases);
    const std::set<const ResultRecord*> keep(widest.begin(), widest.end());
    std::erase_if(drawn, [&](const ResultRecord* r) { return keep.count(r) == 0; });
    const Text note = summarised_note(input.runs.back().results.size(),
                                      "whose samples spread widest relative to their median");
    group.intro.insert(group.intro.end(), note.begin(), note.end());
  }
  std::vector<CaseIndex> indexes;
  for (const RunData& data : input.runs) indexes.emplace_back(data);
  for (const ResultRecord* result_ptr : drawn) {
    const ResultRecord& result = *result_ptr;
    const Metric& metric = result.metrics.at(result.primary);
    std::vector<std::pair<std::string, std::vector<double>>> sides;
    std::vector<double> all;
    for (std::size_t d = 0; d < input.runs.size(); ++d) {
      const RunData& data = input.runs[d];
      std::vector<double> samples =
          samples_of(indexes[d], result.bench, result.params, result.primary);
      if (samples.size() < 2) continue;
      all.insert(all.end(), samples.begin(), samples.end());
      sides.emplace_back(run_name(data.run), std::move(samples));
    }
    if (sides.empty()) continue;
    const DisplayUnit shown = display_unit(max_abs(all), metric.unit);
    DistributionChart chart;
    chart.title = result.bench + (result.params.empty() ? "" : " " + params_text(result.params));
    chart.unit = shown.unit;
    chart.axis_label =
        axis_label(result.primary, shown) +
        (metric.better == Better::lower ? ", lower is better" : ", higher is better");
    int style = 0;
    for (auto& [name, samples] : sides) {
      for (double& v : samples) v *= shown.factor;
      chart.groups.push_back({name, std::move(samples), style++});
    }
    group.charts.emplace_back(std::move(chart));
  }
  return group;
}

// ---- sections ------------------------------------------------------------------------------

void add_runs(Document& doc, const ReportInput& input) {
  const std::vector<const RunRecord*> runs = all_runs(input);
  Table table;
  table.header.push_back("");
  table.align.push_back(Align::left);
  for (const std::string& h : run_headers(input)) {
    table.header.push_back(h);
    table.align.push_back(Align::left);
  }
  const auto row = [&](const std::string& name, const std::function<Cell(const RunRecord&)>& cell) {
    std::vector<Cell> cells{text_cell(name)};
    for (const RunRecord* r : runs) cells.push_back(cell(*r));
    table.rows.push_back(std::move(cells));
  };
  row("Run", [](const RunRecord& r) { return Cell{{code(r.header.id)}, {}, {}}; });
  row("Label", [](const RunRecord& r) { return text_cell(r.label.value_or(k_missing)); });
  row("Time", [](const RunRecord& r) { return text_cell(display_time(r.header.time)); });
  row("Project", [](const RunRecord& r) { return text_cell(r.project); });
  row("Git", [](const RunRecord& r) {
    if (!r.git.commit) return text_cell(k_missing);
    Text text{code(format_commit(r.git))};
    std::string rest;
    if (r.git.branch) rest += " on " + *r.git.branch;
    if (r.git.dirty && *r.git.dirty) rest += " (uncommitted changes)";
    if (!rest.empty()) text.push_back(plain(rest));
    return Cell{std::move(text), {}, {}};
  });
  row("Source", [](const RunRecord& r) { return text_cell(r.source); });
  row("Command", [](const RunRecord& r) {
    if (r.command.empty()) return text_cell(k_missing);
    return Cell{{code(command_text(r.command))}, {}, {}};
  });
  std::vector<Cell> counts{text_cell("Cases")};
  if (input.base)
    counts.push_back(
        text_cell(format_integer(static_cast<std::int64_t>(input.base->results.size()))));
  for (const RunData& data : input.runs) {
    counts.push_back(text_cell(format_integer(static_cast<std::int64_t>(data.results.size()))));
  }
  table.rows.push_back(std::move(counts));
  doc.blocks.emplace_back(Heading{2, "Runs"});
  doc.blocks.emplace_back(std::move(table));
}

void add_environment(Document& doc, const ReportInput& input) {
  const std::vector<const RunRecord*> runs = all_runs(input);
  Table table;
  table.header.push_back("");
  table.align.push_back(Align::left);
  for (const std::string& h : run_headers(input)) {
    table.header.push_back(h);
    table.align.push_back(Align::left);
  }
  // Every run against the first, by the comparison compare makes.
  std::set<std::string> differing;
  for (const RunRecord* r : runs) {
    if (r == runs.front()) continue;
    for (const std::string& name : env::differing_fields(runs.front()->env, r->env)) {
      differing.insert(name);
    }
  }
  bool any_differs = false;
  for (const EnvField& field : env_fields()) {
    std::vector<std::optional<std::string>> values;
    for (const RunRecord* r : runs) values.push_back(field.value(*r));
    const bool known =
        std::any_of(values.begin(), values.end(), [](const auto& v) { return v.has_value(); });
    if (field.only_when_known && !known) continue;
    const bool differs =
        std::any_of(field.compared.begin(), field.compared.end(),
                    [&](const std::string& name) { return differing.contains(name); });
    any_differs = any_differs || differs;
    std::vector<Cell> row;
    row.push_back(differs ? Cell{{strong(field.name), plain(" ⚠ differs")}, "differs", {}}
                          : text_cell(field.name));
    for (const auto& v : values) {
      Cell cell = text_cell(v.value_or(k_missing));
      if (differs) cell.mark = "differs";
      row.push_back(std::move(cell));
    }
    table.rows.push_back(std::move(row));
  }
  doc.blocks.emplace_back(Heading{2, "Environment"});
  doc.blocks.emplace_back(std::move(table));
  Text note{plain("— : not recorded (unknown on that machine).")};
  if (any_differs)
    note.insert(note.begin(),
                plain("⚠ differs: the runs were not measured in the same environment. "));
  doc.blocks.emplace_back(Paragraph{std::move(note), "note"});
}

// ---- comparison ----------------------------------------------------------------------------

// The verdict in words; its symbol is the icon named verdict_icon().
std::string verdict_text(const compare::CaseComparison& c) {
  if (c.accepted) return std::string(compare::to_string(c.verdict)) + ", accepted";
  return std::string(compare::to_string(c.verdict));
}

std::string verdict_icon(const compare::CaseComparison& c) {
  if (c.accepted) return "accepted";
  return std::string(compare::to_string(c.verdict));
}

std::string p_text(double p) {
  return p < 0.001 ? "<0.001" : format_number(p, 2);
}

Text comparison_case_text(const compare::CaseComparison& c) {
  Text text{code(c.bench)};
  if (!c.params.empty()) text.push_back(plain(" " + params_text(c.params)));
  return text;
}

// 0.05 → "5%", 0.0503 → "5.03%": thresholds and confidence levels, without trailing zeros.
std::string percent_of(double fraction) {
  return fmt::format("{:.3g}%", fraction * 100);
}

std::string test_name(compare::DecidingTest test) {
  switch (test) {
    case compare::DecidingTest::mann_whitney:
      return "Mann–Whitney U test";
    case compare::DecidingTest::brunner_munzel:
      return "Brunner–Munzel test";
    case compare::DecidingTest::kolmogorov_smirnov:
      return "Kolmogorov–Smirnov test";
  }
  return std::string(compare::to_string(test));
}

// Compare sorts cases by name; the report keeps the order of the current run's results, with
// the cases only the base has (missing) after them in the base's order.
std::vector<const compare::CaseComparison*> in_run_order(const compare::ComparisonReport& report,
                                                         const RunData& current,
                                                         const RunData& base) {
  std::map<std::string, std::size_t> rank;
  for (const RunData* data : {&current, &base}) {
    for (const ResultRecord& r : data->results)
      rank.try_emplace(case_key(r.bench, r.params), rank.size());
  }
  // Each case's rank, found once (not in every comparison of the sort).
  std::vector<std::pair<std::size_t, const compare::CaseComparison*>> ranked;
  for (const compare::CaseComparison& c : report.cases) {
    const auto r = rank.find(case_key(c.bench, c.params));
    ranked.emplace_back(r == rank.end() ? rank.size() : r->second, &c);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<const compare::CaseComparison*> cases;
  for (const auto& [r, c] : ranked) cases.push_back(c);
  return cases;
}

// The cases a comparison draws, in run order: all of them, or, past k_max_charted_cases, the
// regressions and improvements with the largest changes, then the other largest changes.
std::vector<const compare::CaseComparison*> charted_cases(const compare::ComparisonReport& report,
                                                          const RunData& current,
                                                          const RunData& base) {
  std::vector<const compare::CaseComparison*> cases = in_run_order(report, current, base);
  if (cases.size() <= k_max_charted_cases) return cases;
  std::vector<const compare::CaseComparison*> largest = cases;
  const auto decided = [](const compare::CaseComparison* c) {
    return c->verdict == compare::Verdict::regression ||
           c->verdict == compare::Verdict::improvement;
  };
  std::stable_sort(largest.begin(), largest.end(), [&](const auto* a, const auto* b) {
    if (decided(a) != decided(b)) return decided(a);
    return (a->change ? std::abs(*a->change) : -1.0) > (b->change ? std::abs(*b->change) : -1.0);
  });
  largest.resize(k_max_charted_cases);
  const std::set<const compare::CaseComparison*> keep(largest.begin(), largest.end());
  std::erase_if(cases, [&](const auto* c) { return keep.count(c) == 0; });
  return cases;
}

// The one-paragraph reading of a comparison: gate, counts, the largest changes, environment.
Paragraph comparison_summary(const compare::ComparisonReport& report, const std::string& base_name,
                             const std::string& current_name) {
  using compare::Verdict;
  Text text{strong(report.gate_pass ? "Gate: passes." : "Gate: fails.")};
  const std::string counts = verdict_counts(report);
  text.push_back(plain(" " + current_name + " against " + base_name + ": " +
                       (counts.empty() ? std::string("nothing to compare") : counts) + " among " +
                       plural(report.cases.size(), "comparison", "comparisons") + "."));
  if (report.accepted > 0) {
    text.push_back(plain(" " + plural(report.accepted, "case is", "cases are") +
                         " accepted by a note and " + (report.accepted == 1 ? "does" : "do") +
                         " not fail the gate."));
  }
  text.push_back(plain(
      " A change counts when it lies beyond ±" + percent_of(report.threshold) +
      " (unless a per-benchmark threshold says otherwise) and is significant at a false "
      "discovery rate of " +
      percent_of(report.alpha) + " (" + test_name(report.test) + "); unchanged means the whole " +
      percent_of(1 - report.alpha) + " interval lies within the threshold."));
  // The largest change each way among significant verdicts.
  const compare::CaseComparison* worst = nullptr;
  const compare::CaseComparison* best = nullptr;
  for (const compare::CaseComparison& c : report.cases) {
    if (!c.change) continue;
    if (c.verdict == Verdict::regression &&
        (!worst || std::fabs(*c.change) > std::fabs(*worst->change)))
      worst = &c;
    if (c.verdict == Verdict::improvement &&
        (!best || std::fabs(*c.change) > std::fabs(*best->change)))
      best = &c;
  }
  // A case, its metric, the change and its interval; the verdict too when it is not one of
  // the significant ones, so that an estimate is never read as a finding.
  const auto change_text = [&](const compare::CaseComparison& c, bool with_verdict) {
    for (Span& span : comparison_case_text(c)) text.push_back(std::move(span));
    std::string detail = " " + c.metric + " " + format_change(*c.change);
    std::vector<std::string> notes;
    if (c.ci_low && c.ci_high)
      notes.push_back("interval " + format_change(*c.ci_low) + " to " + format_change(*c.ci_high));
    if (with_verdict) notes.push_back(verdict_text(c));
    for (std::size_t i = 0; i < notes.size(); ++i)
      detail += (i == 0 ? " (" : ", ") + notes[i] + (i + 1 == notes.size() ? ")" : "");
    text.push_back(plain(detail));
  };
  const auto describe = [&](const char* what, const compare::CaseComparison& c) {
    text.push_back(plain(std::string(" ") + what + ": "));
    change_text(c, false);
    text.push_back(plain("."));
  };
  if (worst) describe("Largest regression", *worst);
  if (best) describe("Largest improvement", *best);
  if (!worst && !best) {
    // Nothing counts, but the reader still wants to see what moved: the largest estimate
    // upwards and downwards (the first in compare's order on a tie), each with its verdict.
    const compare::CaseComparison* up = nullptr;
    const compare::CaseComparison* down = nullptr;
    for (const compare::CaseComparison& c : report.cases) {
      if (!c.change || !std::isfinite(*c.change)) continue;
      if (*c.change > 0 && (!up || *c.change > *up->change)) up = &c;
      if (*c.change < 0 && (!down || *c.change < *down->change)) down = &c;
    }
    if (up || down) {
      text.push_back(plain(up && down ? " No change counts; the largest estimates: "
                                      : " No change counts; the largest estimate: "));
      if (up) change_text(*up, true);
      if (up && down) text.push_back(plain(" and "));
      if (down) change_text(*down, true);
      text.push_back(plain("."));
    }
  }
  if (!report.env_differences.empty()) {
    text.push_back(plain(
        " The environments differ (" + plural(report.env_differences.size(), "field", "fields") +
        ", see Warnings): part of any change may come from the machine, not the code."));
  }
  return Paragraph{std::move(text), "summary"};
}

ChartGroup comparison_distributions(const ReportInput& input, const RunData& current,
                                    const compare::ComparisonReport& report) {
  ChartGroup group;
  group.heading = "Distributions: " + run_name(input.base->run) + " and " + run_name(current.run);
  group.level = 3;
  group.intro = {plain(
      "Every sample of each compared metric (one per repetition), over a box from the first to the "
      "third quartile with the median as a bar and whiskers to the extremes.")};
  const CaseIndex base_index(*input.base), current_index(current);
  for (const compare::CaseComparison* case_ptr : charted_cases(report, current, *input.base)) {
    const compare::CaseComparison& c = *case_ptr;
    const std::vector<double> base = samples_of(base_index, c.bench, c.params, c.metric);
    const std::vector<double> now = samples_of(current_index, c.bench, c.params, c.metric);
    if (base.size() < 2 && now.size() < 2) continue;
    std::vector<double> all = base;
    all.insert(all.end(), now.begin(), now.end());
    const DisplayUnit shown = display_unit(max_abs(all), c.unit);
    const auto scaled = [&](const std::vector<double>& values) {
      std::vector<double> out;
      for (double v : values) out.push_back(v * shown.factor);
      return out;
    };
    DistributionChart chart;
    chart.title =
        c.bench + (c.params.empty() ? "" : " " + params_text(c.params)) + " · " + verdict_text(c);
    chart.unit = shown.unit;
    chart.axis_label = axis_label(c.metric, shown) +
                       (c.better == Better::lower ? ", lower is better" : ", higher is better");
    if (!base.empty())
      chart.groups.push_back({"base: " + run_name(input.base->run), scaled(base), 1});
    if (!now.empty()) chart.groups.push_back({run_name(current.run), scaled(now), 0});
    group.charts.emplace_back(std::move(chart));
  }
  if (report.cases.size() > k_max_charted_cases) {
    const Text note = summarised_note(
        report.cases.size(), "with the largest changes (regressions and improvements first)");
    group.intro.insert(group.intro.end(), note.begin(), note.end());
  }
  return group;
}

void add_comparisons(Document& doc, const ReportInput& input) {
  if (!input.base) return;
  const std::string base_name = run_name(input.base->run);
  for (const ComparisonSection& section : input.comparisons) {
    const auto current = std::find_if(input.runs.begin(), input.runs.end(), [&](const RunData& d) {
      return d.run.header.id == section.current_run_id;
    });
    if (current == input.runs.end()) continue;
    const compare::ComparisonReport& report = section.report;
    const std::string current_name = run_name(current->run);
    doc.blocks.emplace_back(Heading{2, "Comparison: " + current_name + " against " + base_name});
    doc.blocks.emplace_back(comparison_summary(report, base_name, current_name));
    if (report.cases.empty()) continue;
    Table table;
    table.header = {"case",
                    "verdict",
                    "metric",
                    "base",
                    "current",
                    "change",
                    percent_of(1 - report.alpha) + " interval",
                    "p (adj.)",
                    "samples"};
    table.align = {Align::left,  Align::left,  Align::left,  Align::right, Align::right,
                   Align::right, Align::right, Align::right, Align::right};
    BulletList remarks;
    std::vector<const Params*> all_params;
    for (const compare::CaseComparison& c : report.cases) all_params.push_back(&c.params);
    const Params common = common_params(all_params);
    for (const compare::CaseComparison* case_ptr : in_run_order(report, *current, *input.base)) {
      const compare::CaseComparison& c = *case_ptr;
      const auto value = [&](const std::optional<double>& v, const std::string& unit) {
        return v ? format_quantity(*v, unit) : std::string(k_missing);
      };
      std::vector<Cell> row;
      row.push_back(Cell{case_text(c.bench, without(c.params, common)), {}, {}});
      // The verdict comes second so that a narrow screen shows it without scrolling.
      const bool bold = c.fails_gate;
      row.push_back(
          Cell{{bold ? strong(verdict_text(c)) : plain(verdict_text(c))},
               c.accepted ? std::string("accepted") : std::string(compare::to_string(c.verdict)),
               verdict_icon(c)});
      row.push_back(Cell{{code(c.metric)}, {}, {}});
      row.push_back(text_cell(value(c.base_center, c.base_unit)));
      row.push_back(text_cell(value(c.current_center, c.unit)));
      row.push_back(text_cell(c.change ? format_change(*c.change) : std::string(k_missing)));
      row.push_back(text_cell(c.ci_low && c.ci_high
                                  ? format_change(*c.ci_low) + " to " + format_change(*c.ci_high)
                                  : std::string(k_missing)));
      row.push_back(text_cell(c.p_adjusted ? p_text(*c.p_adjusted) : std::string(k_missing)));
      row.push_back(text_cell(format_integer(static_cast<std::int64_t>(c.base_n)) + " / " +
                              format_integer(static_cast<std::int64_t>(c.current_n))));
      table.rows.push_back(std::move(row));

      std::string remark;
      if (c.accepted)
        remark = "accepted by note " + c.accepted->note + " (" + c.accepted->author +
                 "): " + c.accepted->text;
      if (c.verdict == compare::Verdict::inconclusive && c.detectable &&
          std::isfinite(*c.detectable)) {
        remark += std::string(remark.empty() ? "" : "; ") +
                  "these samples could detect a change of ±" + percent_of(*c.detectable) +
                  " or more";
      }
      if (!c.remark.empty()) remark += std::string(remark.empty() ? "" : "; ") + c.remark;
      if (!remark.empty()) {
        Text item = case_text(c.bench, without(c.params, common));
        item.push_back(plain(" "));
        item.push_back(code(c.metric));
        item.push_back(plain(": " + remark));
        remarks.items.push_back(std::move(item));
      }
    }
    doc.blocks.emplace_back(std::move(table));
    if (!common.empty()) doc.blocks.emplace_back(common_params_note(common));
    doc.blocks.emplace_back(Paragraph{{plain("change: current over base minus one, from the "
                                             "Hodges–Lehmann estimate; interval: its " +
                                             percent_of(1 - report.alpha) +
                                             " confidence interval; p (adj.): the test's p-value "
                                             "adjusted for the number of comparisons "
                                             "(Benjamini–Hochberg); samples: base / current.")},
                                      "note"});
    if (!remarks.items.empty()) doc.blocks.emplace_back(std::move(remarks));
    ChartGroup charts = comparison_distributions(input, *current, report);
    if (!charts.charts.empty()) doc.blocks.emplace_back(std::move(charts));
  }
}

// Which param varies: for each numeric param of a bench, the cases are grouped by all their
// other params, and a group of two cases or more, which then differ in that param alone, is a
// slice. A param that moves in step with another one (the input statistics the executors
// suite records next to its workload) never differs alone, so it yields no slice: a table
// "by len_mean" would credit a difference of workloads to a number that merely describes
// them. The price: a size with a derived count beside it gets no table either, since the
// report cannot tell which of the two is the cause.
std::vector<ScalingSlice> slices_of(const std::vector<const ResultRecord*>& results) {
  std::vector<std::string> benches;
  std::map<std::string, std::vector<const ResultRecord*>> by_bench;
  for (const ResultRecord* r : results) {
    if (by_bench.find(r->bench) == by_bench.end()) benches.push_back(r->bench);
    by_bench[r->bench].push_back(r);
  }
  std::vector<ScalingSlice> slices;
  for (const std::string& bench : benches) {
    const auto& cases = by_bench[bench];
    if (cases.size() < 2) continue;
    std::set<std::string> keys;
    for (const ResultRecord* r : cases) {
      for (const auto& [key, value] : r->params) keys.insert(key);
    }
    for (const std::string& key : keys) {
      bool all_numeric = true;
      std::set<double> distinct;
      for (const ResultRecord* r : cases) {
        const auto it = r->params.find(key);
        const std::optional<double> v = it == r->params.end() ? std::nullopt : numeric(it->second);
        if (!v) {
          all_numeric = false;
          break;
        }
        distinct.insert(*v);
      }
      if (!all_numeric || distinct.size() < k_min_scaling_points) continue;
      // Group by the other params, in the order the groups first appear.
      std::vector<std::string> order;
      std::map<std::string, ScalingSlice> groups;
      for (const ResultRecord* r : cases) {
        Params fixed = r->params;
        fixed.erase(key);
        const std::string group_key = case_key(bench, fixed);
        auto [it, inserted] = groups.try_emplace(group_key);
        if (inserted) {
          order.push_back(group_key);
          it->second.bench = bench;
          it->second.param = key;
          it->second.fixed = std::move(fixed);
        }
        it->second.cases.push_back(r);
      }
      for (const std::string& group_key : order) {
        ScalingSlice& slice = groups[group_key];
        if (slice.cases.size() < k_min_scaling_points) continue;
        std::stable_sort(slice.cases.begin(), slice.cases.end(),
                         [&](const ResultRecord* a, const ResultRecord* b) {
                           return *numeric(a->params.at(key)) < *numeric(b->params.at(key));
                         });
        for (const ResultRecord* r : slice.cases)
          slice.values.push_back(*numeric(r->params.at(key)));
        slices.push_back(std::move(slice));
      }
    }
  }
  return slices;
}

// The scaling tables and curves of one suite, under its results table. Their titles leave out
// the params that every row of the suite has (`common`): the note under that table names them.
// `budget` is how many more slices the report may draw (k_max_charted_cases in all); the slices
// past it are counted in `left_out`.
void add_scaling(Document& doc, const std::vector<const ResultRecord*>& results,
                 const Params& common, std::size_t& budget, std::size_t& left_out) {
  const std::vector<ScalingSlice> slices = slices_of(results);
  std::size_t i = 0;
  while (i < slices.size()) {
    if (budget == 0) {
      left_out += slices.size() - i;
      return;
    }
    // Slices of one (bench, param) share a chart.
    std::vector<const ScalingSlice*> same;
    const ScalingSlice& first = slices[i];
    while (i < slices.size() && slices[i].bench == first.bench && slices[i].param == first.param &&
           budget > 0) {
      same.push_back(&slices[i]);
      ++i;
      --budget;
    }
    for (const ScalingSlice* s : same) {
      std::string title = "Scaling: " + s->bench + " by " + s->param;
      const Params fixed = without(s->fixed, common);
      if (!fixed.empty()) title += " (" + params_text(fixed) + ")";
      doc.blocks.emplace_back(Heading{4, title});
      const std::string param = s->param;
      doc.blocks.emplace_back(results_table(
          s->cases, param,
          [param](const ResultRecord& r) { return text_cell(to_string(r.params.at(param))); },
          Align::right));
    }
    doc.blocks.emplace_back(scaling_charts(same, common));
  }
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

void add_trends(Document& doc, const ReportInput& input) {
  ChartGroup charts = trend_charts(input);
  if (charts.charts.empty()) return;
  charts.heading = "Trends";
  charts.intro = {plain(fmt::format(
      "Each case's primary metric (the median of its samples, with a band from "
      "the smallest to the largest "
      "sample) across the last {} of the ledger that measured it.",
      input.history == 1 ? std::string("run")
                         : format_integer(static_cast<std::int64_t>(input.history)) + " runs"))};
  if (input.trends.size() > k_max_charted_cases) {
    const Text note =
        summarised_note(input.trends.size(), "whose newest run moved most from the one before");
    charts.intro.insert(charts.intro.end(), note.begin(), note.end());
  }
  doc.blocks.emplace_back(std::move(charts));
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

std::vector<ScalingSlice> scaling_slices(const std::vector<ResultRecord>& results) {
  std::vector<const ResultRecord*> all;
  for (const ResultRecord& r : results) all.push_back(&r);
  return slices_of(all);
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
    intro.push_back(strong(r.gate_pass ? "Gate: passes" : "Gate: fails"));
    intro.push_back(
        plain(input.comparisons.size() > 1 ? " for " + section.current_run_id : std::string()));
    intro.push_back(plain(
        " (" + plural(r.count(compare::Verdict::regression), "regression", "regressions") + ", " +
        plural(r.count(compare::Verdict::improvement), "improvement", "improvements") + ")."));
  }
  doc.blocks.emplace_back(Paragraph{std::move(intro), {}});

  add_runs(doc, input);
  add_environment(doc, input);
  add_comparisons(doc, input);
  add_results(doc, input);
  add_trends(doc, input);
  if (input.comparisons.empty()) {
    ChartGroup distributions = distribution_charts(input);
    if (!distributions.charts.empty()) doc.blocks.emplace_back(std::move(distributions));
  }
  add_warnings(doc, input);
  return doc;
}

}  // namespace benchledger::report
