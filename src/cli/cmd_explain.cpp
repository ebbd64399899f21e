// `benchledger explain BASE HEAD [CASE…]`: where a case's count changed between two runs, function
// by function, from the profiles `run --measure instructions` keeps under Valgrind
// (docs/profiles.md). Exit 0 when it explained, 2 for usage or data errors.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <benchledger/error.hpp>
#include <benchledger/ledger.hpp>

#include "cli/subcommand.hpp"
#include "compare/explain.hpp"
#include "compare/selection.hpp"
#include "ledger/artifacts.hpp"
#include "report/explain_render.hpp"

namespace benchledger::cli {
namespace {

struct ExplainOptions {
  std::string base, head;
  std::vector<std::string> cases;
  std::optional<std::string> ledger;
  std::string format = "table";
  std::string metric = "instructions";
  std::size_t top = 10;
};

int run_explain(const ExplainOptions& options) {
  std::unique_ptr<ledger::Store> store;
  std::optional<std::vector<NoteRecord>> notes;
  // One side as compare selects it: an NDJSON file (its newest run, its own artifacts beside
  // it), or a run of the ledger.
  const auto side = [&](const std::string& selector) {
    if (compare::is_file_selector(selector)) {
      compare::Selection selection = compare::select_file(selector, 1);
      return compare::ExplainedSide{std::move(selection.side),
                                    ledger::artifact_directory(selector)};
    }
    if (!store) {
      store = ledger::open_store(options.ledger ? *options.ledger : ledger::default_ledger_uri());
      notes = store->notes();
    }
    compare::Selection selection = compare::select_runs(*store, selector, 1, *notes);
    for (const std::string& warning : selection.warnings)
      std::cerr << "benchledger: warning: " << warning << '\n';
    return compare::ExplainedSide{std::move(selection.side),
                                  ledger::artifact_directory(store->uri())};
  };
  const compare::ExplainedSide base = side(options.base);
  const compare::ExplainedSide head = side(options.head);
  const compare::Explanation explanation =
      compare::explain_runs(base, head, options.cases, *profile::event_from(options.metric));
  if (options.format == "json") {
    report::write_explanation_json(std::cout, explanation);
  } else {
    report::write_explanation_text(std::cout, explanation, options.top);
  }
  return 0;
}

}  // namespace

Runner add_explain_command(CLI::App& app) {
  auto options = std::make_shared<ExplainOptions>();
  CLI::App* sub = app.add_subcommand(
      "explain", "the functions whose cost changed most between two runs' profiles");
  sub->add_option("BASE", options->base,
                  "the base: run id, label, label~N, git:COMMIT, latest, latest~N, or an NDJSON "
                  "file")
      ->required();
  sub->add_option("HEAD", options->head, "the head run, selected the same way")->required();
  sub->add_option("CASE", options->cases,
                  "globs of the cases to explain (bench name or case key; default: every case)");
  sub->add_option("--ledger", options->ledger,
                  "ledger URI (default: BENCHLEDGER_LEDGER, the config file, or "
                  "ledger/ledger.ndjson under the repository root)");
  sub->add_option("--metric", options->metric, "instructions or estimated_cycles")
      ->check(CLI::IsMember({"instructions", "estimated_cycles"}))
      ->default_str("instructions");
  sub->add_option("--top", options->top, "functions shown a case in the table (JSON has all)")
      ->check(CLI::Range(1, 100000))
      ->default_str("10");
  sub->add_option("--format", options->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->default_str("table");
  return [options]() -> int { return run_explain(*options); };
}

}  // namespace benchledger::cli
