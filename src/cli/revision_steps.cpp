#include "cli/revision_steps.hpp"

#include <fstream>
#include <iostream>
#include <system_error>
#include <tuple>

#include <fmt/format.h>
#include <benchledger/error.hpp>

#include "cli/command_line.hpp"
#include "cli/compare_flags.hpp"
#include "cli/run_frontend.hpp"
#include "cli/run_steps.hpp"
#include "gate/steps.hpp"
#include "gate/worktree.hpp"
#include "ledger/ledger_file.hpp"
#include "process/temp_dir.hpp"

namespace benchledger::cli {

WorkDirectory::WorkDirectory(const std::string& name, bool keep)
    : m_dir("benchledger-" + name, "the worktrees"), m_keep(keep) {
  gate::claim_work_directory(m_dir.path());  // m_dir goes with the Error it may throw
}

WorkDirectory::~WorkDirectory() {
  // The worktrees are gone already; this is their empty parent, unless kept.
  if (m_keep) {
    gate::release_work_directory(m_dir.path());
    m_dir.release();
  }
}

std::filesystem::path WorkDirectory::parent() {
  return process::temp_root();
}

std::vector<std::string> own_arguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  std::string arg;
  while (std::getline(in, arg, '\0')) args.push_back(arg);
  return args;
}

void remove_earlier_output(const std::filesystem::path& path) {
  if (const auto ledger = ledger::ledger_in_file(path)) {
    throw Error(fmt::format(
        "cannot remove the earlier {}: it is {}, which nothing removes (choose another --out; "
        "nothing was measured or written)",
        path.string(), *ledger));
  }
  std::error_code ec;
  std::filesystem::remove(path, ec);
  if (ec) throw Error(fmt::format("cannot remove the earlier {}: {}", path.string(), ec.message()));
}

std::unique_ptr<ledger::Store> open_gate_ledger(const std::optional<std::string>& ledger,
                                                const std::filesystem::path& out) {
  if (ledger) return ledger::open_store(*ledger);
  const std::filesystem::path file = out / "ledger.ndjson";
  std::unique_ptr<ledger::Store> store = ledger::open_store(file.string());
  std::error_code ec;
  if (!std::filesystem::exists(file, ec) && !ec) return store;  // the first gate's runs make it
  // Its records are read in full once: what an append checks (the last record) would let a gate
  // measure for minutes and then chain its runs onto a ledger broken further up, or fail at the
  // end on a file that is no ledger at all.
  ledger::VerifyReport report;
  try {
    report = store->verify(std::nullopt);
  } catch (const Error& e) {
    throw Error(fmt::format("cannot append the gate's runs to {}: {} (nothing was measured)",
                            file.string(), e.what()));
  }
  if (!report.ok) {
    throw Error(fmt::format(
        "cannot append the gate's runs to {}: it is not a valid ledger ({} break{}, the first: "
        "{}); it was left as it is and nothing was measured (`benchledger ledger verify "
        "--ledger {}` lists every break; or choose another --out)",
        file.string(), report.break_count, report.break_count == 1 ? "" : "s", report.problem,
        file.string()));
  }
  return store;
}

void check_gate_run_entries(const Config& config, const std::string& origin) {
  if (!config.gate) return;
  const GateSpec& spec = *config.gate;
  for (std::size_t i = 0; i < spec.run.size(); ++i) {
    const std::string field = fmt::format("{}: field \"gate.run[{}]\"", origin, i);
    CLI::App app;
    RunOptions options;
    add_run_options(app, options, false);
    // CLI11 takes the arguments last first.
    std::vector<std::string> words(spec.run[i].rbegin(), spec.run[i].rend());
    try {
      app.parse(words);
    } catch (const CLI::ParseError& e) {
      throw Error(fmt::format("{}: `benchledger run` refuses it: {}", field, e.what()));
    }
    if (options.show_output) {
      throw Error(fmt::format(
          "{}: --show-output would send the command's output into the records the gate reads; "
          "the gate keeps the last lines of a failed run's stderr in its comparison and gate.log",
          field));
    }
    try {
      std::ignore = check_options(options);
    } catch (const Error& e) {
      throw Error(fmt::format("{}: {}", field, e.what()));
    }
  }
}

int run_stoppable(const std::string& name, const std::function<int()>& run) {
  // Ctrl-C or a CI runner's SIGTERM must not leave worktrees behind.
  return run_until_stopped(
      name, [&] { return run_gating(run); }, [] { return "its worktrees are removed"; });
}

}  // namespace benchledger::cli
