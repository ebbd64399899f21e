#include "process/executor.hpp"

#include <chrono>

namespace benchledger::process {

Exit SystemExecutor::run(const Spec& spec) {
  return process::run(spec);
}

std::int64_t SystemExecutor::now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace benchledger::process
