// `benchledger compare`: not built yet; its issue replaces this file.
#include "cli/unbuilt.hpp"

namespace benchledger::cli {

Runner add_compare_command(CLI::App& app) {
  return add_unbuilt_command(app, "compare", "compare two runs and gate on regressions");
}

}  // namespace benchledger::cli
