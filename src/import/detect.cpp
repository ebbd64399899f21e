// `--import auto`: a file's format from its content.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <tuple>

#include <benchledger/error.hpp>

#include "import/import.hpp"
#include "import/json_input.hpp"
#include "model/lines.hpp"

namespace benchledger::import {

namespace {

// Whether a line of `text` is one `go test -bench` writes: `goos: …`, or a result,
// `BenchmarkX[-N] ITERATIONS VALUE UNIT…` (a name, blanks, digits, a blank). Read by hand: a
// regular expression over a long line without blanks recurses once a character in libstdc++.
bool has_go_test_line(std::string_view text) {
  const auto blank = [](char c) { return c == ' ' || c == '\t'; };
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  for (const model::TextLine& text_line : model::Lines(text)) {
    const std::string_view line = text_line.text;
    if (line.starts_with("goos: ")) return true;
    if (!line.starts_with("Benchmark")) continue;
    std::size_t i = 0;
    while (i < line.size() && !blank(line[i])) ++i;
    const std::size_t name_end = i;
    while (i < line.size() && blank(line[i])) ++i;
    const std::size_t digits = i;
    while (i < line.size() && digit(line[i])) ++i;
    if (i > name_end && digits > name_end && i > digits && i < line.size() && blank(line[i]))
      return true;
  }
  return false;
}

using detail::json;

// `text` with every number no double holds (1e400, a 400-digit integer) written as 0, for
// detection, which looks at names, not numbers: the importer then refuses the number, naming its
// field.
std::string without_overflowing_numbers(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    const char c = text[at];
    if (c == '"') {  // a string, escapes included, as it is
      const std::size_t start = at++;
      while (at < text.size() && text[at] != '"') at += text[at] == '\\' ? 2 : 1;
      at = std::min(at + 1, text.size());
      out += text.substr(start, at - start);
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      const std::size_t start = at;
      while (at < text.size() &&
             std::string_view("0123456789+-.eE").find(text[at]) != std::string_view::npos)
        ++at;
      const std::string_view number = text.substr(start, at - start);
      // Out of range (from_chars: whatever the locale) is 0 here, underflow included: either
      // reads as a number, and detection does not look at its value.
      double value = 0;
      const auto parsed = std::from_chars(number.data(), number.data() + number.size(), value);
      out += parsed.ec == std::errc::result_out_of_range ? std::string_view("0") : number;
    } else {
      out += c;
      ++at;
    }
  }
  return out;
}

// `text` as detection reads it, or discarded when it is not JSON. Detection looks at the top
// three levels only, so arrays and objects deeper than four are dropped while parsing: a
// document nested 2,000,000 deep is never built (the importer then refuses it, naming where).
json shallow_json(std::string_view text) {
  const json::parser_callback_t shallow = [](int depth, json::parse_event_t event, json&) {
    return depth < 4 || (event != json::parse_event_t::object_start &&
                         event != json::parse_event_t::array_start);
  };
  json document = json::parse(text, shallow, /*allow_exceptions=*/false);
  if (document.is_discarded()) {
    const std::string neutral = without_overflowing_numbers(text);
    if (neutral != text) document = json::parse(neutral, shallow, /*allow_exceptions=*/false);
  }
  return document;
}

// Whether the parser meets the end of `text` before its document closes: a file cut short, whose
// format detection cannot tell. Everything is discarded while parsing: nothing deep is built.
bool ends_inside_json(std::string_view text) {
  try {
    std::ignore = json::parse(text, [](int, json::parse_event_t, json&) { return false; });
  } catch (const json::parse_error& e) {
    return e.byte >= text.size();
  } catch (const json::exception&) {
    // a number no double holds: not where the text ends
  }
  return false;
}

bool has_array(const json& document, const char* key) {
  const auto it = document.find(key);
  return it != document.end() && it->is_array();
}

// vitest's report is {"files": [{"filepath", "groups": [...]}]}; tinybench's serialised tasks are
// an array of {"name", "result": {"state", ...}}.
std::optional<std::string> vitest_or_tinybench(const json& document) {
  if (document.is_object() && has_array(document, "files")) {
    const json& files = document["files"];
    if (!files.empty() && files[0].is_object() && files[0].contains("groups")) return "vitest";
  }
  if (document.is_array() && !document.empty() && document[0].is_object()) {
    const auto result = document[0].find("result");
    if (document[0].contains("name") && result != document[0].end() && result->is_object() &&
        result->contains("state"))
      return "tinybench";
  }
  return std::nullopt;
}

// Rust criterion and JMH: criterion's files by the members of benchmark.json, sample.json and
// estimates.json; cargo-criterion's messages (and cargo's among them) by `reason`; JMH's
// document is an array of benchmarks.
std::optional<std::string> criterion_or_jmh(const json& document) {
  if (document.is_object()) {
    const bool criterion_file = (document.contains("group_id") && document.contains("full_id")) ||
                                (document.contains("iters") && document.contains("times")) ||
                                (document.contains("mean") && document.contains("median_abs_dev"));
    if (criterion_file || document.contains("reason")) return "criterion";
  }
  if (document.is_array() && !document.empty() && document[0].is_object() &&
      (document[0].contains("jmhVersion") || document[0].contains("primaryMetric")))
    return "jmh";
  return std::nullopt;
}

// The JSON formats, by the members only each of them writes at the top.
std::optional<std::string> json_format(const json& document) {
  if (auto format = vitest_or_tinybench(document)) return format;
  if (!document.is_object()) return criterion_or_jmh(document);
  if (has_array(document, "benchmarks")) {
    if (document.contains("layout")) return "mitata";
    if (document.contains("context")) return "google-benchmark";
    if (document.contains("machine_info")) return "pytest-benchmark";
    const json& first = document["benchmarks"].empty() ? json() : document["benchmarks"][0];
    if (first.is_object() && first.contains("runs")) return "pyperf";
    if (first.is_object() && first.contains("stats")) return "pytest-benchmark";
    if (first.is_object() && (first.contains("real_time") || first.contains("run_type")))
      return "google-benchmark";
  }
  if (document.contains("result_columns") && document.contains("results")) return "asv";
  if (has_array(document, "results")) {
    const json& results = document["results"];
    if (!results.empty() && results[0].is_object() && results[0].contains("command"))
      return "hyperfine";
  }
  return criterion_or_jmh(document);
}

}  // namespace

std::string detect_format(std::string_view text, const std::string& origin) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && (text[first] == '{' || text[first] == '[')) {
    const json document = shallow_json(text);
    if (!document.is_discarded()) {
      if (auto format = json_format(document)) return *format;
    } else {
      // Not one document: `go test -json` writes one event object a line.
      const json event = shallow_json(model::Lines(text).begin()->text);  // the first line
      if (event.is_object() && event.contains("Action")) return "go-test";
      if (auto format = criterion_or_jmh(event)) return *format;
      if (ends_inside_json(text))
        throw Error(origin + ": --import auto: a JSON document that ends before it closes: " +
                    std::string(detail::k_cut_short) + " (name the format to see where)");
    }
  } else if (first != std::string_view::npos && text[first] == '<') {
    // Catch2's root element: <Catch name=...> (2.x) or <Catch2TestRun ...> (3.x).
    const std::string_view head = text.substr(0, 4096);
    for (const std::string_view root : {"<Catch ", "<Catch>", "<Catch2TestRun"})
      if (head.find(root) != std::string_view::npos) return "catch2";
  } else {
    if (has_go_test_line(text.substr(0, 1 << 20))) return "go-test";
  }
  throw Error(origin +
              ": --import auto: not a format benchledger recognises (google-benchmark, hyperfine, "
              "pytest-benchmark, go-test, pyperf, catch2, asv, mitata, criterion, jmh, vitest, "
              "tinybench): name the format instead of auto if it is one");
}

}  // namespace benchledger::import
