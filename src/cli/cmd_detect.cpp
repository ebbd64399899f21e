// `benchledger detect [CASE...]` (docs/history.md): change points in each case's series. Exit 1
// when a change point that is a regression lies in the newest --recent runs of its series (so
// that CI can run it after every merge), 0 otherwise (a series too short to reach significance
// says so), 2 for usage or data errors (a ledger that does not exist, filters or a CASE that match
// nothing).
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <benchledger/config.hpp>
#include <benchledger/ledger.hpp>

#include "cli/series_flags.hpp"
#include "cli/subcommand.hpp"
#include "compare/change_detection.hpp"
#include "ledger/history.hpp"
#include "report/detect_render.hpp"

namespace benchledger::cli {
namespace {

struct DetectCliOptions {
  std::optional<std::string> ledger;
  ledger::HistoryOptions history;
  compare::DetectOptions detect;
  std::optional<double> min_change_percent;
  std::size_t recent = 0;
  std::string test = "rank";
  std::string format = "table";
};

int run_detect(DetectCliOptions options) {
  options.detect.config = load_default_config();
  if (options.min_change_percent) options.detect.min_change = *options.min_change_percent / 100;
  options.detect.method.test =
      options.test == "student" ? stats::SegmentTest::student : stats::SegmentTest::rank;
  const auto store =
      ledger::open_store(options.ledger ? *options.ledger : ledger::default_ledger_uri());
  options.history.samples = true;  // the tests split each run's samples, not its centre alone
  const auto series = ledger::collect_series(*store, options.history);
  ledger::require_series(*store, options.history, series);  // exit 2 when nothing matched
  for (const auto& warning : store->warnings()) {
    std::cerr << "benchledger: warning: " << warning << '\n';
  }
  const auto cases = compare::detect_changes(series, options.detect);
  if (options.format == "md") {
    std::cout << report::render_changes_markdown(cases);
  } else if (options.format == "json") {
    std::cout << report::render_changes_json(cases);
  } else {
    std::cout << report::render_changes_table(cases);
  }
  if (options.recent == 0) return 0;
  for (const auto& c : cases) {
    if (compare::recent_regression(c, options.recent)) return 1;
  }
  return 0;
}

}  // namespace

Runner add_detect_command(CLI::App& app) {
  auto options = std::make_shared<DetectCliOptions>();
  CLI::App* sub = app.add_subcommand(
      "detect",
      "change points in each case's series: E-Divisive means with a significance test "
      "(docs/history.md); exit 1 for a regression in the last --recent runs");
  add_series_flags(*sub, options->ledger, options->history);
  sub->add_option("--window", options->detect.method.window,
                  "runs in each window of the split step (at most 2000)")
      ->check(CLI::Range(std::size_t{4}, stats::k_max_change_point_window))
      ->default_str("50");
  sub->add_option("--significance", options->detect.method.max_p,
                  "the p-value a change point must reach")
      ->check(CLI::Range(1e-12, 0.5))
      ->default_str("0.001");
  sub->add_option("--min-change", options->min_change_percent,
                  "percent change a significant change point must exceed (default: the bench's "
                  "threshold from benchledger.json, else 5)")
      ->check(CLI::Range(0.0, 1000.0));
  sub->add_option("--test", options->test, "rank (Mann-Whitney U) or student (t, as Otava)")
      ->check(CLI::IsMember({"rank", "student"}))
      ->default_str("rank");
  sub->add_option("--recent", options->recent,
                  "exit 1 when a regression lies in the newest N runs of its series")
      ->check(CLI::PositiveNumber);
  sub->add_option("--format", options->format, "table, md or json")
      ->check(CLI::IsMember({"table", "md", "json"}))
      ->default_str("table");
  return [options]() -> int { return run_detect(*options); };
}

}  // namespace benchledger::cli
