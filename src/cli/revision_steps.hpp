// The steps around measuring revisions of the user's repository in worktrees, which `gate` and
// `bisect` share on the command line (bisect builds and measures each commit as the gate does): a
// temporary directory for the worktrees, the command's own argv for the runs it records, running
// under StopSignals so that Ctrl-C or a CI runner's SIGTERM removes the worktrees before the
// process ends by that signal, and the files they keep in --out, where no ledger is ever
// truncated or replaced.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <benchledger/config.hpp>
#include <benchledger/ledger.hpp>

#include "process/temp_dir.hpp"

namespace benchledger::cli {

// A fresh directory `TMPDIR/benchledger-NAME-XXXXXX` for the worktrees, removed with what is
// left in it on destruction unless `keep`: outside the user's repository, so that nothing
// checked out shows in its `git status`. It holds an owner file naming this process
// (gate::claim_work_directory) while in use, so that a later gate can tell it from a killed
// one's; a kept one gives it up. Throws Error when it cannot be made.
class WorkDirectory {
 public:
  WorkDirectory(const std::string& name, bool keep);
  ~WorkDirectory();
  WorkDirectory(const WorkDirectory&) = delete;
  WorkDirectory& operator=(const WorkDirectory&) = delete;
  const std::filesystem::path& path() const { return m_dir.path(); }
  static std::filesystem::path parent();  // TMPDIR, else /tmp

 private:
  process::TempDir m_dir;
  bool m_keep;
};

// argv as the kernel has it, for the measured runs' `command`.
std::vector<std::string> own_arguments();

// Removes what an earlier gate or bisect left at `path` in --out (a comparison, a log), so that it
// cannot pass for this one's if this one stops early. Throws Error, removing nothing, when the
// file holds a ledger (ledger::ledger_in_file): --out may be a ledger's own directory.
void remove_earlier_output(const std::filesystem::path& path);

// The ledger the gate appends its two runs to: `ledger` (--ledger) when given, else
// `out`/ledger.ndjson, created by the first gate and appended to by every later one, so that
// gates sharing an --out (one after the other or at once) keep every run. An existing
// `out`/ledger.ndjson is verified first, before anything is measured: throws Error naming it,
// with the file left as it is, when it is not a valid ledger.
std::unique_ptr<ledger::Store> open_gate_ledger(const std::optional<std::string>& ledger,
                                                const std::filesystem::path& out);

// Checks what load_config cannot of a gate section (`origin` names the file in messages,
// `benchledger.json at HEAD`): each gate.run entry's flags as `benchledger run` parses and checks
// them, and no --show-output, which would send the command's output into the records the gate
// reads. Throws Error naming the entry (`field "gate.run[0]"`).
void check_gate_run_entries(const Config& config, const std::string& origin);

// Runs `run` (through run_gating: exit 1 is the command's verdict) with StopSignals alive; after
// a stop signal, says so on stderr (`NAME: stopped by signal …`) and ends by that signal.
int run_stoppable(const std::string& name, const std::function<int()>& run);

}  // namespace benchledger::cli
