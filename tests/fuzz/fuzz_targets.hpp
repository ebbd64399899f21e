// The fuzz targets of tests/fuzz (docs/fuzzing.md). A target is a function of one input, any
// bytes, that returns when the code under test behaved and calls std::abort() on a finding. One
// libFuzzer binary runs one target (fuzz_main.cpp: the target its file name names, `NAME_fuzz`);
// the replay binary runs one over its corpus folder (replay_main.cpp, on every build, in ctest).
#pragma once

#include <cstdlib>
#include <span>
#include <string_view>
#include <vector>

#include <benchledger/error.hpp>

namespace benchledger::fuzz {

struct Target {
  std::string_view
      name;  // its binary is NAME_fuzz, its seeds corpus/NAME, its dictionary NAME.dict
  void (*run)(std::string_view input);
};

// Every target, in the order docs/fuzzing.md lists them.
std::span<const Target> targets();
// The target of that name, or nullptr.
const Target* find_target(std::string_view name);

// Aborts unless `condition` holds: a finding.
void require(bool condition);

// Calls `read`: returns when it returns or throws benchledger::Error (what bad input should
// get: the CLI prints its message and exits 2); aborts on any other exception, which the CLI
// would report as an internal error (exit 3).
template <class Read>
void require_error_only(const Read& read) {
  try {
    read();
  } catch (const Error&) {
  } catch (...) {
    std::abort();
  }
}

// The parts of an input that holds several (a results file and asv's benchmarks.json, the files
// of one pgbench run), separated by NUL bytes; at most `max_parts`, the last holding the rest.
std::vector<std::string_view> split_at_nul(std::string_view input, std::size_t max_parts);

// Each target, defined next to the others of its reader (record_parser_fuzz.cpp,
// ledger_fuzz.cpp, config_fuzz.cpp, import_fuzz.cpp).
void record_parser(std::string_view input);
void record_lines(std::string_view input);
void ndjson_ledger(std::string_view input);
void ledger_import(std::string_view input);
void selector(std::string_view input);
void config(std::string_view input);
void import_any(std::string_view input);
void import_auto(std::string_view input);
void google_benchmark(std::string_view input);
void hyperfine(std::string_view input);
void pytest_benchmark(std::string_view input);
void go_test(std::string_view input);
void pyperf(std::string_view input);
void catch2(std::string_view input);
void asv(std::string_view input);
void mitata(std::string_view input);
void cargo_criterion(std::string_view input);
void jmh(std::string_view input);
void vitest(std::string_view input);
void tinybench(std::string_view input);
void pgbench(std::string_view input);
void mapped_ndjson(std::string_view input);
void mapped_csv(std::string_view input);

}  // namespace benchledger::fuzz
