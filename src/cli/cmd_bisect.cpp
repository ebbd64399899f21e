// `benchledger bisect GOOD BAD --case CASE` (docs/history.md): the first commit between GOOD and
// BAD where CASE regressed, found by git bisect (src/gate/bisect.hpp). Each commit git chooses
// is built and measured against GOOD by the gate's own steps (`gate.build` and `gate.run` of the
// commit's benchledger.json, interleaved rounds), judged as `compare` judges, and marked bad when
// CASE regressed, good otherwise, skip when it does not build. Every measured run is appended to
// the ledger. Exit 0 when a first bad commit was found, 1 when only skipped commits are left
// between a good and a bad one, 2 for usage or data errors (BAD not regressed, GOOD no ancestor).
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <benchledger/error.hpp>
#include <benchledger/ledger.hpp>

#include "cli/compare_flags.hpp"
#include "cli/revision_steps.hpp"
#include "cli/subcommand.hpp"
#include "compare/comparison.hpp"
#include "gate/bisect.hpp"
#include "gate/gate.hpp"
#include "ledger/series_filter.hpp"
#include "report/format.hpp"

namespace benchledger::cli {
namespace {

struct BisectCliOptions {
  std::string good, bad;
  std::vector<std::string> cases;
  std::string out = "benchledger-bisect";
  std::optional<std::string> ledger;
  std::optional<int> rounds;
  CompareFlags judging;
};

std::string short_commit(const std::string& commit) {
  return commit.substr(0, 12);
}

// The verdicts on CASE's metrics, as one mark: bad when any regressed.
struct Judgement {
  gate::BisectMark mark = gate::BisectMark::good;
  std::string summary;  // `work {…} user: regression (+31.2%)`, one per compared metric
};

Judgement judge(const compare::ComparisonReport& report, const std::vector<std::string>& cases) {
  Judgement out;
  for (const compare::CaseComparison& c : report.cases) {
    if (!ledger::case_matches(cases, c.bench, c.params)) continue;
    if (c.verdict == compare::Verdict::regression) out.mark = gate::BisectMark::bad;
    out.summary += fmt::format("{}{} {}: {}{}", out.summary.empty() ? "" : "; ",
                               case_key(c.bench, c.params), c.metric, to_string(c.verdict),
                               c.change ? " (" + report::format_change(*c.change) + ")" : "");
  }
  if (out.summary.empty()) {
    throw Error(fmt::format(
        "no case measured matches --case {}: the comparison has {}", fmt::join(cases, " "),
        report.cases.empty()
            ? std::string("no case")
            : case_key(report.cases.front().bench, report.cases.front().params) + " and others"));
  }
  return out;
}

int run_bisect(const BisectCliOptions& options) {
  const compare::CompareOptions judging_template = compare_options_from(options.judging, Config{});
  const std::filesystem::path out = std::filesystem::absolute(options.out);
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec) throw Error(fmt::format("cannot create --out {}: {}", out.string(), ec.message()));
  const std::filesystem::path log = out / "bisect.log";
  remove_earlier_output(log);
  const std::unique_ptr<ledger::Store> store =
      ledger::open_store(options.ledger ? *options.ledger : ledger::default_ledger_uri());

  const WorkDirectory work("bisect", false);
  gate::GateSettings measuring;
  measuring.start = std::filesystem::current_path();
  measuring.benchledger = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("cannot find this program's own path: " + ec.message());
  measuring.rounds = options.rounds;
  measuring.log = log;
  measuring.command = own_arguments();
  measuring.progress = [](const std::string& line) { std::cerr << "bisect: " << line << '\n'; };
  measuring.check_config = check_gate_run_entries;

  gate::BisectSettings settings;
  settings.start = measuring.start;
  settings.good_revision = options.good;
  settings.bad_revision = options.bad;
  settings.work = work.path();
  settings.log = log;

  std::size_t step = 0;
  std::vector<std::string> lines;
  const auto test = [&](const std::string& commit) {
    measuring.base_revision = options.good;
    measuring.head_revision = commit;
    measuring.work = work.path() / fmt::format("step-{}", ++step);
    std::filesystem::create_directories(measuring.work);
    std::cerr << fmt::format("bisect: testing {}\n", short_commit(commit));
    gate::GateMeasurement measured;
    try {
      measured = gate::measure_revisions(measuring);
    } catch (const gate::BuildFailed& e) {
      if (e.side() != "head") throw;
      lines.push_back(fmt::format("{}  skip: it does not build", short_commit(commit)));
      std::cerr << "bisect: " << lines.back() << '\n';
      return gate::BisectMark::skip;
    }
    // Every measured run is kept, GOOD's of each step too: they are the evidence.
    for (gate::PooledSide* side : {&measured.base, &measured.head}) {
      side->run.label = side == &measured.base ? "bisect-good" : "bisect";
      std::vector<Record> batch{side->run};
      for (const ResultRecord& result : side->results) batch.emplace_back(result);
      store->append(batch);
    }
    compare::CompareOptions judging = judging_template;
    judging.config = measured.config;
    judging.pairs = measured.pairs;  // the gate's default design: paired rounds
    const compare::ComparisonReport report = compare::compare_sides(
        {{measured.base.run}, measured.base.results}, {{measured.head.run}, measured.head.results},
        store->notes(), judging);
    const Judgement judgement = judge(report, options.cases);
    lines.push_back(fmt::format("{}  {}: {} (run {})", short_commit(commit),
                                judgement.mark == gate::BisectMark::bad ? "bad" : "good",
                                judgement.summary, measured.head.run.header.id));
    std::cerr << "bisect: " << lines.back() << '\n';
    return judgement.mark;
  };
  const gate::BisectOutcome outcome = gate::bisect(settings, test);

  for (const std::string& line : lines) std::cout << line << '\n';
  if (outcome.first_bad) {
    std::cout << fmt::format("first bad commit: {} ({} commits tested; runs in {})\n",
                             *outcome.first_bad, outcome.steps.size(), store->uri());
    return 0;
  }
  std::cout << fmt::format(
      "the first bad commit is one of {} (the others were skipped: they do not build)\n",
      fmt::join(outcome.candidates, " "));
  return 1;
}

}  // namespace

Runner add_bisect_command(CLI::App& app) {
  auto options = std::make_shared<BisectCliOptions>();
  CLI::App* sub = app.add_subcommand(
      "bisect",
      "find the first commit between GOOD and BAD where a case regressed: git bisect, each "
      "commit built and measured against GOOD with the gate's steps");
  sub->add_option("GOOD", options->good, "a revision where the case was fine")->required();
  sub->add_option("BAD", options->bad, "a later revision where it regressed")->required();
  sub->add_option("--case", options->cases,
                  "the case: a glob over the bench name or the case key (bench{params})")
      ->required();
  sub->add_option("--out", options->out, "directory for bisect.log")
      ->default_str("benchledger-bisect");
  sub->add_option(
      "--ledger", options->ledger,
      "append every measured run here (default: BENCHLEDGER_LEDGER, the config file, or "
      "ledger/ledger.ndjson under the repository root)");
  sub->add_option(
         "--rounds", options->rounds,
         "rounds a side at each commit (default: gate.rounds of benchledger.json, else 10)")
      ->check(CLI::Range(1, 1000));
  add_compare_flags(*sub, options->judging);
  sub->footer(
      "reads \"gate\": {\"build\": ..., \"run\": [...]} from each tested commit's "
      "benchledger.json;\ndocs/history.md describes bisect.");
  return
      [options]() -> int { return run_stoppable("bisect", [&] { return run_bisect(*options); }); };
}

}  // namespace benchledger::cli
