// `benchledger compare BASE CURRENT` (bench-compare): the statistics of two runs and the
// pre-merge gate. Exit 0 when nothing fails the gate, 1 when something does, 2 for usage or
// data errors (main turns benchledger::Error into 2).
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <future>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <benchledger/config.hpp>
#include <benchledger/error.hpp>
#include <benchledger/ledger.hpp>

#include "cli/compare_flags.hpp"
#include "cli/number_flag.hpp"
#include "cli/subcommand.hpp"
#include "compare/comparison.hpp"
#include "compare/explain.hpp"
#include "compare/selection.hpp"
#include "ledger/artifacts.hpp"
#include "report/compare_render.hpp"

namespace benchledger::cli {
namespace {

struct CompareCliOptions {
  std::string base, current;
  std::optional<std::string> ledger;
  std::size_t base_runs = 1;
  CompareFlags judging;
  std::string format = "table";
};

// One side: a file, or runs of the ledger (opened once, on first need).
compare::Selection select(const std::string& selector, std::size_t count,
                          const std::function<const ledger::Store&()>& store,
                          const std::function<const std::vector<NoteRecord>&()>& notes,
                          const compare::Keep& keep) {
  if (compare::is_file_selector(selector)) return compare::select_file(selector, count, keep);
  return compare::select_runs(store(), selector, count, notes(), keep);
}

// Where each regressed case's instructions went, for the cases both sides' newest runs profiled
// (docs/profiles.md): the one section the table, Markdown and JSON show. The sides are read again
// in full: only here, for the few regressed cases, are the results' profiles needed. A profile
// that cannot be read is said (on stderr too) and changes neither the verdict nor the exit status.
std::optional<compare::RegressionProfiles> regression_profiles(
    const CompareCliOptions& options, const compare::ComparisonReport& report,
    const std::function<const ledger::Store&()>& store,
    const std::function<const std::vector<NoteRecord>&()>& notes) {
  // A file with no place beside it for artifacts (a pipe, such as /dev/stdin) holds no profiles,
  // and could not be read a second time: no section then.
  std::optional<std::filesystem::path> base_artifacts, current_artifacts;
  for (const auto& [selector, artifacts] : {std::pair{&options.base, &base_artifacts},
                                            std::pair{&options.current, &current_artifacts}}) {
    if (!compare::is_file_selector(*selector)) continue;
    try {
      *artifacts = ledger::artifact_directory(*selector);
    } catch (const Error&) {
      return std::nullopt;
    }
  }
  const auto side = [&](const std::string& selector,
                        const std::optional<std::filesystem::path>& file_artifacts) {
    if (compare::is_file_selector(selector)) {
      return compare::ExplainedSide{compare::select_file(selector, 1).side, file_artifacts};
    }
    return compare::ExplainedSide{compare::select_runs(store(), selector, 1, notes()).side,
                                  ledger::artifact_directory(store().uri())};
  };
  auto profiles = compare::explain_regressions(report, [&] {
    return std::make_pair(side(options.base, base_artifacts),
                          side(options.current, current_artifacts));
  });
  if (profiles && !profiles->unreadable.empty()) {
    std::cerr << "benchledger: warning: the profiles of the regressed cases cannot be read: "
              << profiles->unreadable << '\n';
  }
  return profiles;
}

int run_compare(const CompareCliOptions& options) {
  const compare::CompareOptions compare_options =
      compare_options_from(options.judging, load_default_config());

  const auto ledger_uri = [&] {
    return options.ledger ? *options.ledger : ledger::default_ledger_uri();
  };
  std::unique_ptr<ledger::Store> store;
  std::optional<std::vector<NoteRecord>> ledger_notes;
  const auto get_store = [&]() -> const ledger::Store& {
    if (!store) store = ledger::open_store(ledger_uri());
    return *store;
  };
  const auto get_notes = [&]() -> const std::vector<NoteRecord>& {
    if (!ledger_notes) ledger_notes = get_store().notes();
    return *ledger_notes;
  };

  // Only what the comparison reads is kept of each result: a side may hold millions. The two
  // sides are read at once, the base on a thread of its own through a store of its own (a store
  // is not shared between threads): reading is half of what a comparison of a million cases
  // does. The ledger's notes are read first, since both sides skip the runs they invalidate.
  const compare::Keep keep{true, options.judging.metrics};
  if (!compare::is_file_selector(options.base) || !compare::is_file_selector(options.current)) {
    get_notes();
  }
  std::future<compare::Selection> reading_base = std::async(std::launch::async, [&] {
    std::unique_ptr<ledger::Store> own;
    const auto own_store = [&]() -> const ledger::Store& {
      if (!own) own = ledger::open_store(ledger_uri());
      return *own;
    };
    return select(options.base, options.base_runs, own_store, get_notes, keep);
  });
  compare::Selection current;
  try {
    current = select(options.current, 1, get_store, get_notes, keep);
  } catch (...) {
    reading_base.get();  // when both sides fail, the base's error is said, as it was read first
    throw;
  }
  compare::Selection base = reading_base.get();

  std::vector<NoteRecord> notes = store ? get_notes() : std::vector<NoteRecord>{};
  notes.insert(notes.end(), base.notes.begin(), base.notes.end());
  notes.insert(notes.end(), current.notes.begin(), current.notes.end());

  compare::ComparisonReport report = compare::compare_sides(
      compare::ComparedSide{std::move(base.side.runs), std::move(base.compared)},
      compare::ComparedSide{std::move(current.side.runs), std::move(current.compared)}, notes,
      compare_options);
  std::vector<std::string> selection_warnings = base.warnings;
  selection_warnings.insert(selection_warnings.end(), current.warnings.begin(),
                            current.warnings.end());
  report.warnings.insert(report.warnings.begin(), selection_warnings.begin(),
                         selection_warnings.end());

  // The table and Markdown carry the warnings; machine formats keep them in their own fields
  // (CSV has none), so they go to stderr as well, never mixed into stdout.
  if (options.format == "json" || options.format == "junit" || options.format == "csv") {
    for (const std::string& warning : report.warnings) {
      std::cerr << "benchledger: warning: " << warning << '\n';
    }
  }
  // Written as it is made: the output of a million cases is never held whole. main checks that
  // it was written (cli/standard_output.hpp).
  const bool shows_profiles =
      options.format == "md" || options.format == "json" || options.format == "table";
  const auto profiles =
      shows_profiles ? regression_profiles(options, report, get_store, get_notes) : std::nullopt;
  const compare::RegressionProfiles* section = profiles ? &*profiles : nullptr;
  if (options.format == "md") {
    report::write_comparison_markdown(std::cout, report, section);
  } else if (options.format == "json") {
    report::write_comparison_json(std::cout, report, section);
  } else if (options.format == "junit") {
    report::write_comparison_junit(std::cout, report);
  } else if (options.format == "csv") {
    report::write_comparison_csv(std::cout, report);
  } else {
    report::write_comparison_table(std::cout, report, use_colour(STDOUT_FILENO), section);
  }
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
      ->check(in_range(model::k_base_runs_range))
      ->default_str("1");
  add_compare_flags(*sub, options->judging);
  sub->add_option("--format", options->format, "table, md, json, junit or csv")
      ->check(CLI::IsMember({"table", "md", "json", "junit", "csv"}))
      ->default_str("table");
  return [options]() -> int { return run_gating([&] { return run_compare(*options); }); };
}

}  // namespace benchledger::cli
