// The Runs and Environment sections: one column per run (the base first), one row per field of
// the run record or of its environment, rows marked where compare finds the environments differ.
#include <algorithm>
#include <functional>
#include <iterator>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "env/env.hpp"
#include "model/redact.hpp"
#include "report/content_sections.hpp"
#include "report/format.hpp"

namespace benchledger::report::content {
namespace {

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

std::optional<std::string> on_off(const std::optional<bool>& value) {
  if (!value) return std::nullopt;
  return *value ? "on" : "off";
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

// `name` (`?` when unknown) and its detail between `before` and `after`, when it has one:
// `Debian GNU/Linux 12`, `? (x86_64)`; nullopt when neither is known.
std::optional<std::string> with_detail(const std::optional<std::string>& name,
                                       const std::optional<std::string>& detail,
                                       const std::string& before, const std::string& after = "") {
  if (!name && !detail) return std::nullopt;
  std::string text = name.value_or("?");
  if (detail) text += before + *detail + after;
  return text;
}

std::optional<std::string> count_of(const std::optional<std::int64_t>& v, const char* what) {
  if (!v) return std::nullopt;
  return format_integer(*v) + " " + what;
}

std::optional<std::string> bytes_of(const std::optional<std::int64_t>& v) {
  if (!v) return std::nullopt;
  return format_quantity(static_cast<double>(*v), "bytes");
}

std::optional<std::string> cpu_cores(const RunRecord& r) {
  const CpuInfo& cpu = r.env.cpu;
  return join_known({count_of(cpu.logical, "logical"), count_of(cpu.physical, "physical"),
                     cpu.sockets
                         ? std::optional<std::string>(format_integer(*cpu.sockets) +
                                                      (*cpu.sockets == 1 ? " socket" : " sockets"))
                         : std::nullopt});
}

std::optional<std::string> cpus_usable(const RunRecord& r) {
  const CpuInfo& cpu = r.env.cpu;
  // quota null means no cgroup limit (docs/environment.md); online and affinity null mean
  // unknown.
  return join_known({count_of(cpu.online, "online"), count_of(cpu.affinity, "in affinity"),
                     std::optional<std::string>(
                         cpu.quota ? fmt::format("quota {:g} CPUs", *cpu.quota) : "no quota")});
}

std::optional<std::string> caches(const RunRecord& r) {
  const CacheBytes& c = r.env.cpu.cache_bytes;
  const auto level = [](const char* name,
                        const std::optional<std::int64_t>& v) -> std::optional<std::string> {
    if (!v) return std::nullopt;
    return std::string(name) + " " + *bytes_of(v);
  };
  return join_known({level("L1d", c.l1d), level("L2", c.l2), level("L3", c.l3)});
}

std::optional<std::string> postgres_settings(const RunRecord& r) {
  if (!r.env.postgres) return std::nullopt;
  const PostgresSettings& pg = *r.env.postgres;
  const auto named = [](const char* name, const std::optional<std::string>& value) {
    return value ? std::optional<std::string>(std::string(name) + " " + *value) : std::nullopt;
  };
  std::optional<std::string> host;
  if (pg.same_host) host = *pg.same_host ? "same host" : "another host";
  return join_known({named("shared_buffers", pg.shared_buffers),
                     named("synchronous_commit", pg.synchronous_commit), named("fsync", pg.fsync),
                     named("max_connections", pg.max_connections), named("wal_level", pg.wal_level),
                     named("work_mem", pg.work_mem), host});
}

std::optional<std::string> load_average(const RunRecord& r) {
  if (!r.env.load_avg) return std::nullopt;
  std::string text;
  for (double v : *r.env.load_avg) text += (text.empty() ? "" : ", ") + fmt::format("{:.2f}", v);
  return text;
}

// The Environment table's rows of the machine: host, CPU, memory.
std::vector<EnvField> machine_fields() {
  return {
      {"Host", [](const RunRecord& r) { return r.env.host; }},
      {"CPU",
       [](const RunRecord& r) { return with_detail(r.env.cpu.model, r.env.cpu.arch, " (", ")"); },
       {"cpu.model", "cpu.vendor", "cpu.arch"}},
      {"CPU cores", cpu_cores, {"cpu.logical", "cpu.physical", "cpu.sockets"}},
      {"CPUs usable", cpus_usable, {"cpu.online", "cpu.affinity", "cpu.quota"}},
      {"CPU frequency",
       [](const RunRecord& r) -> std::optional<std::string> {
         if (!r.env.cpu.mhz) return std::nullopt;
         return format_number(*r.env.cpu.mhz, 4) + " MHz";
       }},
      {"Governor", [](const RunRecord& r) { return r.env.cpu.governor; }},
      {"Turbo", [](const RunRecord& r) { return on_off(r.env.cpu.turbo); }},
      {"SMT", [](const RunRecord& r) { return on_off(r.env.cpu.smt); }},
      {"Caches", caches},
      {"Memory",
       [](const RunRecord& r) { return bytes_of(r.env.memory.total_bytes); },
       {"memory.total_bytes"}},
      {"Memory limit",
       [](const RunRecord& r) -> std::optional<std::string> {
         // null means no cgroup limit (docs/environment.md).
         if (!r.env.memory.limit_bytes) return std::string("none");
         return bytes_of(r.env.memory.limit_bytes);
       },
       {"memory.limit_bytes"}},
  };
}

// The Environment table's rows of the system and the software: OS, container, clock, runtimes.
std::vector<EnvField> software_fields() {
  return {
      {"OS",
       [](const RunRecord& r) { return with_detail(r.env.os.name, r.env.os.version, " "); },
       {"os.name", "os.version"}},
      {"Kernel", [](const RunRecord& r) { return r.env.os.kernel; }, {"os.kernel"}},
      {"Virtualization",
       [](const RunRecord& r) { return r.env.virtualization; },
       {"virtualization"}},
      {"Container",
       [](const RunRecord& r) {
         return with_detail(r.env.container.kind, r.env.container.docker_version, ", Docker ");
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
      {"Java", [](const RunRecord& r) { return r.env.runtimes.java; }, {"runtimes.java"}, true},
      {"PostgreSQL client",
       [](const RunRecord& r) { return r.env.runtimes.postgres_client; },
       {"runtimes.postgres_client"},
       true},
      {"PostgreSQL server",
       [](const RunRecord& r) { return r.env.runtimes.postgres_server; },
       {"runtimes.postgres_server"},
       true},
      {"PostgreSQL settings",
       postgres_settings,
       {"postgres.shared_buffers", "postgres.synchronous_commit", "postgres.fsync",
        "postgres.max_connections", "postgres.wal_level", "postgres.work_mem",
        "postgres.same_host"},
       true},
      {"Load average", load_average},
      {"Fingerprint",
       [](const RunRecord& r) -> std::optional<std::string> {
         if (r.env.fingerprint.empty()) return std::nullopt;
         return r.env.fingerprint.substr(0, 12);
       },
       env::comparability_fields()},
  };
}

// The rows of the Environment table, in order.
std::vector<EnvField> env_fields() {
  std::vector<EnvField> fields = machine_fields();
  std::vector<EnvField> software = software_fields();
  fields.insert(fields.end(), std::make_move_iterator(software.begin()),
                std::make_move_iterator(software.end()));
  return fields;
}

// A table with a column per run, headed by its name, after the column of row names.
Table per_run_table(const ReportInput& input) {
  Table table;
  table.header.push_back("");
  table.align.push_back(Align::left);
  for (const std::string& h : run_headers(input)) {
    table.header.push_back(h);
    table.align.push_back(Align::left);
  }
  return table;
}

}  // namespace

void add_runs(Document& doc, const ReportInput& input) {
  const std::vector<const RunRecord*> runs = all_runs(input);
  Table table = per_run_table(input);
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
  Table table = per_run_table(input);
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

}  // namespace benchledger::report::content
