// `benchledger history [CASE...]` (docs/history.md): each case's series across the runs of a
// label, a branch or the whole ledger, oldest first. Exit 0, 2 for usage or data errors (a ledger
// that does not exist, filters or a CASE that match nothing), 1 for a ledger whose records are
// damaged.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <benchledger/ledger.hpp>

#include "cli/series_flags.hpp"
#include "cli/subcommand.hpp"
#include "ledger/history.hpp"
#include "report/history_render.hpp"

namespace benchledger::cli {
namespace {

struct HistoryCliOptions {
  std::optional<std::string> ledger;
  ledger::HistoryOptions history;
  std::string format = "table";
};

int run_history(const HistoryCliOptions& options) {
  const auto store =
      ledger::open_store(options.ledger ? *options.ledger : ledger::default_ledger_uri());
  const std::vector<ledger::Series> series = ledger::collect_series(*store, options.history);
  ledger::require_series(*store, options.history, series);  // exit 2 when nothing matched
  for (const auto& warning : store->warnings()) {
    std::cerr << "benchledger: warning: " << warning << '\n';
  }
  if (options.format == "md") {
    std::cout << report::render_history_markdown(series);
  } else if (options.format == "json") {
    std::cout << report::render_history_json(series);
  } else if (options.format == "csv") {
    std::cout << report::render_history_csv(series);
  } else {
    std::cout << report::render_history_table(series);
  }
  return 0;  // main checks that the output was written (cli/standard_output.hpp)
}

}  // namespace

Runner add_history_command(CLI::App& app) {
  auto options = std::make_shared<HistoryCliOptions>();
  CLI::App* sub = app.add_subcommand(
      "history", "the series of each case across runs, oldest first (docs/history.md)");
  add_series_flags(*sub, options->ledger, options->history);
  sub->add_option("--format", options->format, "table, md, json or csv")
      ->check(CLI::IsMember({"table", "md", "json", "csv"}))
      ->default_str("table");
  return [options]() -> int { return run_history(*options); };
}

}  // namespace benchledger::cli
