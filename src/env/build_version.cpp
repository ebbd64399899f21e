// The version text cmake/build_version.cmake generates, compiled into this one file so that a
// new commit recompiles it alone.
#include "env/build_version.hpp"

#include "benchledger_build_version.h"

namespace benchledger::env {

std::string_view benchledger_version() {
  return BENCHLEDGER_VERSION_TEXT;
}

}  // namespace benchledger::env
