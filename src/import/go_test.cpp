// `go test -bench` output, as text or as `go test -json` events, to result records.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <sstream>

#include <benchledger/error.hpp>

#include "import/file_environment.hpp"
#include "import/import.hpp"
#include "import/json_input.hpp"
#include "model/lines.hpp"

namespace benchledger::import {

namespace {

using namespace detail;

// The text of `go test -json`'s events in order: its `output` actions, whose Output fields
// split lines anywhere (a benchmark's name and its numbers come as two events). The events'
// first Time is when the run started.
struct GoEvents {
  std::string output;
  std::optional<std::string> started;
  // The packages whose events began, in order, and whether each ended (a package-level `pass`,
  // `fail` or `skip`, the action go test writes last for a package).
  std::vector<std::pair<std::string, bool>> packages;
  bool cut_mid_event = false;  // the last line is part of an event
};

GoEvents read_events(std::string_view events, const std::string& origin, Partial partial) {
  GoEvents read;
  for (const model::TextLine& line : model::Lines(events)) {
    const std::string where = origin + ":" + std::to_string(line.number);
    json event;
    try {
      event = parse_json(line.text, where);
    } catch (const Error&) {
      // A killed go test stops inside an event: the complete ones before it may still be kept.
      if (line.terminated || partial == Partial::refuse) throw;
      read.cut_mid_event = true;
      break;
    }
    const std::string action = text(member(event, "Action", "", where), "Action", where);
    if (!read.started) read.started = optional_text(event, "Time");
    const std::string package = optional_text(event, "Package").value_or("");
    auto known = std::find_if(read.packages.begin(), read.packages.end(),
                              [&](const auto& p) { return p.first == package; });
    if (known == read.packages.end())
      known = read.packages.insert(read.packages.end(), {package, false});
    if (!event.contains("Test") && (action == "pass" || action == "fail" || action == "skip"))
      known->second = true;
    if (action != "output") continue;
    read.output += text(member(event, "Output", "", where), "Output", where);
  }
  return read;
}

// The lines go test writes after a package's tests and benchmarks: PASS or FAIL from the test
// binary, then `ok  \tPKG\tTIME` or `FAIL\tPKG\tTIME` from go test.
bool is_closing_line(const std::string& line) {
  return line == "PASS" || line == "FAIL" || starts_with(line, "ok  ") ||
         starts_with(line, "ok\t") || starts_with(line, "FAIL\t") || starts_with(line, "FAIL ");
}

struct GoMetric {
  std::string unit;
  std::vector<double> samples;
};

struct GoBenchmark {
  std::string bench;
  Params params;
  std::int64_t iterations = 0;
  std::size_t lines = 0;           // its result lines: one per -count
  std::vector<std::string> order;  // metric names as first seen
  std::map<std::string, GoMetric> metrics;
};

// `ns/op` → time, `B/op` → bytes, `allocs/op` → allocs, `MB/s` → throughput; any other unit
// (b.ReportMetric) is a metric named by its unit.
std::string metric_name(const std::string& unit) {
  if (unit == "ns/op") return "time";
  if (unit == "B/op") return "bytes";
  if (unit == "allocs/op") return "allocs";
  if (unit == "MB/s") return "throughput";
  return unit;
}

std::string record_unit(const std::string& unit) {
  if (unit == "ns/op") return "ns";
  if (unit == "B/op") return "B";
  if (unit == "allocs/op") return "count";
  return unit;
}

// BenchmarkSum/size=8-4: bench BenchmarkSum, params size=8 and procs=4 (GOMAXPROCS, which go
// appends when it is not 1). Parts without `=` stay in the name.
void split_name(const std::string& full, GoBenchmark& b) {
  std::string name = full;
  if (const auto dash = name.rfind('-');
      dash != std::string::npos && dash + 1 < name.size() &&
      name.find_first_not_of("0123456789", dash + 1) == std::string::npos) {
    b.params["procs"] = param_value(name.substr(dash + 1));
    name.resize(dash);
  }
  std::string bench;
  std::stringstream parts(name);
  std::string part;
  bool first = true;
  while (std::getline(parts, part, '/')) {
    const auto equals = part.find('=');
    if (!first && equals != std::string::npos && equals > 0) {
      b.params[part.substr(0, equals)] = param_value(part.substr(equals + 1));
    } else {
      bench += (bench.empty() ? "" : "/") + part;
    }
    first = false;
  }
  b.bench = bench;
}

// go test's output as text: the events' joined output, or the input itself, without the line go
// test was still writing when it ends in one.
struct GoOutput {
  bool events = false;  // the input is go test -json's events
  GoEvents read;        // what the events say besides their output (with events only)
  std::string text;
  bool cut_mid_line = false;
  std::string place;  // the prefix of a line's place in messages
};

// The input as go test's output, its events read when it is `go test -json`'s.
GoOutput go_output(std::string_view input, const std::string& origin, Partial partial) {
  GoOutput output;
  const std::size_t first = input.find_first_not_of(" \t\r\n");
  output.events = first != std::string_view::npos && input[first] == '{';
  if (output.events) output.read = read_events(input, origin, partial);
  output.text = output.events ? output.read.output : std::string(input);
  std::string& text = output.text;
  // A line without its newline is one go test was still writing: `12.3` may be `12.34 ns/op`.
  output.cut_mid_line =
      !text.empty() && text.back() != '\n' && !is_closing_line(text.substr(text.rfind('\n') + 1));
  if (output.cut_mid_line) text.resize(text.rfind('\n') + 1);
  // With -json a line number is one of the joined output, not of the file.
  output.place = output.events ? origin + ": output line " : origin + ":";
  return output;
}

// What the lines of go test's output say: the benchmarks, by package and name in the order
// first seen, and where the output ends.
struct GoLines {
  std::vector<std::string> order;
  std::map<std::string, GoBenchmark> benchmarks;
  std::vector<std::string> packages;
  std::string package;                        // the last `pkg:` line's
  std::string last_line_key, last_line_name;  // the last result line's benchmark
  std::size_t last_line_sample = 0;
  bool closed = false;  // a closing line after the last result line
};

// A `goos:`, `goarch:`, `cpu:` or `pkg:` line into the environment or the current package.
void read_go_header(const std::string& line, FileEnvironment& file, GoLines& read) {
  const auto header = [&](const std::string& key) -> std::optional<std::string> {
    if (!starts_with(line, key + ": ")) return std::nullopt;
    return line.substr(key.size() + 2);
  };
  if (const auto goos = header("goos")) {
    file.facts["goos"] = *goos;  // linux, not the distribution os.name holds
  } else if (const auto arch = header("goarch")) {
    file.facts["goarch"] = *arch;
    // As uname -m (and so the environment of other runs) names the architecture.
    file.env.cpu.arch = *arch == "amd64" ? "x86_64" : *arch == "arm64" ? "aarch64" : *arch;
  } else if (const auto cpu = header("cpu")) {
    file.env.cpu.model = *cpu;
  } else if (const auto pkg = header("pkg")) {
    read.package = *pkg;
    if (std::find(read.packages.begin(), read.packages.end(), read.package) == read.packages.end())
      read.packages.push_back(read.package);
  }
}

// The `VALUE UNIT` pairs after a result line's iterations; throws on a value without its unit
// or that is not a number.
std::vector<std::pair<double, std::string>> go_measurements(std::istringstream& fields,
                                                            const std::string& where) {
  std::vector<std::pair<double, std::string>> values;
  std::string value_text, unit;
  while (fields >> value_text) {
    if (!(fields >> unit)) throw Error(where + ": \"" + value_text + "\" has no unit after it");
    // from_chars, not stod: go writes '.' whatever the importing process's locale.
    double value = 0;
    const char* end = value_text.data() + value_text.size();
    const auto [at, error] = std::from_chars(value_text.data(), end, value);
    if (error != std::errc() || at != end || !std::isfinite(value))
      throw Error(where + ": expected a number before \"" + unit + "\", got \"" + value_text +
                  "\"");
    values.emplace_back(value, unit);
  }
  return values;
}

// A `BenchmarkName  N  V unit ...` line as one more sample of its benchmark; any other line
// starting with Benchmark (a name alone, or with its log output) is left alone.
void read_go_result_line(const std::string& line, const std::string& where, GoLines& read) {
  std::istringstream fields(line);
  std::string name, iterations_text;
  fields >> name >> iterations_text;
  if (iterations_text.empty() ||
      iterations_text.find_first_not_of("0123456789") != std::string::npos)
    return;
  const ParamValue iterations = param_value(iterations_text);
  if (!std::holds_alternative<std::int64_t>(iterations))
    throw Error(where + ": " + name + ": " + iterations_text + " iterations is out of range");
  const std::vector<std::pair<double, std::string>> values = go_measurements(fields, where);
  if (values.empty()) throw Error(where + ": " + name + ": no measurement after the iterations");
  const std::string key = read.package + '\n' + name;
  if (read.benchmarks.count(key) == 0) {
    read.order.push_back(key);
    split_name(name, read.benchmarks[key]);
    if (!read.package.empty()) read.benchmarks[key].params["pkg"] = read.package;
  }
  GoBenchmark& b = read.benchmarks[key];
  read.closed = false;
  read.last_line_key = key;
  read.last_line_name = name;
  read.last_line_sample = b.lines + 1;
  if (__builtin_add_overflow(b.iterations, std::get<std::int64_t>(iterations), &b.iterations))
    throw Error(where + ": " + name + ": the iterations of its -count lines add up beyond " +
                "the largest count");
  for (const auto& [value, unit_text] : values) {
    const std::string metric = metric_name(unit_text);
    if (b.metrics.count(metric) == 0) {
      b.order.push_back(metric);
      b.metrics[metric].unit = record_unit(unit_text);
    }
    b.metrics[metric].samples.push_back(value);
  }
  ++b.lines;
}

// Reads every line of the output: headers into the environment, result lines into benchmarks.
GoLines read_go_lines(const GoOutput& output, FileEnvironment& file) {
  GoLines read;
  for (const model::TextLine& text_line : model::Lines(output.text)) {
    const std::string line(text_line.text);
    read_go_header(line, file, read);
    if (is_closing_line(line)) read.closed = true;
    if (!starts_with(line, "Benchmark")) continue;
    read_go_result_line(line, output.place + std::to_string(text_line.number), read);
  }
  return read;
}

// A benchmark's result: a metric per unit, time primary when it has one.
ResultRecord go_result(const GoBenchmark& b) {
  ResultRecord r = new_result(b.bench);
  r.params = b.params;
  for (const std::string& name : b.order) {
    const GoMetric& m = b.metrics.at(name);
    const bool higher = ends_with(m.unit, "/s");
    r.metrics[name] =
        metric_from_samples(m.unit, higher ? Better::higher : Better::lower, m.samples);
  }
  r.primary = r.metrics.count("time") != 0 ? "time" : b.order.front();
  r.ops = b.iterations;
  r.errors = 0;
  return r;
}

// Where an output without its end stops and what it lacks, for cut_short.
std::string go_ending(const GoOutput& output, const GoLines& read) {
  std::string unended;
  for (const auto& [name, closed_package] : output.read.packages) {
    if (!closed_package && !name.empty()) unended += (unended.empty() ? "" : ", ") + name;
  }
  return "ends after " + read.last_line_name + "'s " + ordinal(read.last_line_sample) + " sample" +
         (output.cut_mid_line || output.read.cut_mid_event ? " and part of a line" : "") +
         ", without " +
         (output.events ? "go test -json's package \"pass\" or \"fail\" event" +
                              (unended.empty() ? std::string() : " for " + unended)
                        : std::string("go test's closing \"ok\" or \"FAIL\" line"));
}

}  // namespace

ImportedResults read_go_test(std::string_view input, const std::string& origin, Partial partial) {
  require_utf8(input, origin);
  ImportedResults imported;
  FileEnvironment& file = imported.environment;
  const GoOutput output = go_output(input, origin, partial);
  file.measured_at = output.read.started;
  GoLines read = read_go_lines(output, file);
  if (read.order.empty())
    throw Error(
        origin + ": no benchmark result lines (`BenchmarkName  N  V unit`)" +
        (output.cut_mid_line || output.read.cut_mid_event ? ": " + std::string(k_cut_short) : ""));
  // go test writes each benchmark's -count lines together and names no count: the benchmark the
  // output ends in is the one that may lack samples, those before it are whole.
  const bool ended = output.events
                         ? !output.read.cut_mid_event &&
                               std::all_of(output.read.packages.begin(), output.read.packages.end(),
                                           [](const auto& p) { return p.second; })
                         : read.closed && !output.cut_mid_line;
  const std::string dropped_key = ended ? std::string() : read.last_line_key;
  // pkg is a param only where it tells cases apart: a file of one package leaves it out.
  for (const std::string& key : read.order) {
    GoBenchmark& b = read.benchmarks[key];
    if (key == dropped_key) continue;
    if (read.packages.size() <= 1) b.params.erase("pkg");
    imported.results.push_back(go_result(b));
  }
  if (read.packages.size() == 1) file.facts["pkg"] = read.packages.front();
  note_given_fields(file);
  if (!ended) {
    const GoBenchmark& dropped = read.benchmarks[dropped_key];
    cut_short(imported, partial, origin, go_ending(output, read),
              {read.last_line_name + " (" + std::to_string(dropped.lines) +
               (dropped.lines == 1 ? " sample)" : " samples)")});
  }
  return imported;
}

}  // namespace benchledger::import
