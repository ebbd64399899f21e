// Fuzz targets of the importers (`run --import`): on any bytes every reader (with
// Partial::keep_complete too, where it takes one) returns results or throws benchledger::Error
// naming the input; and what it returns is what `run --import` can
// append: each result, and the run that records the file's environment, passes append()'s check
// and serializes. Anything else is a finding: a crash, a stack overflow on deep nesting,
// nlohmann's exception for a number no double holds (the CLI's internal error, exit 3), or a
// value only append() refuses (as "record N of the batch", not naming the file and the place).
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <benchledger/error.hpp>
#include <benchledger/record.hpp>

#include "env/env.hpp"
#include "fuzz_targets.hpp"
#include "import/import.hpp"
#include "import/pgbench.hpp"
#include "ledger/record_check.hpp"

namespace benchledger::fuzz {

namespace {

const std::string k_origin = "fuzz-input";

// What cli/run_import.cpp makes of an import, checked as append() checks it.
void require_recordable(const import::ImportedResults& imported) {
  try {
    RunRecord run;
    run.header.id = new_ulid();
    run.header.time = now_rfc3339();
    run.source = imported.format.empty() ? "import" : imported.format;
    run.env = imported.environment.env;
    run.env.fingerprint = env::fingerprint(run.env);
    run.warnings = imported.warnings;
    const auto& stated = imported.environment;
    run.header.extra["imported"] = {
        {"files",
         {{{"file", k_origin},
           {"tool_version", stated.tool_version ? nlohmann::json(*stated.tool_version) : nullptr},
           {"measured_at", stated.measured_at ? nlohmann::json(*stated.measured_at) : nullptr},
           {"env_from_file", stated.from_file},
           {"facts", stated.facts}}}}};
    ledger::check_record(run);
    static_cast<void>(serialize(run));
    for (ResultRecord result : imported.results) {
      result.run = run.header.id;
      ledger::check_record(result);
      static_cast<void>(serialize(result));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "finding: an imported record append() refuses: %s\n", e.what());
    std::abort();
  }
}

template <class Read>
void import_with(const Read& read) {
  std::optional<import::ImportedResults> imported;
  require_error_only([&] { imported = read(); });
  if (imported) require_recordable(*imported);
}

}  // namespace

// Any bytes through `--import auto`'s detection and every reader of text.
void import_any(std::string_view text) {
  require_error_only([&] { import::detect_format(text, k_origin); });
  import_with([&] { return import::read_google_benchmark(text, k_origin); });
  import_with([&] { return import::read_hyperfine(text, k_origin); });
  import_with([&] { return import::read_pytest_benchmark(text, k_origin); });
  import_with([&] { return import::read_go_test(text, k_origin); });
  import_with([&] { return import::read_pyperf(text, k_origin); });
  import_with([&] { return import::read_catch2_xml(text, k_origin); });
  import_with([&] { return import::read_asv(text, k_origin, text, k_origin); });
  import_with([&] { return import::read_mitata(text, k_origin); });
  import_with([&] { return import::read_cargo_criterion(text, k_origin); });
  import_with([&] { return import::read_jmh(text, k_origin); });
  import_with([&] { return import::read_vitest(text, k_origin); });
  import_with([&] { return import::read_tinybench(text, k_origin); });
  import_with([&] {
    return import::read_mapped_ndjson(text, k_origin, "bench=.name,value=.ms,unit=ms,params=.p");
  });
  import_with(
      [&] { return import::read_mapped_csv(text, k_origin, "bench=.name,value=.ms,unit=ms"); });
}

// `--import auto`: the format detect_format chooses, read by its reader (criterion's folders
// aside: `auto` reads a file as cargo-criterion's messages).
void import_auto(std::string_view text) {
  std::string format;
  require_error_only([&] { format = import::detect_format(text, k_origin); });
  if (format.empty()) return;
  const auto reader = [&]() -> void (*)(std::string_view) {
    if (format == "google-benchmark") return google_benchmark;
    if (format == "hyperfine") return hyperfine;
    if (format == "pytest-benchmark") return pytest_benchmark;
    if (format == "go-test") return go_test;
    if (format == "pyperf") return pyperf;
    if (format == "catch2") return catch2;
    if (format == "asv") return asv;
    if (format == "mitata") return mitata;
    if (format == "criterion") return cargo_criterion;
    if (format == "jmh") return jmh;
    if (format == "vitest") return vitest;
    if (format == "tinybench") return tinybench;
    std::fprintf(stderr, "finding: detect_format chose \"%s\", not a format of auto\n",
                 format.c_str());
    std::abort();
  }();
  reader(text);
}

void google_benchmark(std::string_view text) {
  import_with([&] { return import::read_google_benchmark(text, k_origin); });
}
void hyperfine(std::string_view text) {
  import_with([&] { return import::read_hyperfine(text, k_origin); });
}
void pytest_benchmark(std::string_view text) {
  import_with([&] { return import::read_pytest_benchmark(text, k_origin); });
}
void go_test(std::string_view text) {
  import_with([&] { return import::read_go_test(text, k_origin); });
  import_with([&] { return import::read_go_test(text, k_origin, import::Partial::keep_complete); });
}
void pyperf(std::string_view text) {
  import_with([&] { return import::read_pyperf(text, k_origin); });
}
void catch2(std::string_view text) {
  import_with([&] { return import::read_catch2_xml(text, k_origin); });
}
void mitata(std::string_view text) {
  import_with([&] { return import::read_mitata(text, k_origin); });
}
void cargo_criterion(std::string_view text) {
  import_with([&] { return import::read_cargo_criterion(text, k_origin); });
  import_with(
      [&] { return import::read_cargo_criterion(text, k_origin, import::Partial::keep_complete); });
}
void jmh(std::string_view text) {
  import_with([&] { return import::read_jmh(text, k_origin); });
  import_with([&] { return import::read_jmh(text, k_origin, import::Partial::keep_complete); });
}
void vitest(std::string_view text) {
  import_with([&] { return import::read_vitest(text, k_origin); });
}
void tinybench(std::string_view text) {
  import_with([&] { return import::read_tinybench(text, k_origin); });
}

// A results file, then after a NUL byte the benchmarks.json that declares its params.
void asv(std::string_view input) {
  const auto parts = split_at_nul(input, 2);
  const std::string_view benchmarks = parts.size() > 1 ? parts[1] : std::string_view();
  import_with([&] { return import::read_asv(parts[0], k_origin, benchmarks, "benchmarks.json"); });
}

// The files of one pgbench run (its output, its -l logs), separated by NUL bytes.
void pgbench(std::string_view input) {
  std::vector<import::PgbenchFile> files;
  for (const std::string_view part : split_at_nul(input, 8)) {
    files.push_back({std::string(part), "fuzz-file-" + std::to_string(files.size() + 1)});
  }
  import_with([&] { return import::read_pgbench(files); });
  import_with([&] { return import::read_pgbench(files, import::Partial::keep_complete); });
}

namespace {

// The --map on the first line, the log after it.
template <class Read>
void mapped(std::string_view input, const Read& read) {
  const auto newline = input.find('\n');
  if (newline == std::string_view::npos) return;
  const std::string mapping(input.substr(0, newline));
  const std::string_view text = input.substr(newline + 1);
  import_with([&] { return read(text, k_origin, mapping); });
}

}  // namespace

void mapped_ndjson(std::string_view input) {
  mapped(input, import::read_mapped_ndjson);
}
void mapped_csv(std::string_view input) {
  mapped(input, import::read_mapped_csv);
}

}  // namespace benchledger::fuzz
