#include "cli/compare_flags.hpp"

#include <fmt/format.h>
#include <benchledger/error.hpp>

#include "cli/number_flag.hpp"

namespace benchledger::cli {
namespace {

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
      // accepted_by_change passes by definition: a project that wants no pull request to loosen
      // its own gate keeps its gate configuration under review, not under --fail-on.
      if (verdict == compare::Verdict::unchanged || verdict == compare::Verdict::improvement ||
          verdict == compare::Verdict::accepted_by_change) {
        throw Error(
            fmt::format("--fail-on {}: the gate fails on failed, regression and missing, and "
                        "can fail on inconclusive or new, not on {}",
                        word, word));
      }
      out.push_back(verdict);
    }
  }
  if (out.empty() && !words.empty()) throw Error("--fail-on needs at least one verdict");
  return out;
}

}  // namespace

void add_compare_flags(CLI::App& sub, CompareFlags& flags) {
  sub.add_option("--alpha", flags.alpha,
                 "false discovery rate over all metrics compared; intervals are 1 - alpha")
      ->check(in_range(model::k_alpha_range))
      ->default_str("0.05");
  sub.add_option("--threshold", flags.threshold,
                 "percent change that matters (per benchmark from benchledger.json thresholds)")
      ->check(in_range(model::k_threshold_range))
      ->default_str("5");
  sub.add_option("--deterministic-threshold", flags.deterministic_threshold,
                 "percent change that matters for deterministic metrics such as instruction "
                 "counts, judged without a test (per benchmark from benchledger.json "
                 "deterministic_thresholds)")
      ->check(in_range(model::k_threshold_range))
      ->default_str("0.5");
  sub.add_option("--fail-on", flags.fail_on,
                 "verdicts that fail the gate besides failed, regression and missing (which "
                 "always do), comma-separated: inconclusive, new")
      ->default_str("regression");
  sub.add_option("--metric", flags.metrics,
                 "compare this metric (repeatable; default: each case's primary metric)");
  sub.add_flag("--require-same-env", flags.require_same_env,
               "differing environment fingerprints are an error (exit 2), not a warning");
  sub.add_flag("--allow-missing", flags.allow_missing,
               "a case in BASE only passes the gate (a deliberate removal; a remove note on the "
               "case does the same for one case)");
  sub.add_option("--undecided", flags.undecided,
                 "the exit status when a case is inconclusive and nothing fails: pass (exit 0) or "
                 "fail (exit 1); the title says undecided either way")
      ->check(CLI::IsMember({"pass", "fail"}))
      ->default_str("pass");
}

compare::CompareOptions compare_options_from(const CompareFlags& flags, Config config) {
  compare::CompareOptions options;
  options.alpha = flags.alpha;
  options.threshold = flags.threshold / 100.0;
  options.deterministic_threshold = flags.deterministic_threshold / 100.0;
  options.metrics = flags.metrics;
  options.fail_on = parse_fail_on(flags.fail_on);
  options.require_same_env = flags.require_same_env;
  options.allow_missing = flags.allow_missing;
  options.undecided_fails = flags.undecided == "fail";
  options.config = std::move(config);
  return options;
}

int run_gating(const std::function<int()>& run) {
  try {
    return run();
  } catch (const IntegrityError& e) {
    throw Error(e.what());
  }
}

}  // namespace benchledger::cli
