// What benchledger-spawn answers for each run it starts (see spawn_helper.cpp).
#pragma once

#include <cstdint>

namespace benchledger::engine {

struct SpawnResponse {
  std::int64_t wall_ns;  // from just before posix_spawn to wait4's return
  std::int64_t user_us;  // rusage of this run from wait4
  std::int64_t sys_us;
  std::int64_t max_rss_kib;  // ru_maxrss
  std::int32_t exited;       // 1 when the command exited, with exit_code
  std::int32_t exit_code;
  std::int32_t signaled;  // 1 when a signal ended it
  std::int32_t signal;
  std::int32_t timed_out;    // 1 when killed (with its process group) past the timeout
  std::int32_t spawn_errno;  // non-zero when the command could not be started
};

}  // namespace benchledger::engine
