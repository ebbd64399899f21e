// `benchledger gate BASE_REV [HEAD_REV]` (bench-gate): the pre-merge gate in any git repository.
// src/gate builds and measures both revisions; this file stores the two runs, compares them
// as `compare` does and writes the comparison in every format to --out. Exit 0 when the gate
// passes, 1 when it fails, 2 when no comparison could be made (main turns Error into 2).
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <benchledger/error.hpp>
#include <benchledger/ledger.hpp>

#include "cli/command.hpp"
#include "cli/compare_flags.hpp"
#include "cli/gate_steps.hpp"
#include "compare/comparison.hpp"
#include "gate/gate.hpp"
#include "report/compare_render.hpp"

namespace benchledger::cli {
namespace {

// GitHub refuses a pull-request comment over 65,536 characters; the rest is room for the line
// that ci/gate.sh puts in front to find its comment again.
constexpr std::size_t k_comment_limit = 65000;

struct GateCliOptions {
  std::string base, head = "HEAD";
  std::string out = "benchledger-gate";
  std::optional<std::string> ledger;
  std::optional<int> rounds;
  std::string order = "interleaved";
  bool keep_worktrees = false;
  CompareFlags judging;
};

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw Error("cannot write " + path.string());
}

int run_gate(const GateCliOptions& options) {
  const compare::CompareOptions judging_template = compare_options_from(options.judging, Config{});
  const std::filesystem::path out = std::filesystem::absolute(options.out);
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec) throw Error(fmt::format("cannot create --out {}: {}", out.string(), ec.message()));
  // Results of an earlier gate must not pass for this one's if it stops early.
  for (const char* name :
       {"comparison.md", "comparison.json", "comparison.xml", "comparison.txt", "gate.log"}) {
    remove_earlier_output(out / name);
  }

  gate::GateSettings settings;
  settings.start = std::filesystem::current_path();
  settings.base_revision = options.base;
  settings.head_revision = options.head;
  settings.benchledger = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("cannot find this program's own path: " + ec.message());
  settings.rounds = options.rounds;
  settings.order =
      options.order == "sequential" ? gate::Order::sequential : gate::Order::interleaved;
  settings.keep_worktrees = options.keep_worktrees;
  settings.log = out / "gate.log";
  settings.command = own_arguments();
  settings.progress = [](const std::string& line) { std::cerr << "gate: " << line << std::endl; };
  const WorkDirectory work("gate", options.keep_worktrees);
  settings.work = work.path();
  if (options.keep_worktrees) {
    std::cerr << "gate: worktrees kept under " << settings.work.string() << '\n';
  }

  // The runs are appended to --ledger, or to the ledger under --out that other gates may share:
  // chosen (and that one verified) before minutes of measuring, never truncated or replaced.
  const std::unique_ptr<ledger::Store> store = open_gate_ledger(options.ledger, out);
  const gate::GateMeasurement measured = gate::measure_revisions(settings);

  for (const gate::PooledSide* side : {&measured.base, &measured.head}) {
    std::vector<Record> batch;
    batch.emplace_back(side->run);
    for (const ResultRecord& result : side->results) batch.emplace_back(result);
    store->append(batch);
  }

  compare::CompareOptions judging = judging_template;
  judging.config = measured.head_config;
  const compare::Side base{{measured.base.run}, measured.base.results};
  const compare::Side head{{measured.head.run}, measured.head.results};
  const std::vector<NoteRecord> notes = store->notes();
  const compare::ComparisonReport report = compare::compare_sides(base, head, notes, judging);

  write_file(out / "comparison.md",
             report::fit_comment(report::render_comparison_markdown(report), k_comment_limit,
                                 "comparison.md in the job's artifacts"));
  write_file(out / "comparison.json", report::render_comparison_json(report));
  write_file(out / "comparison.xml", report::render_comparison_junit(report));
  write_file(out / "comparison.txt", report::render_comparison_table(report, false));
  std::cout << report::render_comparison_table(report, use_colour(STDOUT_FILENO));
  std::cout.flush();
  if (!std::cout) throw Error("cannot write the comparison to standard output");
  std::cerr << fmt::format(
      "gate: {} rounds a side, {}; runs {} (base) and {} (head) in {}; "
      "results in {}\n",
      measured.rounds, options.order, measured.base.run.header.id, measured.head.run.header.id,
      store->uri(), out.string());
  return report.gate_pass ? 0 : 1;
}

}  // namespace

Runner add_gate_command(CLI::App& app) {
  auto options = std::make_shared<GateCliOptions>();
  CLI::App* sub = app.add_subcommand(
      "gate",
      "build and measure two revisions of this git repository, interleaved, and gate on the "
      "comparison (exit 1 on failure)");
  sub->add_option("BASE_REV", options->base, "the base revision (a branch, tag or commit)")
      ->required();
  sub->add_option("HEAD_REV", options->head, "the revision judged")->default_str("HEAD");
  sub->add_option("--out", options->out,
                  "directory for comparison.md/.json/.xml/.txt, gate.log and the ledger")
      ->default_str("benchledger-gate");
  sub->add_option(
      "--ledger", options->ledger,
      "append the two runs to this ledger (default: ledger.ndjson in --out, appended to)");
  sub->add_option("--rounds", options->rounds,
                  "rounds a side (default: gate.rounds of benchledger.json, else 5)")
      ->check(CLI::Range(1, 1000));
  sub->add_option("--order", options->order,
                  "interleaved (base and head alternate) or sequential (every base round first; "
                  "for contrast only)")
      ->check(CLI::IsMember({"interleaved", "sequential"}))
      ->default_str("interleaved");
  sub->add_flag("--keep-worktrees", options->keep_worktrees,
                "keep the checked-out and built revisions (their path is printed)");
  add_compare_flags(*sub, options->judging);
  sub->footer(
      "reads \"gate\": {\"build\": ..., \"run\": [...]} from HEAD_REV's benchledger.json;\n"
      "docs/ci-gate.md describes the section, the rounds and the CI templates.");
  return [options]() -> int { return run_stoppable("gate", [&] { return run_gate(*options); }); };
}

}  // namespace benchledger::cli
