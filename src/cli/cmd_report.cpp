// `benchledger report`: not built yet; its issue replaces this file.
#include "cli/unbuilt.hpp"

namespace benchledger::cli {

Runner add_report_command(CLI::App& app) {
  return add_unbuilt_command(app, "report", "write a Markdown or HTML report from the ledger");
}

}  // namespace benchledger::cli
