// `benchledger run`: not built yet; its issue replaces this file.
#include "cli/unbuilt.hpp"

namespace benchledger::cli {

Runner add_run_command(CLI::App& app) {
  return add_unbuilt_command(app, "run", "measure benchmarks and append them to the ledger");
}

}  // namespace benchledger::cli
