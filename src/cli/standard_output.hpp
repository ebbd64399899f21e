// Whether what a command wrote to standard output got there. A command whose output went
// nowhere (`> /dev/full`, a full disk, a closed pipe's EIO) must not exit 0: a CI job saving
// `ledger verify`'s head would keep an empty file and believe it.
#pragma once

#include <optional>
#include <string>

namespace benchledger::cli {

// The exit code of a command whose standard output could not be written (README, "Exit codes").
inline constexpr int k_exit_stdout_failed = 2;

// Flushes std::cout and stdout and closes standard output; the reason, when anything written to
// it since the process started was not written (or the close failed), else nullopt. Call it
// once, as the last thing before exiting: standard output is closed afterwards.
std::optional<std::string> close_standard_output();

}  // namespace benchledger::cli
