#include "cli/series_flags.hpp"

namespace benchledger::cli {

void add_series_flags(CLI::App& sub, std::optional<std::string>& ledger,
                      ledger::HistoryOptions& history) {
  sub.add_option("CASE", history.query.cases,
                 "globs over bench names or case keys (bench{\"param\":value}); default: all");
  sub.add_option("--ledger", ledger,
                 "ledger URI (default: BENCHLEDGER_LEDGER, the config file, or "
                 "ledger/ledger.ndjson under the repository root)");
  sub.add_option("--label", history.query.label, "only runs with this label");
  sub.add_option("--branch", history.query.branch, "only runs whose recorded git branch is this");
  sub.add_option("--since", history.query.since,
                 "only runs at or after this date (2026-11-01) or UTC time (2026-11-01T10:00:00Z)");
  sub.add_option("--last", history.last, "only the newest N runs of each case")
      ->check(CLI::PositiveNumber);
  sub.add_option("--metric", history.metric, "the metric (default: each result's primary)");
}

}  // namespace benchledger::cli
