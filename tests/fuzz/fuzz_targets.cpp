// The table of fuzz targets and what they share.
#include "fuzz_targets.hpp"

#include <algorithm>
#include <array>

namespace benchledger::fuzz {

namespace {

// One target per reader rather than one that picks the reader from its first byte: libFuzzer
// keeps an input when it reaches new code, so a target whose every input goes to one reader
// keeps a corpus of that reader's syntax, mutates it with that syntax's dictionary, and spends
// no executions on JMH's JSON fed to the go test reader. A shared target would keep the same
// edges but mix the corpora, and a mutation of the first byte would throw an input's structure
// away. (import_any keeps the other question: any bytes, every reader.)
constexpr std::array k_targets = {
    Target{"record_parser", record_parser},
    Target{"record_lines", record_lines},
    Target{"ndjson_ledger", ndjson_ledger},
    Target{"ledger_import", ledger_import},
    Target{"selector", selector},
    Target{"config", config},
    Target{"import", import_any},
    Target{"import_auto", import_auto},
    Target{"google_benchmark", google_benchmark},
    Target{"hyperfine", hyperfine},
    Target{"pytest_benchmark", pytest_benchmark},
    Target{"go_test", go_test},
    Target{"pyperf", pyperf},
    Target{"catch2", catch2},
    Target{"asv", asv},
    Target{"mitata", mitata},
    Target{"cargo_criterion", cargo_criterion},
    Target{"jmh", jmh},
    Target{"vitest", vitest},
    Target{"tinybench", tinybench},
    Target{"pgbench", pgbench},
    Target{"mapped_ndjson", mapped_ndjson},
    Target{"mapped_csv", mapped_csv},
};

}  // namespace

std::span<const Target> targets() {
  return k_targets;
}

const Target* find_target(std::string_view name) {
  const auto* found = std::find_if(k_targets.begin(), k_targets.end(),
                                   [&](const Target& target) { return target.name == name; });
  return found == k_targets.end() ? nullptr : found;
}

void require(bool condition) {
  if (!condition) std::abort();
}

std::vector<std::string_view> split_at_nul(std::string_view input, std::size_t max_parts) {
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < max_parts) {
    const auto nul = input.find('\0');
    if (nul == std::string_view::npos) break;
    parts.push_back(input.substr(0, nul));
    input.remove_prefix(nul + 1);
  }
  parts.push_back(input);
  return parts;
}

}  // namespace benchledger::fuzz
