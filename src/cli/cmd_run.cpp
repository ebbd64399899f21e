// `benchledger run`: measure bundled suites, commands or another harness's output, and append
// the run with its results to the ledger. The work is in run_frontend.cpp, which native
// benchmark programs (BENCHLEDGER_MAIN) share.
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <benchledger/error.hpp>

#include "cli/run_frontend.hpp"
#include "cli/subcommand.hpp"
#include "suites/suites.hpp"

namespace benchledger::cli {

namespace {

// argv as the kernel has it, for the run record's `command`.
std::vector<std::string> process_arguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  std::string current;
  for (char c : all) {
    if (c == '\0') {
      args.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) args.push_back(current);
  return args;
}

void define_bundled_suite(const std::string& name, Registry& registry) {
  const suites::Suite* suite = suites::find_suite(name);
  if (suite == nullptr) {
    std::string known;
    for (const auto& s : suites::bundled_suites()) known += (known.empty() ? "" : ", ") + s.name;
    throw Error("--suite " + name + ": no such suite (bundled: " + known + ")");
  }
  suite->define(registry);
}

}  // namespace

Runner add_run_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand("run",
                                     "measure benchmarks (bundled suites, commands, other "
                                     "harnesses' output) and append them to the ledger");
  auto options = std::make_shared<RunOptions>();
  add_run_options(*sub, *options, false);
  sub->footer(
      "examples:\n"
      "  benchledger run --suite executors --baseline\n"
      "  benchledger run --runs 20 --param ms=10,50 -- sleep 0.0{ms}\n"
      "  benchledger run --import google-benchmark results.json\n"
      "docs/engine.md describes the measurement and the metrics.");
  return [options]() -> int {
    RunContext context;
    context.argv = process_arguments();
    context.define_suite = define_bundled_suite;
    return execute_run(*options, context);
  };
}

}  // namespace benchledger::cli
