// `benchledger report [RUN...] [--against BASE]` (bench-report): the Markdown or HTML report
// of runs from the ledger, with the comparison against a base when one is given. Exit 0 when
// the report was written (a report is not a gate: `compare` is), 2 for usage or data errors.
#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <benchledger/config.hpp>
#include <benchledger/error.hpp>
#include <benchledger/ledger.hpp>

#include "cli/number_flag.hpp"
#include "cli/output_file.hpp"
#include "cli/subcommand.hpp"
#include "compare/comparison.hpp"
#include "compare/explain.hpp"
#include "compare/selection.hpp"
#include "ledger/artifacts.hpp"
#include "report/report.hpp"

namespace benchledger::cli {
namespace {

struct ReportCliOptions {
  std::vector<std::string> runs;
  std::optional<std::string> against;
  std::optional<std::string> ledger;
  std::optional<std::string> format;
  std::size_t history = 20;
  std::optional<std::string> output;
  double alpha = 0.05;
  double threshold = 5.0;  // percent
};

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

int run_report(const ReportCliOptions& options) {
  const std::string format = options.format.value_or(
      options.output && (ends_with(*options.output, ".html") || ends_with(*options.output, ".htm"))
          ? "html"
          : "md");
  // The output path is checked before any work: a device or FIFO is refused at once.
  const OutputFile output(options.output.value_or("-"));

  std::unique_ptr<ledger::Store> store;
  std::optional<std::vector<NoteRecord>> ledger_notes;
  const auto get_store = [&]() -> const ledger::Store& {
    if (!store)
      store = ledger::open_store(options.ledger ? *options.ledger : ledger::default_ledger_uri());
    return *store;
  };
  const auto get_notes = [&]() -> const std::vector<NoteRecord>& {
    if (!ledger_notes) ledger_notes = get_store().notes();
    return *ledger_notes;
  };
  std::vector<NoteRecord> file_notes;
  std::vector<std::string> warnings;
  // Where each selected run's profiles are (by run id): beside its file, or beside the ledger.
  std::map<std::string, std::optional<std::filesystem::path>> artifacts;
  // Runs are selected exactly as `compare` selects them: a selector of the ledger or a file.
  const auto select = [&](const std::string& selector) {
    compare::Selection selection =
        compare::is_file_selector(selector)
            ? compare::select_file(selector, 1)
            : compare::select_runs(get_store(), selector, 1, get_notes());
    file_notes.insert(file_notes.end(), selection.notes.begin(), selection.notes.end());
    warnings.insert(warnings.end(), selection.warnings.begin(), selection.warnings.end());
    auto& directory = artifacts[selection.side.runs.front().header.id];
    try {
      directory = ledger::artifact_directory(
          compare::is_file_selector(selector) ? selector : get_store().uri());
    } catch (const Error&) {
      directory.reset();  // a file with no place beside it (a pipe) keeps no profiles
    }
    return report::RunData{selection.side.runs.front(), std::move(selection.side.results)};
  };

  report::ReportInput input;
  input.history = options.history;
  const std::vector<std::string> selectors =
      options.runs.empty() ? std::vector<std::string>{"latest"} : options.runs;
  for (const std::string& selector : selectors) input.runs.push_back(select(selector));
  if (options.against) input.base = select(*options.against);

  if (input.base) {
    compare::CompareOptions compare_options;
    compare_options.alpha = options.alpha;
    compare_options.threshold = options.threshold / 100.0;
    compare_options.config = load_default_config();
    std::vector<NoteRecord> notes = store ? get_notes() : std::vector<NoteRecord>{};
    notes.insert(notes.end(), file_notes.begin(), file_notes.end());
    const compare::Side base{{input.base->run}, input.base->results};
    for (const report::RunData& data : input.runs) {
      const compare::Side current{{data.run}, data.results};
      report::ComparisonSection section{
          data.run.header.id, compare::compare_sides(base, current, notes, compare_options), {}};
      // The HTML draws where the regressed cases' instructions went, from the runs' profiles.
      if (format == "html") {
        section.profiles = compare::explain_regressions(section.report, [&] {
          return std::make_pair(compare::ExplainedSide{base, artifacts[input.base->run.header.id]},
                                compare::ExplainedSide{current, artifacts[data.run.header.id]});
        });
      }
      input.comparisons.push_back(std::move(section));
    }
  }
  // Both forms: HTML charts the trends, and both list the change points found in them.
  input.trends = report::collect_trends(get_store(), input.runs, input.history);
  compare::DetectOptions detect;
  detect.config = load_default_config();
  detect.fallback_threshold = options.threshold;
  report::mark_change_points(input.trends, detect);
  if (store) {
    for (const std::string& w : store->warnings()) {
      if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) warnings.push_back(w);
    }
  }
  input.warnings = std::move(warnings);

  const std::string text =
      format == "html" ? report::render_html(input) : report::render_markdown(input);
  output.write(text);
  return 0;
}

}  // namespace

Runner add_report_command(CLI::App& app) {
  auto options = std::make_shared<ReportCliOptions>();
  CLI::App* sub =
      app.add_subcommand("report", "write a Markdown or HTML report of runs from the ledger");
  sub->add_option(
      "RUN", options->runs,
      "runs to report: run id, label, label~N, git:COMMIT, latest, latest~N, or an NDJSON "
      "file (default: latest)");
  sub->add_option("--against", options->against,
                  "compare each run against this base, selected the same way");
  sub->add_option(
      "--ledger", options->ledger,
      "ledger URI (default: BENCHLEDGER_LEDGER, the config file, or ledger/ledger.ndjson under "
      "the repository root)");
  sub->add_option("--format", options->format,
                  "md or html (default: html when -o ends in .html, else md)")
      ->check(CLI::IsMember({"md", "html"}));
  sub->add_option("--history", options->history,
                  "runs each trend covers (HTML charts; change points in both forms)")
      ->check(in_range(model::k_history_range))
      ->default_str("20");
  sub->add_option("-o,--output", options->output,
                  "write the report to this file instead of standard output (through a "
                  "symbolic link, keeping its mode; - is standard output)");
  sub->add_option("--alpha", options->alpha,
                  "with --against: false discovery rate; intervals are 1 - alpha")
      ->check(in_range(model::k_alpha_range))
      ->default_str("0.05");
  sub->add_option(
         "--threshold", options->threshold,
         "with --against: percent change that matters (per benchmark from benchledger.json)")
      ->check(in_range(model::k_threshold_range))
      ->default_str("5");
  return [options]() -> int { return run_report(*options); };
}

}  // namespace benchledger::cli
