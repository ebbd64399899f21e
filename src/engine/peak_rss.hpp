// The peak resident set of this process, resettable so that each case gets its own.
#pragma once

#include <cstdint>
#include <optional>

namespace benchledger::engine {

// Resets the kernel's high-water mark of this process's resident set to its current size
// (writes 5 to /proc/self/clear_refs, Linux 4.0+). Best effort: does nothing where that file
// is not writable.
void reset_peak_rss() noexcept;

// VmHWM of /proc/self/status in bytes, else getrusage's ru_maxrss; nullopt when neither is
// readable.
std::optional<std::int64_t> peak_rss_bytes() noexcept;

}  // namespace benchledger::engine
