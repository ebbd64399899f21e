// asv's (airspeed velocity) results JSON (`results/MACHINE/COMMIT-ENV.json`, version 2) to
// result records, with the benchmarks' declarations from results/benchmarks.json when given.
#include <benchledger/error.hpp>

#include "import/file_environment.hpp"
#include "import/import.hpp"
#include "import/json_input.hpp"

namespace benchledger::import {

namespace {

using namespace detail;

// asv writes params as Python reprs: '8', "'abc'", 'None'.
ParamValue asv_param(const std::string& repr) {
  if (repr.size() >= 2 && (repr.front() == '\'' || repr.front() == '"') &&
      repr.back() == repr.front())
    return repr.substr(1, repr.size() - 2);
  return param_value(repr);
}

std::optional<std::int64_t> integer_text(const json& object, const std::string& key) {
  const auto text = optional_text(object, key);
  if (!text) return optional_integer(object, key);
  const ParamValue value = param_value(*text);
  if (const auto* i = std::get_if<std::int64_t>(&value)) return *i;
  return std::nullopt;
}

void read_machine(const json& document, FileEnvironment& file) {
  const auto params = document.find("params");
  if (params == document.end() || !params->is_object()) return;
  Env& env = file.env;
  env.host = optional_text(*params, "machine");
  env.cpu.model = optional_text(*params, "cpu");
  env.cpu.arch = optional_text(*params, "arch");
  env.cpu.logical = integer_text(*params, "num_cpu");
  env.memory.total_bytes = integer_text(*params, "ram");
  // "Linux 6.1.0-18-amd64": the system, then the kernel's release as uname -r gives it.
  if (const auto os = optional_text(*params, "os")) {
    file.facts["os"] = *os;
    if (const auto space = os->find(' '); space != std::string::npos)
      env.os.kernel = os->substr(space + 1);
  }
  // A version (`3.11`) when asv made the environment, the interpreter's path with `existing`.
  if (const auto python = optional_text(*params, "python")) {
    if (python->find_first_not_of("0123456789.") == std::string::npos) {
      env.runtimes.python = "Python " + *python;
    } else {
      file.facts["python"] = *python;
    }
  }
}

struct Declaration {
  std::string type;  // time, mem, peakmem, track
  std::string unit;  // seconds, bytes, or a track's own unit
  std::vector<std::string> param_names;
};

// From results/benchmarks.json when given, else from the name's prefix as asv itself decides.
Declaration declaration_of(const std::string& name, const json& declarations,
                           const std::string& declarations_origin) {
  Declaration d;
  const std::string function = name.substr(name.rfind('.') + 1);
  for (const char* prefix : {"time", "peakmem", "mem", "track", "timeraw"}) {
    if (starts_with(function, std::string(prefix) + "_")) {
      d.type = prefix == std::string("timeraw") ? "time" : prefix;
      break;
    }
  }
  const auto declared = declarations.is_object() ? declarations.find(name) : declarations.end();
  if (declarations.is_object() && declared != declarations.end()) {
    const std::string path = name;
    d.type = text_or(*declared, "type", d.type, path, declarations_origin);
    d.unit = text_or(*declared, "unit", "", path, declarations_origin);
    if (const auto names = declared->find("param_names"); names != declared->end()) {
      if (!names->is_array()) fail(declarations_origin, path + ".param_names", "expected an array");
      for (std::size_t i = 0; i < names->size(); ++i)
        d.param_names.push_back(text((*names)[i], path + ".param_names[" + std::to_string(i) + "]",
                                     declarations_origin));
    }
  }
  if (d.unit.empty()) d.unit = d.type == "time" ? "seconds" : d.type == "track" ? "unit" : "bytes";
  return d;
}

// asv's unit names as the ledger's: seconds → s, bytes stay, a track's `unit` is a count.
std::pair<std::string, std::string> metric_of(const Declaration& d) {
  if (d.type == "time") return {"time", d.unit == "seconds" ? "s" : d.unit};
  if (d.type == "mem" || d.type == "peakmem") return {"memory", d.unit};
  return {"value", d.unit == "unit" ? "count" : d.unit};
}

// The columns of the results' rows by name, once the document is asv's version 2 with the
// `result` and `params` columns.
std::map<std::string, std::size_t> asv_columns(const json& document, const std::string& origin) {
  const json& version = member(document, "version", "", origin);
  if (version != 2)
    fail(origin, "version",
         "asv results version " + version.dump() + ", expected 2 (asv 0.5 and later)");
  const json& columns = member(document, "result_columns", "", origin);
  if (!columns.is_array()) fail(origin, "result_columns", "expected an array");
  std::map<std::string, std::size_t> column;
  for (std::size_t i = 0; i < columns.size(); ++i)
    column[text(columns[i], "result_columns[" + std::to_string(i) + "]", origin)] = i;
  for (const char* required : {"result", "params"})
    if (column.count(required) == 0)
      fail(origin, "result_columns", std::string("no \"") + required + "\" column");
  return column;
}

// The environment the file states: the machine, the date and asv's facts of the run.
void read_asv_environment(const json& document, FileEnvironment& file) {
  read_machine(document, file);
  if (const auto date = optional_integer(document, "date"))
    file.measured_at = rfc3339_of_milliseconds(*date);
  for (const char* key : {"commit_hash", "env_name", "requirements", "env_vars"})
    if (const auto it = document.find(key); it != document.end()) file.facts[key] = *it;
  note_given_fields(file);
}

// A results file being read: where it and its declarations came from, its columns, and whether
// a time without samples was warned about (once a file).
struct AsvFile {
  const std::string& origin;
  const json& declarations;
  const std::string& declarations_origin;
  std::map<std::string, std::size_t> column;
  bool warned = false;
};

// One benchmark's row of results: its cells by column name, and each cell's path for messages.
struct AsvRow {
  const json& row;
  const std::map<std::string, std::size_t>& column;
  std::string path;

  // The cell of a column, or nullptr when the file has no such column or the row is short.
  const json* cell(const char* key) const {
    const auto it = column.find(key);
    if (it == column.end() || it->second >= row.size()) return nullptr;
    return &row[it->second];
  }
  std::string cell_path(const char* key) const {
    return path + "[" + std::to_string(column.at(key)) + "]";
  }
};

// The combinations in asv's order: itertools.product, the last param varying fastest.
std::vector<Params> asv_combinations(const AsvRow& row, const json& params,
                                     const Declaration& declared, const std::string& origin) {
  std::vector<Params> combinations(1);
  for (std::size_t p = 0; p < params.size(); ++p) {
    const std::string params_path = row.cell_path("params") + "[" + std::to_string(p) + "]";
    const json& list = params[p];
    if (!list.is_array() || list.empty()) fail(origin, params_path, "expected a non-empty array");
    const std::string param_name =
        p < declared.param_names.size() ? declared.param_names[p] : "param" + std::to_string(p + 1);
    std::vector<Params> next;
    for (const Params& before : combinations) {
      for (std::size_t v = 0; v < list.size(); ++v) {
        Params extended = before;
        extended[param_name] =
            asv_param(text(list[v], params_path + "[" + std::to_string(v) + "]", origin));
        next.push_back(std::move(extended));
      }
    }
    combinations = std::move(next);
  }
  return combinations;
}

// Adds a benchmark's results, one per param combination: its samples when asv recorded them,
// else its one value; a failed result where asv recorded none.
void read_asv_benchmark(const std::string& name, const json& row, AsvFile& file,
                        ImportedResults& imported) {
  const std::string& origin = file.origin;
  const AsvRow cells{row, file.column, "results." + name};
  if (!row.is_array()) fail(origin, cells.path, "expected an array, one entry per result_columns");
  const json* values = cells.cell("result");
  if (values == nullptr || !values->is_array())
    fail(origin, cells.cell_path("result"), "expected an array of results");
  const json* params = cells.cell("params");
  if (params == nullptr || !params->is_array())
    fail(origin, cells.cell_path("params"), "expected an array of param value lists");
  const Declaration declared = declaration_of(name, file.declarations, file.declarations_origin);
  const std::vector<Params> combinations = asv_combinations(cells, *params, declared, origin);
  if (values->size() != combinations.size())
    fail(origin, cells.cell_path("result"),
         std::to_string(values->size()) + " results for " + std::to_string(combinations.size()) +
             " param combinations");
  const json* samples = cells.cell("samples");
  const json* number = cells.cell("stats_number");
  const auto [metric, unit] = metric_of(declared);
  for (std::size_t i = 0; i < combinations.size(); ++i) {
    const std::string value_path = cells.cell_path("result") + "[" + std::to_string(i) + "]";
    const json& value = (*values)[i];
    if (value.is_null()) {
      ResultRecord failed =
          failed_result(name, "asv recorded no result (the benchmark failed or was skipped)", 1, 1);
      failed.params = combinations[i];
      imported.results.push_back(std::move(failed));
      continue;
    }
    ResultRecord r = new_result(name, combinations[i]);
    std::int64_t ops = 1;
    const json* own_samples =
        samples != nullptr && samples->is_array() && i < samples->size() ? &(*samples)[i] : nullptr;
    if (own_samples != nullptr && own_samples->is_array() && !own_samples->empty()) {
      std::vector<double> kept;
      const std::string samples_path = cells.cell_path("samples") + "[" + std::to_string(i) + "]";
      for (std::size_t k = 0; k < own_samples->size(); ++k)
        kept.push_back(detail::number((*own_samples)[k],
                                      samples_path + "[" + std::to_string(k) + "]", origin));
      ops = static_cast<std::int64_t>(kept.size());
      r.metrics[metric] = metric_from_samples(unit, Better::lower, std::move(kept));
    } else {
      r.metrics[metric] =
          single_value_metric(unit, Better::lower, detail::number(value, value_path, origin));
      if (declared.type == "time" && !file.warned) {
        imported.warnings.push_back(origin +
                                    ": no samples (run asv with --record-samples to compare "
                                    "with statistics)");
        file.warned = true;
      }
    }
    // Each sample is the mean of stats_number calls.
    if (number != nullptr && number->is_array() && i < number->size() &&
        (*number)[i].is_number_integer()) {
      const std::string number_path =
          cells.cell_path("stats_number") + "[" + std::to_string(i) + "]";
      multiply_count(ops, std::max<std::int64_t>(count((*number)[i], number_path, origin), 1),
                     number_path, origin);
    }
    r.primary = metric;
    r.ops = ops;
    r.errors = 0;
    imported.results.push_back(std::move(r));
  }
}

}  // namespace

ImportedResults read_asv(std::string_view json_text, const std::string& origin,
                         std::string_view benchmarks_json, const std::string& benchmarks_origin) {
  const json document = parse_json(json_text, origin);
  const json declarations =
      benchmarks_json.empty() ? json() : parse_json(benchmarks_json, benchmarks_origin);
  if (!declarations.is_null() && !declarations.is_object())
    fail(benchmarks_origin, "", "expected an object of benchmark declarations");
  AsvFile file{origin, declarations, benchmarks_origin, asv_columns(document, origin)};
  const json& results = member(document, "results", "", origin);
  if (!results.is_object()) fail(origin, "results", "expected an object");

  ImportedResults imported;
  read_asv_environment(document, imported.environment);
  for (const auto& item : results.items())
    read_asv_benchmark(item.key(), item.value(), file, imported);
  if (imported.results.empty()) fail(origin, "results", "no benchmark results");
  return imported;
}

}  // namespace benchledger::import
