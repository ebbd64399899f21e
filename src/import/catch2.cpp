// Catch2's XML reporter (`-r xml`) with BENCHMARK results to result records.
#include <algorithm>

#include <benchledger/error.hpp>

#include "import/file_environment.hpp"
#include "import/import.hpp"
#include "import/json_input.hpp"
#include "import/xml_input.hpp"

namespace benchledger::import {

namespace {

using namespace detail;

class Catch2Reader {
 public:
  explicit Catch2Reader(const std::string& origin) : m_origin(origin) {}

  void walk(const XmlElement& element, const std::string& test_case, const std::string& sections) {
    for (const XmlElement& child : element.children) {
      if (child.name == "TestCase") {
        walk(child, required(child, "name"), "");
      } else if (child.name == "Section") {
        const std::string name = required(child, "name");
        walk(child, test_case, sections.empty() ? name : sections + "/" + name);
      } else if (child.name == "BenchmarkResults") {
        benchmark(child, test_case, sections);
      } else {
        walk(child, test_case, sections);
      }
    }
  }

  ImportedResults& imported() { return m_imported; }

 private:
  std::string where(const XmlElement& e) const {
    return m_origin + ":" + std::to_string(e.line) + ": <" + e.name + ">";
  }

  std::string required(const XmlElement& e, const char* key) const {
    const auto value = e.attribute(key);
    if (!value) throw Error(where(e) + ": attribute " + key + " is missing");
    return *value;
  }

  double number_attribute(const XmlElement& e, const char* key) const {
    const std::string text = required(e, key);
    const ParamValue value = param_value(text);
    if (const auto* i = std::get_if<std::int64_t>(&value)) return static_cast<double>(*i);
    if (const auto* d = std::get_if<double>(&value)) return *d;
    throw Error(where(e) + ": attribute " + key + ": expected a number, got \"" + text + "\"");
  }

  std::int64_t count_attribute(const XmlElement& e, const char* key) const {
    const std::string text = required(e, key);
    const ParamValue value = param_value(text);
    const auto* i = std::get_if<std::int64_t>(&value);
    if (i == nullptr || *i < 0)
      throw Error(where(e) + ": attribute " + key + ": expected a non-negative integer, got \"" +
                  text + "\"");
    return *i;
  }

  const XmlElement* child(const XmlElement& e, std::string_view name) const {
    for (const XmlElement& c : e.children)
      if (c.name == name) return &c;
    return nullptr;
  }

  // <mean value lowerBound upperBound ci/> as {"value", "lower_bound", "upper_bound", "ci"}.
  json estimate(const XmlElement& e) const {
    return {{"value", number_attribute(e, "value")},
            {"lower_bound", number_attribute(e, "lowerBound")},
            {"upper_bound", number_attribute(e, "upperBound")},
            {"ci", number_attribute(e, "ci")}};
  }

  void benchmark(const XmlElement& e, const std::string& test_case, const std::string& sections) {
    const std::string name = required(e, "name");
    Params params;
    if (!test_case.empty()) params["test_case"] = test_case;
    if (!sections.empty()) params["section"] = sections;
    const std::int64_t samples = count_attribute(e, "samples");
    const std::int64_t iterations = count_attribute(e, "iterations");
    if (const XmlElement* failed = child(e, "failed")) {
      m_imported.results.push_back(
          failed_result(name, failed->attribute("message").value_or("the benchmark failed"), 1, 1));
      m_imported.results.back().params = params;
      return;
    }
    const XmlElement* mean = child(e, "mean");
    if (mean == nullptr)
      throw Error(where(e) + ": " + name + ": no <mean> (the estimate of its time)");
    ResultRecord r = new_result(name, params);
    // Catch2 2.x writes no samples: its estimate of the mean, in nanoseconds ("All values in
    // nano seconds"), is the one value; its other statistics stay beside it.
    r.metrics["time"] = single_value_metric("ns", Better::lower, number_attribute(*mean, "value"));
    json statistics = {{"samples", samples}, {"iterations", iterations}, {"mean", estimate(*mean)}};
    if (const XmlElement* stddev = child(e, "standardDeviation"))
      statistics["standard_deviation"] = estimate(*stddev);
    if (const XmlElement* outliers = child(e, "outliers")) {
      statistics["outliers"] = {{"variance", number_attribute(*outliers, "variance")},
                                {"low_mild", count_attribute(*outliers, "lowMild")},
                                {"low_severe", count_attribute(*outliers, "lowSevere")},
                                {"high_mild", count_attribute(*outliers, "highMild")},
                                {"high_severe", count_attribute(*outliers, "highSevere")}};
    }
    r.header.extra["tool_statistics"] = std::move(statistics);
    r.primary = "time";
    r.ops = samples * iterations;
    r.errors = 0;
    m_imported.results.push_back(std::move(r));
  }

  const std::string& m_origin;
  ImportedResults m_imported;
};

}  // namespace

ImportedResults read_catch2_xml(std::string_view xml_text, const std::string& origin) {
  require_utf8(xml_text, origin);
  const XmlElement root = parse_xml(xml_text, origin);
  if (root.name != "Catch" && root.name != "Catch2TestRun")
    throw Error(origin + ":" + std::to_string(root.line) + ": the root element is <" + root.name +
                ">, not Catch2's <Catch> or <Catch2TestRun>");
  // Catch2 writes the run's totals last, just before it closes the root: a document without
  // them was closed by something other than Catch2.
  const bool totals = std::any_of(root.children.begin(), root.children.end(),
                                  [](const XmlElement& e) { return e.name == "OverallResults"; });
  if (!totals)
    throw Error(origin + ":" + std::to_string(root.line) + ": <" + root.name +
                "> ends without Catch2's closing <OverallResults>: " + std::string(k_cut_short));
  Catch2Reader reader(origin);
  reader.walk(root, "", "");
  ImportedResults& imported = reader.imported();
  if (imported.results.empty())
    throw Error(origin +
                ": no <BenchmarkResults> (build the tests with "
                "CATCH_CONFIG_ENABLE_BENCHMARKING and run them with -r xml)");
  imported.warnings.push_back(origin +
                              ": Catch2's XML has no samples, only each benchmark's mean: "
                              "compare can judge it by the threshold alone");
  FileEnvironment& file = imported.environment;
  if (const auto version = root.attribute("catch2-version")) file.tool_version = *version;
  if (const auto name = root.attribute("name")) file.facts["executable"] = *name;
  if (const auto seed = root.attribute("rng-seed")) file.facts["rng_seed"] = *seed;
  note_given_fields(file);
  return std::move(imported);
}

}  // namespace benchledger::import
