// What benchledger-spawn answers for each run it starts (see spawn_helper.cpp), and the framing
// both ends read and write it with.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstddef>
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

// All of `size` bytes from `fd`, again after EINTR; false at end of file or on an error. Both
// ends of the protocol use it (libc only, for the helper), and so does a forked native case.
inline bool read_exact(int fd, void* buffer, std::size_t size) {
  auto* at = static_cast<char*>(buffer);
  while (size > 0) {
    const ssize_t n = ::read(fd, at, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    at += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// All of `size` bytes to `fd`, again after EINTR; false when the reader has gone or on an error.
inline bool write_exact(int fd, const void* buffer, std::size_t size) {
  const auto* at = static_cast<const char*>(buffer);
  while (size > 0) {
    const ssize_t n = ::write(fd, at, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    at += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace benchledger::engine
