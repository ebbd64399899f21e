// The flags that choose series, shared by `history` and `detect` (docs/history.md): CASE globs,
// --ledger, --label, --branch, --since, --last and --metric.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "ledger/history.hpp"

namespace benchledger::cli {

void add_series_flags(CLI::App& sub, std::optional<std::string>& ledger,
                      ledger::HistoryOptions& history);

}  // namespace benchledger::cli
