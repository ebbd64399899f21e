// `benchledger env`: not built yet; its issue replaces this file.
#include "cli/unbuilt.hpp"

namespace benchledger::cli {

Runner add_env_command(CLI::App& app) {
  return add_unbuilt_command(app, "env", "print the environment fingerprint");
}

}  // namespace benchledger::cli
