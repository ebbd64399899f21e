// A program that sets a locale whose decimal point is a comma (a BENCHLEDGER_MAIN program or any
// user of the library may) gets the same bytes from import, compare and report as under the C
// locale: benchledger reads and writes numbers whatever the process's locale.
//
// The benchledger binary never calls setlocale, so it always runs in the C locale and LC_ALL
// changes nothing there: the locale is the library user's, and this test is such a user. It sets
// de_DE.UTF-8 through std::locale::global (which sets the C library's locale too), built with
// localedef into a scratch folder (LOCPATH) when the machine has none.
#include <clocale>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <locale>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include <benchledger/record.hpp>

#include "compare/comparison.hpp"
#include "env/env.hpp"
#include "import/import.hpp"
#include "import/pgbench.hpp"
#include "model/ranges.hpp"
#include "report/compare_render.hpp"
#include "report/format.hpp"
#include "report/report.hpp"
#include "support/golden.hpp"
#include "support/process.hpp"
#include "support/scratch_dir.hpp"
#include "unit/report/fixtures.hpp"

using namespace benchledger;
namespace fs = std::filesystem;
using Outputs = std::map<std::string, std::string>;

namespace {

constexpr const char* k_comma_locale = "de_DE.UTF-8";

// An imported file as one run, with fixed ids and times so that two imports give the same bytes.
report::RunData imported_run(import::ImportedResults imported, const std::string& id) {
  report::RunData data;
  data.run.header.id = id;
  data.run.header.time = "2026-11-27T06:00:00.000000Z";
  data.run.source = imported.format;
  data.run.env = imported.environment.env;
  data.run.env.fingerprint = env::fingerprint(data.run.env);
  data.run.warnings = imported.warnings;
  data.run.header.extra["facts"] = imported.environment.facts;
  int n = 0;
  for (ResultRecord& result : imported.results) {
    result.header.id = id.substr(0, 20) + std::to_string(100000 + n++);
    result.header.time = data.run.header.time;
    result.run = id;
    data.results.push_back(std::move(result));
  }
  return data;
}

std::string records_text(const report::RunData& data) {
  std::string text = serialize(data.run) + "\n";
  for (const ResultRecord& result : data.results) text += serialize(result) + "\n";
  return text;
}

// What import, compare and report write for the fixtures of every format, by name.
Outputs outputs(const test_support::ScratchDir& dir) {
  Outputs out;
  const fs::path fixtures = test_support::tests_dir("cli/import/fixtures");
  const fs::path pgbench = test_support::tests_dir("unit/import/pgbench");
  std::ofstream(dir / "log.csv") << "name,ms,size\nsort,1.25,8\nsort,1.5,8\nsum,0.75,64\n";
  std::ofstream(dir / "log.ndjson") << "{\"name\": \"sort\", \"ms\": 1.25, \"size\": 8}\n"
                                       "{\"name\": \"sort\", \"ms\": 1.5, \"size\": 8.5}\n";
  const std::string map = "bench=.name,value=.ms,unit=ms,params=.size";
  struct Import {
    std::string format, base, slowed, map;
  };
  const std::vector<Import> imports = {
      {"google-benchmark", "google-benchmark/base.json", "google-benchmark/slowed.json", ""},
      {"hyperfine", "hyperfine/base.json", "hyperfine/slowed.json", ""},
      {"pytest-benchmark", "pytest-benchmark/base.json", "pytest-benchmark/slowed.json", ""},
      {"go-test", "go-test/base.txt", "go-test/slowed.txt", ""},
      {"go-test", "go-test/base.json", "go-test/slowed.json", ""},
      {"pyperf", "pyperf/base.json", "pyperf/slowed.json", ""},
      {"catch2", "catch2/base.xml", "catch2/slowed.xml", ""},
      {"asv", "asv/results/fixture/base.json", "asv/results/fixture/slowed.json", ""},
      {"mitata", "mitata/base.json", "mitata/slowed.json", ""},
      {"criterion", "criterion/base", "criterion/slowed", ""},
      {"criterion", "criterion/messages.ndjson", "criterion/messages-slowed.ndjson", ""},
      {"jmh", "jmh/base.json", "jmh/slowed.json", ""},
      {"vitest", "vitest/base.json", "vitest/slowed.json", ""},
      {"tinybench", "tinybench/base.json", "tinybench/slowed.json", ""},
      {"auto", "go-test/base.txt", "go-test/slowed.txt", ""},
      {"csv", (dir / "log.csv").string(), (dir / "log.csv").string(), map},
      {"ndjson", (dir / "log.ndjson").string(), (dir / "log.ndjson").string(), map},
  };
  for (const Import& i : imports) {
    const auto path = [&](const std::string& name) {
      return i.map.empty() ? fixtures / name : fs::path(name);
    };
    const report::RunData base = imported_run(import::import_file(i.format, path(i.base), i.map),
                                              "01KB0000000000000000000001");
    const report::RunData slowed = imported_run(
        import::import_file(i.format, path(i.slowed), i.map), "01KB0000000000000000000002");
    const std::string name = i.format + " " + i.base;
    out["import " + name] = records_text(base) + records_text(slowed);

    const compare::ComparisonReport comparison = compare::compare_sides(
        {{base.run}, base.results}, {{slowed.run}, slowed.results}, {}, compare::CompareOptions{});
    out["compare table " + name] = report::render_comparison_table(comparison, false);
    out["compare markdown " + name] = report::render_comparison_markdown(comparison);
    out["compare json " + name] = report::render_comparison_json(comparison);
    out["compare junit " + name] = report::render_comparison_junit(comparison);
    out["compare csv " + name] = report::render_comparison_csv(comparison);

    // The report of one of them: rendering costs more than the rest together, and every number
    // it shows goes through the formatter that the comparisons' outputs already show.
    if (i.format == "go-test" && out.count("report html go-test") == 0) {
      report::ReportInput input;
      input.base = base;
      input.runs.push_back(slowed);
      input.comparisons.push_back({slowed.run.header.id, comparison});
      out["report markdown go-test"] = report::render_markdown(input);
      out["report html go-test"] = report::render_html(input);
    }
  }
  const auto run = import::import_pgbench(
      {pgbench / "tpcb_output.txt", pgbench / "pgbench_log.8595", pgbench / "pgbench_log.8595.1"});
  out["import pgbench"] = records_text(imported_run(run, "01KB0000000000000000000003"));

  // The report's own fixtures: percentiles, memory, errors, trends over many runs.
  report::ReportInput input;
  input.base = report::fixtures::baseline_run();
  input.runs.push_back(report::fixtures::current_run());
  input.comparisons.push_back(
      {input.runs[0].run.header.id,
       compare::compare_sides({{input.base->run}, input.base->results},
                              {{input.runs[0].run}, input.runs[0].results}, {}, {})});
  out["report markdown fixtures"] = report::render_markdown(input);
  out["report html fixtures"] = report::render_html(input);

  // Numbers from flags and config keys, and the formatter every output goes through.
  const auto threshold = model::parse_in_range(model::k_threshold_range, "2.5");
  out["flag 2.5"] = threshold ? report::format_number(*threshold) : "refused";
  out["format"] = report::format_quantity(1234.5678, "ms") + " " +
                  report::format_quantity(0.000123456, "s") + " " + report::format_number(9.996) +
                  " " + report::format_percent(0.0123456) + " " + report::format_change(-0.25) +
                  " " + report::format_fixed(2.5, 2);
  return out;
}

// Makes the comma locale available: the machine's, else one built by localedef into `dir`,
// found through LOCPATH (read by glibc at each setlocale).
void provide_comma_locale(const test_support::ScratchDir& dir) {
  if (std::setlocale(LC_ALL, k_comma_locale) != nullptr) {
    std::setlocale(LC_ALL, "C");
    return;
  }
  const auto built = test_support::run_process(
      {"localedef", "-i", "de_DE", "-f", "UTF-8", (dir / k_comma_locale).string()});
  INFO("localedef (package locales, which tools/setup installs): " << built.err << built.out);
  REQUIRE(fs::exists(dir / k_comma_locale / "LC_NUMERIC"));
  REQUIRE(::setenv("LOCPATH", dir.path().c_str(), 1) == 0);
}

}  // namespace

TEST_CASE("import, compare and report write the same bytes under a comma-decimal locale") {
  const test_support::ScratchDir dir;
  provide_comma_locale(dir);
  const Outputs in_c = outputs(dir);

  std::locale::global(std::locale(k_comma_locale));
  // The locale is in force, and it is one that would change the numbers: a comma is its
  // decimal point, and strtod stops at the '.' that every file and flag writes.
  REQUIRE(std::string(std::localeconv()->decimal_point) == ",");
  REQUIRE(std::strtod("2.5", nullptr) == 2.0);
  Outputs in_comma_locale;
  try {
    in_comma_locale = outputs(dir);
  } catch (...) {
    std::locale::global(std::locale::classic());
    throw;
  }
  std::locale::global(std::locale::classic());

  REQUIRE(in_comma_locale.size() == in_c.size());
  for (const auto& [name, bytes] : in_c) {
    INFO(name << ": " << test_support::first_difference(bytes, in_comma_locale.at(name)));
    CHECK(in_comma_locale.at(name) == bytes);
  }
}
