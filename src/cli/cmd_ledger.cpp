// `benchledger ledger`: not built yet; its issue replaces this file.
#include "cli/unbuilt.hpp"

namespace benchledger::cli {

Runner add_ledger_command(CLI::App& app) {
  return add_unbuilt_command(app, "ledger", "verify, list, import and export ledgers");
}

}  // namespace benchledger::cli
