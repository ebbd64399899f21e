// A team's own log, NDJSON lines or CSV rows, read through a `--map` (docs/import.md, "Mapped
// logs").
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include <benchledger/error.hpp>

#include "import/import.hpp"
#include "import/json_input.hpp"
#include "model/lines.hpp"

namespace benchledger::import {

namespace {

using namespace detail;

// One side of a `KEY=SOURCE` entry: a field of each line (`.name`) or a literal.
struct Source {
  bool field = false;
  std::string text;               // the field's name (without its dot) or the literal
  std::string entry;              // the entry as written, for messages: `value=.ms`
  std::vector<std::string> path;  // NDJSON: the members of a dotted field, outermost first
};

struct Mapping {
  Source bench, value, unit;
  std::optional<Source> metric, better;
  std::vector<std::pair<std::string, Source>> params;  // param name, source
};

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

[[noreturn]] void bad_mapping(const std::string& origin, const std::string& entry,
                              const std::string& problem) {
  throw Error(origin + ": --map \"" + entry + "\": " + problem);
}

Mapping parse_mapping(const std::string& spec, const std::string& origin) {
  require_utf8(spec, "--map");
  if (spec.empty())
    throw Error(origin + ": --map is empty: give at least bench=.FIELD,value=.FIELD,unit=UNIT");
  Mapping mapping;
  std::set<std::string> seen;
  for (const std::string& entry : split(spec, ',')) {
    const std::size_t equals = entry.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == entry.size())
      bad_mapping(origin, entry, "expected KEY=SOURCE (SOURCE a field .NAME or a literal)");
    const std::string key = entry.substr(0, equals);
    const std::string raw = entry.substr(equals + 1);
    Source source;
    source.entry = entry;
    source.field = raw[0] == '.';
    source.text = source.field ? raw.substr(1) : raw;
    if (source.field) {
      source.path = split(source.text, '.');
      for (const std::string& part : source.path)
        if (part.empty()) bad_mapping(origin, entry, "a field name is empty");
    }
    if (key != "params" && !seen.insert(key).second)
      bad_mapping(origin, entry, "\"" + key + "\" is mapped twice");
    if (key == "bench") {
      mapping.bench = source;
    } else if (key == "value") {
      if (!source.field) bad_mapping(origin, entry, "value must be a field of the line (.NAME)");
      mapping.value = source;
    } else if (key == "unit") {
      mapping.unit = source;
    } else if (key == "metric") {
      mapping.metric = source;
    } else if (key == "better") {
      if (!source.field && raw != "lower" && raw != "higher")
        bad_mapping(origin, entry, "better is lower, higher or a field (.NAME)");
      mapping.better = source;
    } else if (key == "params") {
      if (!source.field)
        bad_mapping(origin, entry,
                    "params must be a field (.NAME); for a constant use param.NAME=");
      mapping.params.emplace_back(source.path.back(), source);
    } else if (starts_with(key, "param.") && key.size() > 6) {
      mapping.params.emplace_back(key.substr(6), source);
    } else {
      bad_mapping(origin, entry,
                  "unknown key \"" + key +
                      "\" (known: bench, value, unit, metric, better, params, param.NAME)");
    }
  }
  for (const char* required : {"bench", "value", "unit"}) {
    if (seen.count(required) == 0)
      throw Error(origin + ": --map \"" + spec + "\": " + required + "= is missing");
  }
  return mapping;
}

// The value of one source on one line, as text or as a JSON value; nullopt when the line
// lacks the field.
using FieldLookup = std::function<std::optional<json>(const Source&)>;

struct Case {
  std::string bench;
  Params params;
  std::string metric, unit;
  Better better = Better::lower;
  std::vector<double> samples;
};

class CaseCollector {
 public:
  CaseCollector(Mapping mapping, std::string origin)
      : m_mapping(std::move(mapping)), m_origin(std::move(origin)) {}

  void add_line(std::size_t line, const FieldLookup& lookup) {
    const std::string where = m_origin + ":" + std::to_string(line);
    const auto get = [&](const Source& source) -> json {
      if (!source.field) return source.text;
      std::optional<json> value = lookup(source);
      if (!value || value->is_null())
        throw Error(where + ": field \"." + source.text + "\" is missing (mapped by " +
                    source.entry + ")");
      return *value;
    };
    const auto as_text = [&](const Source& source) -> std::string {
      const json value = get(source);
      if (value.is_string()) return value.get<std::string>();
      if (value.is_number()) return value.dump();
      throw Error(where + ": field \"." + source.text + "\" (mapped by " + source.entry +
                  "): expected a string or a number, got " + value.dump());
    };
    Case incoming;
    incoming.bench = as_text(m_mapping.bench);
    if (incoming.bench.empty())
      throw Error(where + ": field \"." + m_mapping.bench.text + "\" (mapped by " +
                  m_mapping.bench.entry + ") is empty");
    for (const auto& [name, source] : m_mapping.params) {
      const json value = get(source);
      if (value.is_number_integer()) {
        incoming.params[name] = value.get<std::int64_t>();
      } else if (value.is_number()) {
        incoming.params[name] = value.get<double>();
      } else {
        incoming.params[name] = param_value(as_text(source));
      }
    }
    incoming.unit = as_text(m_mapping.unit);
    if (incoming.unit.empty())
      throw Error(where + ": the unit (mapped by " + m_mapping.unit.entry + ") is empty");
    static const std::set<std::string> time_units = {"ns", "us", "ms", "s"};
    incoming.metric = m_mapping.metric                       ? as_text(*m_mapping.metric)
                      : time_units.count(incoming.unit) != 0 ? "time"
                                                             : "value";
    if (m_mapping.better) {
      const std::string better = as_text(*m_mapping.better);
      if (better != "lower" && better != "higher")
        throw Error(where + ": field \"." + m_mapping.better->text + "\" (mapped by " +
                    m_mapping.better->entry + "): expected lower or higher, got \"" + better +
                    "\"");
      incoming.better = better == "higher" ? Better::higher : Better::lower;
    }
    const json value = get(m_mapping.value);
    double number = 0;
    if (value.is_number()) {
      number = value.get<double>();
    } else if (value.is_string() && m_csv) {
      const ParamValue parsed = param_value(value.get<std::string>());
      if (const auto* i = std::get_if<std::int64_t>(&parsed)) {
        number = static_cast<double>(*i);
      } else if (const auto* d = std::get_if<double>(&parsed)) {
        number = *d;
      } else {
        throw Error(where + ": field \"." + m_mapping.value.text + "\" (mapped by " +
                    m_mapping.value.entry + "): expected a number, got \"" +
                    value.get<std::string>() + "\"");
      }
    } else {
      throw Error(where + ": field \"." + m_mapping.value.text + "\" (mapped by " +
                  m_mapping.value.entry + "): expected a number, got " + value.dump());
    }
    if (!std::isfinite(number))
      throw Error(where + ": field \"." + m_mapping.value.text + "\" (mapped by " +
                  m_mapping.value.entry + "): expected a finite number");

    const std::string key = case_key(incoming.bench, incoming.params);
    auto it = m_cases.find(key);
    if (it == m_cases.end()) {
      m_order.push_back(key);
      incoming.samples.push_back(number);
      m_cases.emplace(key, std::move(incoming));
      return;
    }
    Case& known = it->second;
    if (known.unit != incoming.unit || known.metric != incoming.metric ||
        known.better != incoming.better) {
      throw Error(where + ": " + incoming.bench + ": " + incoming.metric + " in " + incoming.unit +
                  " differs from the earlier lines' " + known.metric + " in " + known.unit);
    }
    known.samples.push_back(number);
  }

  ImportedResults results() const {
    if (m_order.empty()) throw Error(m_origin + ": no lines to import");
    ImportedResults imported;
    for (const std::string& key : m_order) {
      const Case& c = m_cases.at(key);
      ResultRecord r = new_result(c.bench, c.params);
      r.metrics[c.metric] = metric_from_samples(c.unit, c.better, c.samples);
      r.primary = c.metric;
      r.ops = static_cast<std::int64_t>(c.samples.size());
      r.errors = 0;
      imported.results.push_back(std::move(r));
    }
    return imported;
  }

  void set_csv() { m_csv = true; }

 private:
  Mapping m_mapping;
  std::string m_origin;
  bool m_csv = false;
  std::vector<std::string> m_order;
  std::map<std::string, Case> m_cases;
};

std::vector<const Source*> field_sources(const Mapping& mapping) {
  std::vector<const Source*> sources = {&mapping.bench, &mapping.value, &mapping.unit};
  if (mapping.metric) sources.push_back(&*mapping.metric);
  if (mapping.better) sources.push_back(&*mapping.better);
  for (const auto& param : mapping.params) sources.push_back(&param.second);
  std::erase_if(sources, [](const Source* s) { return !s->field; });
  return sources;
}

// One CSV record from `text` at `pos` (RFC 4180: quoted fields may hold commas, doubled quotes
// and line breaks); advances pos and line past it.
std::vector<std::string> csv_record(std::string_view text, std::size_t& pos, std::size_t& line,
                                    const std::string& origin) {
  std::vector<std::string> fields(1);
  const std::size_t first_line = line;
  bool quoted = false, was_quoted = false;
  while (pos < text.size()) {
    const char c = text[pos++];
    if (quoted) {
      if (c == '"' && pos < text.size() && text[pos] == '"') {
        fields.back() += '"';
        ++pos;
      } else if (c == '"') {
        quoted = false;
      } else {
        if (c == '\n') ++line;
        fields.back() += c;
      }
    } else if (c == '"' && fields.back().empty() && !was_quoted) {
      quoted = was_quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
      was_quoted = false;
    } else if (c == '\n') {
      ++line;
      break;
    } else if (c == '\r' && pos < text.size() && text[pos] == '\n') {
      continue;
    } else if (was_quoted) {
      throw Error(origin + ":" + std::to_string(line) + ": text after a closing quote");
    } else {
      fields.back() += c;
    }
  }
  if (quoted)
    throw Error(origin + ":" + std::to_string(first_line) +
                ": a quoted field is not closed before the end of the file");
  return fields;
}

}  // namespace

ImportedResults read_mapped_ndjson(std::string_view input, const std::string& origin,
                                   const std::string& mapping_text) {
  require_utf8(input, origin);
  CaseCollector collector(parse_mapping(mapping_text, origin), origin);
  for (const model::TextLine& line : model::Lines(input)) {
    const auto line_number = static_cast<std::size_t>(line.number);
    const std::string where = origin + ":" + std::to_string(line_number);
    const json object = parse_json(line.text, where);
    if (!object.is_object()) throw Error(where + ": expected a JSON object, got " + object.dump());
    collector.add_line(line_number, [&](const Source& source) -> std::optional<json> {
      const json* node = &object;
      for (const std::string& part : source.path) {
        if (!node->is_object()) return std::nullopt;
        const auto it = node->find(part);
        if (it == node->end()) return std::nullopt;
        node = &*it;
      }
      return *node;
    });
  }
  return collector.results();
}

ImportedResults read_mapped_csv(std::string_view input, const std::string& origin,
                                const std::string& mapping_text) {
  require_utf8(input, origin);
  const Mapping mapping = parse_mapping(mapping_text, origin);
  CaseCollector collector(mapping, origin);
  collector.set_csv();
  std::size_t pos = 0, line = 1;
  // The header: the first line that is not blank.
  std::vector<std::string> header;
  std::size_t header_line = 0;
  while (pos < input.size() && header.empty()) {
    header_line = line;
    std::vector<std::string> fields = csv_record(input, pos, line, origin);
    if (fields.size() == 1 && fields[0].find_first_not_of(" \t\r") == std::string::npos) continue;
    header = std::move(fields);
  }
  if (header.empty()) throw Error(origin + ": no header line (the column names)");
  std::map<std::string, std::size_t> column;
  for (std::size_t i = 0; i < header.size(); ++i) column.emplace(header[i], i);
  for (const Source* source : field_sources(mapping)) {
    if (column.count(source->text) == 0)
      throw Error(origin + ":" + std::to_string(header_line) + ": no column \"" + source->text +
                  "\" in the header (mapped by " + source->entry + ")");
  }
  while (pos < input.size()) {
    const std::size_t row_line = line;
    const std::vector<std::string> fields = csv_record(input, pos, line, origin);
    if (fields.size() == 1 && fields[0].find_first_not_of(" \t\r") == std::string::npos) continue;
    if (fields.size() != header.size())
      throw Error(origin + ":" + std::to_string(row_line) + ": " + std::to_string(fields.size()) +
                  " fields, the header has " + std::to_string(header.size()));
    collector.add_line(row_line, [&](const Source& source) -> std::optional<json> {
      const std::string& cell = fields[column.at(source.text)];
      if (cell.empty()) return std::nullopt;
      return json(cell);
    });
  }
  return collector.results();
}

}  // namespace benchledger::import
