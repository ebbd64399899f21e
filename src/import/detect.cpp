// `--import auto`: a file's format from its content.
#include <regex>

#include <benchledger/error.hpp>

#include "import/import.hpp"
#include "import/json_input.hpp"

namespace benchledger::import {

namespace {

using detail::json;

bool has_array(const json& document, const char* key) {
  const auto it = document.find(key);
  return it != document.end() && it->is_array();
}

// The JSON formats, by the members only each of them writes at the top.
std::optional<std::string> json_format(const json& document) {
  if (!document.is_object()) return std::nullopt;
  if (has_array(document, "benchmarks")) {
    if (document.contains("context")) return "google-benchmark";
    if (document.contains("machine_info")) return "pytest-benchmark";
    const json& first = document["benchmarks"].empty() ? json() : document["benchmarks"][0];
    if (first.is_object() && first.contains("runs")) return "pyperf";
    if (first.is_object() && first.contains("stats")) return "pytest-benchmark";
    if (first.is_object() && (first.contains("real_time") || first.contains("run_type")))
      return "google-benchmark";
  }
  if (has_array(document, "results")) {
    const json& results = document["results"];
    if (!results.empty() && results[0].is_object() && results[0].contains("command"))
      return "hyperfine";
  }
  return std::nullopt;
}

}  // namespace

std::string detect_format(std::string_view text, const std::string& origin) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') {
    const json document = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!document.is_discarded()) {
      if (auto format = json_format(document)) return *format;
    } else {
      // Not one document: `go test -json` writes one event object a line.
      const std::size_t end = text.find('\n', first);
      const json event = json::parse(
          text.substr(first, end == std::string_view::npos ? std::string_view::npos : end - first),
          nullptr, false);
      if (event.is_object() && event.contains("Action")) return "go-test";
    }
  } else {
    static const std::regex go_line(R"((^|\n)(Benchmark\S*\s+\d+\s|goos: ))");
    const std::string_view head = text.substr(0, 1 << 20);
    if (std::regex_search(head.begin(), head.end(), go_line)) return "go-test";
  }
  throw Error(origin +
              ": --import auto: not a format benchledger recognises (google-benchmark, hyperfine, "
              "pytest-benchmark, go-test, pyperf): name the format instead of auto if it is one");
}

}  // namespace benchledger::import
