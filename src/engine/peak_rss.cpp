// Peak resident set size from /proc/self/status (VmHWM), reset through /proc/self/clear_refs.
#include "engine/peak_rss.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <tuple>

namespace benchledger::engine {

void reset_peak_rss() noexcept {
  const int fd = ::open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return;
  std::ignore = ::write(fd, "5", 1);  // nothing to do if the kernel refuses: the peak stays global
  std::ignore = ::close(fd);
}

std::optional<std::int64_t> peak_rss_bytes() noexcept {
  if (std::FILE* status = std::fopen("/proc/self/status", "re")) {
    char line[256];
    long long kib = -1;
    while (std::fgets(line, sizeof line, status) != nullptr) {
      if (std::strncmp(line, "VmHWM:", 6) == 0 && std::sscanf(line + 6, "%lld", &kib) == 1) break;
    }
    std::fclose(status);
    if (kib >= 0) return static_cast<std::int64_t>(kib) * 1024;
  }
  rusage usage{};
  if (::getrusage(RUSAGE_SELF, &usage) == 0)
    return static_cast<std::int64_t>(usage.ru_maxrss) * 1024;
  return std::nullopt;
}

}  // namespace benchledger::engine
