// benchledger: one multi-call binary. Called as bench-run, bench-compare, bench-report,
// bench-ledger or bench-gate it acts as that subcommand.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/command_line.hpp"
#include "cli/subcommand.hpp"
#include "env/build_version.hpp"

namespace benchledger::cli {

bool use_colour(int fd) {
  const char* no_colour = std::getenv("NO_COLOR");
  return ::isatty(fd) == 1 && (no_colour == nullptr || *no_colour == '\0');
}

namespace {

// The subcommand a link name stands for, or empty for `benchledger` itself.
std::string subcommand_of_link(const char* argv0) {
  const std::string name = std::filesystem::path(argv0).filename().string();
  for (const char* sub : {"run", "compare", "report", "ledger", "gate"}) {
    if (name == std::string("bench-") + sub) return sub;
  }
  return {};
}

}  // namespace
}  // namespace benchledger::cli

int main(int argc, char** argv) {
  using namespace benchledger::cli;
  std::vector<std::string> args;
  const std::string link_of = subcommand_of_link(argv[0]);
  if (!link_of.empty()) args.push_back(link_of);
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);

  CLI::App app{"benchledger: benchmark results you can trust, in an append-only ledger",
               "benchledger"};
  // A link names itself as GNU tools do (`bench-run (benchledger) 0.1.0`), so that help2man
  // writes its man page under its own name.
  const std::string version =
      link_of.empty() ? fmt::format("benchledger {}", benchledger::env::benchledger_version())
                      : fmt::format("bench-{} (benchledger) {}", link_of,
                                    benchledger::env::benchledger_version());
  app.set_version_flag("--version", version);
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, Runner>> runners;
  const auto add = [&](const char* name, Runner (*adder)(CLI::App&)) {
    Runner runner = adder(app);
    runners.emplace_back(app.get_subcommand(name), std::move(runner));
  };
  add("env", add_env_command);
  add("run", add_run_command);
  add("compare", add_compare_command);
  add("report", add_report_command);
  add("ledger", add_ledger_command);
  add("gate", add_gate_command);
  add("bisect", add_bisect_command);
  add("history", add_history_command);
  add("detect", add_detect_command);
  add("explain", add_explain_command);
  // `bench-run --version` is `benchledger run --version`: each subcommand answers it too.
  for (auto& [subcommand, runner] : runners) subcommand->set_version_flag("--version", version);

  if (args.empty()) {
    // A bare `benchledger` is someone finding their way: the subcommands, not only "A subcommand
    // is required".
    std::cerr << app.help();
    return 2;
  }
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them reversed
  return run_command_line(
      "benchledger", app, [&] { app.parse(reversed); },
      [&] {
        for (auto& [sub, runner] : runners) {
          if (sub != nullptr && sub->parsed()) return runner();
        }
        return 2;
      });
}
