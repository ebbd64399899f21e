// close_standard_output(): every write to standard output checked once, at the end (see
// standard_output.hpp). std::cout writes through C's stdout (sync_with_stdio is left on), so
// stdout's error flag remembers a failed write of either, whenever it happened.
#include "cli/standard_output.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

namespace benchledger::cli {

std::optional<std::string> close_standard_output() {
  errno = 0;
  std::cout.flush();  // flushes stdout too: its failure's errno is the one to report
  const bool stream_failed = std::cout.bad();
  int flush_errno = errno;
  errno = 0;
  const bool flush_failed = std::fflush(stdout) != 0;
  if (flush_errno == 0) flush_errno = errno;
  const bool write_failed = std::ferror(stdout) != 0;
  errno = 0;
  const int closed = std::fclose(stdout);
  const int close_errno = errno;
  if (stream_failed || flush_failed || write_failed) {
    const int error = flush_errno != 0 ? flush_errno : close_errno;
    return std::string("cannot write to standard output") +
           (error != 0 ? std::string(": ") + std::strerror(error) : std::string()) +
           " (the output is incomplete or missing)";
  }
  // Closing a standard output that was never open (`>&-`) fails with EBADF; a write to it would
  // have failed above, so nothing was lost.
  if (closed != 0 && close_errno != EBADF) {
    return std::string("cannot close standard output: ") + std::strerror(close_errno) +
           " (the output may be incomplete)";
  }
  return std::nullopt;
}

}  // namespace benchledger::cli
