// A subcommand whose issue has not landed: it is listed, and says so with exit 2, instead of
// pretending to work. Remove a command's use of this when its file is written.
#pragma once

#include <string>

#include <benchledger/error.hpp>

#include "cli/command.hpp"

namespace benchledger::cli {

inline Runner add_unbuilt_command(CLI::App& app, const std::string& name,
                                  const std::string& description) {
  CLI::App* sub = app.add_subcommand(name, description + " (not built yet)");
  sub->allow_extras();
  return [name]() -> int {
    throw Error("'" + name + "' is not built yet in this version of benchledger");
  };
}

}  // namespace benchledger::cli
