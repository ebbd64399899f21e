// Which benchledger this is (docs/install.md, "Which benchledger"): what `--version` prints and
// every run records as env.runtimes.benchledger.
#pragma once

#include <string_view>

namespace benchledger::env {

// The release version and, for a build from a git checkout of benchledger, its `git describe
// --dirty` in parentheses: `0.1.0 (git 0b0e41e5d2a1-dirty)`; `0.1.0` for a build from a source
// tree outside git. Fixed at build time.
std::string_view benchledger_version();

}  // namespace benchledger::env
