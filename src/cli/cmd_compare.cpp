// `benchledger compare BASE CURRENT` (bench-compare): the statistics of two runs and the
// pre-merge gate. Exit 0 when nothing fails the gate, 1 when something does, 2 for usage or
// data errors (main turns benchledger::Error into 2).
#include <unistd.h>

#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <benchledger/config.hpp>
#include <benchledger/error.hpp>
#include <benchledger/ledger.hpp>

#include "cli/command.hpp"
#include "compare/comparison.hpp"
#include "compare/selection.hpp"
#include "report/compare_render.hpp"

namespace benchledger::cli {
namespace {

struct CompareCliOptions {
  std::string base, current;
  std::optional<std::string> ledger;
  std::size_t base_runs = 1;
  double alpha = 0.05;
  double threshold = 5.0;            // percent
  std::vector<std::string> fail_on;  // added to regression, which always fails the gate
  std::vector<std::string> metrics;
  std::string format = "table";
  bool require_same_env = false;
};

// The verdicts --fail-on adds to regression (which fails the gate whatever it says).
std::vector<compare::Verdict> parse_fail_on(const std::vector<std::string>& words) {
  std::vector<compare::Verdict> out;
  for (const std::string& list : words) {
    std::size_t start = 0;
    while (start <= list.size()) {
      std::size_t end = list.find(',', start);
      if (end == std::string::npos) end = list.size();
      const std::string word = list.substr(start, end - start);
      start = end + 1;
      if (word.empty()) continue;
      const compare::Verdict verdict = compare::parse_verdict(word);
      if (verdict == compare::Verdict::unchanged || verdict == compare::Verdict::improvement) {
        throw Error(
            fmt::format("--fail-on {}: the gate fails on regression, inconclusive, missing "
                        "or new, not on {}",
                        word, word));
      }
      out.push_back(verdict);
    }
  }
  if (out.empty() && !words.empty()) throw Error("--fail-on needs at least one verdict");
  return out;
}

// One side: a file, or runs of the ledger (opened once, on first need).
compare::Selection select(const std::string& selector, std::size_t count,
                          const std::function<const ledger::Store&()>& store,
                          const std::function<const std::vector<NoteRecord>&()>& notes,
                          const compare::Keep& keep) {
  if (compare::is_file_selector(selector)) return compare::select_file(selector, count, keep);
  return compare::select_runs(store(), selector, count, notes(), keep);
}

int run_compare(const CompareCliOptions& options) {
  compare::CompareOptions compare_options;
  compare_options.alpha = options.alpha;
  compare_options.threshold = options.threshold / 100.0;
  compare_options.metrics = options.metrics;
  compare_options.fail_on = parse_fail_on(options.fail_on);
  compare_options.require_same_env = options.require_same_env;
  compare_options.config = load_default_config();

  std::unique_ptr<ledger::Store> store;
  std::optional<std::vector<NoteRecord>> ledger_notes;
  const auto get_store = [&]() -> const ledger::Store& {
    if (!store) {
      store = ledger::open_store(options.ledger ? *options.ledger : ledger::default_ledger_uri());
    }
    return *store;
  };
  const auto get_notes = [&]() -> const std::vector<NoteRecord>& {
    if (!ledger_notes) ledger_notes = get_store().notes();
    return *ledger_notes;
  };

  // Only what the comparison reads is kept of each result: a side may hold millions.
  const compare::Keep keep{true, options.metrics};
  compare::Selection base = select(options.base, options.base_runs, get_store, get_notes, keep);
  compare::Selection current = select(options.current, 1, get_store, get_notes, keep);

  std::vector<NoteRecord> notes = store ? get_notes() : std::vector<NoteRecord>{};
  notes.insert(notes.end(), base.notes.begin(), base.notes.end());
  notes.insert(notes.end(), current.notes.begin(), current.notes.end());

  compare::ComparisonReport report =
      compare::compare_sides(base.side, current.side, notes, compare_options);
  std::vector<std::string> selection_warnings = base.warnings;
  selection_warnings.insert(selection_warnings.end(), current.warnings.begin(),
                            current.warnings.end());
  report.warnings.insert(report.warnings.begin(), selection_warnings.begin(),
                         selection_warnings.end());

  std::string out;
  if (options.format == "md") {
    out = report::render_comparison_markdown(report);
  } else if (options.format == "json") {
    out = report::render_comparison_json(report);
  } else if (options.format == "junit") {
    out = report::render_comparison_junit(report);
  } else if (options.format == "csv") {
    out = report::render_comparison_csv(report);
  } else {
    out = report::render_comparison_table(report, use_colour(STDOUT_FILENO));
  }
  // The table and Markdown carry the warnings; machine formats keep them in their own fields
  // (CSV has none), so they go to stderr as well, never mixed into stdout.
  if (options.format == "json" || options.format == "junit" || options.format == "csv") {
    for (const std::string& warning : report.warnings) {
      std::cerr << "benchledger: warning: " << warning << '\n';
    }
  }
  std::cout << out;
  std::cout.flush();
  if (!std::cout) throw Error("cannot write the comparison to standard output");
  return report.gate_pass ? 0 : 1;
}

}  // namespace

Runner add_compare_command(CLI::App& app) {
  auto options = std::make_shared<CompareCliOptions>();
  CLI::App* sub = app.add_subcommand(
      "compare", "compare two runs with statistics and gate on regressions (exit 1 on failure)");
  sub->add_option("BASE", options->base,
                  "the base: run id, label, label~N, git:COMMIT, latest, latest~N, or an NDJSON "
                  "file")
      ->required();
  sub->add_option("CURRENT", options->current, "the current run, selected the same way")
      ->required();
  sub->add_option("--ledger", options->ledger,
                  "ledger URI (default: BENCHLEDGER_LEDGER, the config file, or "
                  "ledger/ledger.ndjson under the repository root)");
  sub->add_option("--base-runs", options->base_runs,
                  "pool the samples of the last K runs that match BASE")
      ->check(CLI::Range(1, 1000))
      ->default_str("1");
  sub->add_option("--alpha", options->alpha,
                  "false discovery rate over all metrics compared; intervals are 1 - alpha")
      ->check(CLI::Range(1e-9, 0.5))
      ->default_str("0.05");
  sub->add_option("--threshold", options->threshold,
                  "percent change that matters (per benchmark from benchledger.json thresholds)")
      ->check(CLI::Range(0.0, 1000.0))
      ->default_str("5");
  sub->add_option("--fail-on", options->fail_on,
                  "verdicts that fail the gate besides regression (which always does), "
                  "comma-separated: inconclusive, missing, new")
      ->default_str("regression");
  sub->add_option("--metric", options->metrics,
                  "compare this metric (repeatable; default: each case's primary metric)");
  sub->add_option("--format", options->format, "table, md, json, junit or csv")
      ->check(CLI::IsMember({"table", "md", "json", "junit", "csv"}))
      ->default_str("table");
  sub->add_flag("--require-same-env", options->require_same_env,
                "differing environment fingerprints are an error (exit 2), not a warning");
  return [options]() -> int {
    try {
      return run_compare(*options);
    } catch (const IntegrityError& e) {
      // A damaged ledger is a data error here: exit 1 means the gate failed.
      throw Error(e.what());
    }
  };
}

}  // namespace benchledger::cli
