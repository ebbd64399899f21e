// How a subcommand plugs into the multi-call binary: it adds itself to the CLI11 app and
// returns the function that runs it once the command line is parsed. The runner returns the
// exit code; it may throw benchledger::Error (exit 2) or benchledger::IntegrityError (exit 1),
// which main prints on stderr.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace benchledger::cli {

using Runner = std::function<int()>;

// Each is defined in its own cmd_<name>.cpp.
Runner add_env_command(CLI::App& app);
Runner add_run_command(CLI::App& app);
Runner add_compare_command(CLI::App& app);
Runner add_report_command(CLI::App& app);
Runner add_ledger_command(CLI::App& app);
Runner add_gate_command(CLI::App& app);
Runner add_bisect_command(CLI::App& app);
Runner add_history_command(CLI::App& app);
Runner add_detect_command(CLI::App& app);
Runner add_explain_command(CLI::App& app);

// True when colour may be used on this stream: a terminal and NO_COLOR unset or empty.
bool use_colour(int fd);

}  // namespace benchledger::cli
