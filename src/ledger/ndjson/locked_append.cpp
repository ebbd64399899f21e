// The writer's side of an NDJSON ledger (see locked_append.hpp and ndjson_store.hpp).
#include "ledger/ndjson/locked_append.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "ledger/canonical.hpp"
#include "ledger/chain.hpp"
#include "ledger/ledger_file.hpp"
#include "ledger/ndjson/file_ops.hpp"
#include "ledger/ndjson/line_reader.hpp"

namespace benchledger::ledger::ndjson {

std::string errno_text(int error) {
  return std::strerror(error);
}

namespace {

void pread_exact(int fd, char* out, std::size_t size, std::int64_t offset,
                 const std::string& name) {
  while (size > 0) {
    const ssize_t got = ::pread(fd, out, size, offset);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw Error(fmt::format("cannot read {}: {}", name, errno_text(errno)));
    if (got == 0) throw Error(fmt::format("cannot read {}: it shrank while being read", name));
    out += got;
    size -= static_cast<std::size_t>(got);
    offset += got;
  }
}

std::string read_range(int fd, std::int64_t from, std::int64_t to, const std::string& name) {
  std::string out(static_cast<std::size_t>(to - from), '\0');
  pread_exact(fd, out.data(), out.size(), from, name);
  return out;
}

// The offset of the last '\n' in [from, before), or -1: reads backwards in blocks, so finding
// the last record of a large ledger costs one or two reads.
std::int64_t rfind_newline(int fd, std::int64_t before, const std::string& name,
                           std::int64_t from = 0) {
  constexpr std::int64_t k_block = 64 * 1024;
  std::string block;
  while (before > from) {
    const std::int64_t start = std::max(from, before - k_block);
    block.resize(static_cast<std::size_t>(before - start));
    pread_exact(fd, block.data(), block.size(), start, name);
    const void* hit = ::memrchr(block.data(), '\n', block.size());
    if (hit != nullptr) return start + (static_cast<const char*>(hit) - block.data());
    before = start;
  }
  return -1;
}

// The line that ends just before `end` (the offset after its '\n'), and where it starts; nullopt
// when it is over the line limit (read no further than the limit).
std::optional<std::pair<std::int64_t, std::string>> line_before(int fd, std::int64_t end,
                                                                const std::string& name) {
  const std::int64_t lowest =
      std::max<std::int64_t>(0, end - 1 - static_cast<std::int64_t>(k_max_line_bytes) - 1);
  const std::int64_t newline = rfind_newline(fd, end - 1, name, lowest);
  if (newline < 0 && lowest > 0) return std::nullopt;
  const std::int64_t start = newline + 1;
  return std::pair{start, read_range(fd, start, end - 1, name)};
}

// The head to chain a batch onto: the hash of the last complete line of [0, end), where end is
// just after a '\n' (or 0), once that line is checked (checked_tail). Reads the last two lines
// only, backwards, whatever the ledger's size.
std::string checked_head(int fd, std::int64_t end, const std::string& name) {
  if (end == 0) return std::string(k_zero_hash);
  const auto refuse_long = [&](const char* which) {
    throw IntegrityError(fmt::format(
        "cannot append to {}: {} is over the limit of {} bytes a line (nothing was written; "
        "run `benchledger ledger verify`)",
        name, which, k_max_line_bytes));
  };
  const auto last = line_before(fd, end, name);
  if (!last) refuse_long("its last line");
  std::optional<std::string> before;
  if (last->first > 0) {
    auto line = line_before(fd, last->first, name);
    if (!line) refuse_long("the line before its last");
    before = std::move(line->second);
  }
  return checked_tail(name, "its last line", last->second,
                      before ? std::optional<std::string_view>(*before) : std::nullopt);
}

void fsync_directory(const std::filesystem::path& dir) {
  const Fd fd(::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0 || ::fsync(fd.get()) != 0) {
    throw Error(
        fmt::format("cannot make directory {} durable: {}", dir.string(), errno_text(errno)));
  }
}

// Creates the missing directories above `path`, each made durable in its parent.
void make_parent_directories(const std::filesystem::path& path) {
  const std::filesystem::path parent = path.parent_path();
  if (parent.empty()) return;
  std::error_code ec;
  if (std::filesystem::is_directory(parent, ec)) return;
  make_parent_directories(parent);
  if (::mkdir(parent.c_str(), 0777) != 0 && errno != EEXIST) {
    throw Error(fmt::format("cannot create directory {}: {}", parent.string(), errno_text(errno)));
  }
  fsync_directory(parent.parent_path());
}

std::string compact_utc_now() {
  std::string stamp = now_rfc3339();  // 2026-11-22T04:27:59.123456Z
  std::erase(stamp, '-');
  std::erase(stamp, ':');
  return stamp;  // 20261122T042759.123456Z
}

std::filesystem::path marker_path(const std::filesystem::path& ledger) {
  return ledger.string() + ".appending";
}

}  // namespace

std::optional<Marker> read_marker(const std::filesystem::path& ledger) {
  const Fd fd(::open(marker_path(ledger).c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT) return std::nullopt;
    throw Error(fmt::format("cannot read {}: {}", marker_path(ledger).string(), errno_text(errno)));
  }
  char text[512];
  ssize_t got;
  do {
    got = ::read(fd.get(), text, sizeof text - 1);
  } while (got < 0 && errno == EINTR);
  Marker marker;
  if (got <= 0) return marker;
  text[got] = '\0';
  unsigned long long dev = 0, ino = 0;
  long long offset = 0, end = 0;
  char head[65] = {};
  if (std::sscanf(text, "benchledger-append 1 dev=%llu ino=%llu offset=%lld end=%lld head=%64s\n",
                  &dev, &ino, &offset, &end, head) == 5 &&
      std::strlen(head) == 64 && offset >= 0 && end > offset && text[got - 1] == '\n') {
    marker = {true, dev, ino, offset, end, head};
  }
  return marker;
}

namespace {

// Why the marker is neither fsynced when it is written nor when it is removed (docs/design.md:
// success only once the data is durable, nothing acknowledged lost):
// - Against a crash of the process (SIGKILL, a failed write), the page cache survives and holds
//   the marker and the batch exactly as written, so the marker works without any sync: the next
//   writer keeps a complete batch and moves a partial one aside.
// - Against a crash of the machine (power loss, kernel panic), the batch's bytes could reach the
//   disk before the marker does. Only a marker fsynced with its directory before the batch's
//   write() would prevent that, at the price of a second journal commit per batch (on the
//   development VM, write+fdatasync of a 930 KB batch took a median 8 ms, 20 ms with a synced
//   marker first: below the target of half the raw rate). Without it, a machine crash in the middle
//   of an append can leave the first records of that batch, never acknowledged, in the ledger.
//   docs/ledger.md says so; acknowledged batches are not affected, their fdatasync came first.
// - A marker left behind after its batch was acknowledged (its unlink failed, or did not reach
//   the disk before a power loss) describes a complete batch whose bytes never change: the next
//   writer keeps that batch, and readers, seeing that no writer holds the lock, read it
//   (marker_settled). So the removal after success need not be durable, and a failed unlink
//   costs nothing.
// - The one marker that must not come back is that of a batch removed again (a failed append,
//   or a partial batch moved aside): later batches are written over its bytes, and the stale
//   marker would make the next writer move them aside. remove_marker_durably() makes those
//   removals durable; they happen only on failures, so they cost nothing in the common case.
void write_marker(const std::filesystem::path& ledger, const Marker& marker,
                  const std::filesystem::path& file) {
  const std::string text =
      fmt::format("benchledger-append 1 dev={} ino={} offset={} end={} head={}\n", marker.dev,
                  marker.ino, marker.offset, marker.end, marker.head);
  const Fd fd(::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  ssize_t wrote = -1;
  if (fd.get() >= 0) {
    do {
      wrote = ::write(fd.get(), text.data(), text.size());
    } while (wrote < 0 && errno == EINTR);
  }
  if (wrote != static_cast<ssize_t>(text.size())) {
    const int error = wrote < 0 ? errno : ENOSPC;
    std::ignore = ::unlink(file.c_str());  // a partial marker is harmless too
    throw Error(fmt::format("cannot append to {}: cannot write {}: {} (nothing was written)",
                            ledger.string(), file.string(), errno_text(error)));
  }
}

void write_marker(const std::filesystem::path& ledger, const Marker& marker) {
  write_marker(ledger, marker, marker_path(ledger));
}

// An import is written in many writes, and the hash of its last record is known only once the
// last one is made: its marker first names a head no record hashes to (64 zeros), so that the
// batch counts as incomplete whatever is there, and then the real head. The new marker is
// renamed over the old one, so that a writer killed in between leaves one or the other, never
// a marker half written (which would describe nothing and leave the batch in place).
void replace_marker(const std::filesystem::path& ledger, const Marker& marker) {
  const std::filesystem::path next = marker_path(ledger).string() + ".next";
  write_marker(ledger, marker, next);
  if (::rename(next.c_str(), marker_path(ledger).c_str()) != 0) {
    const int error = errno;
    std::ignore = ::unlink(next.c_str());  // the old marker still says "incomplete"
    throw Error(fmt::format("cannot rename {} to {}: {}", next.string(),
                            marker_path(ledger).string(), errno_text(error)));
  }
}

// After the marker's batch is complete and durable: if this fails, or a power loss undoes it,
// the marker describes a complete batch, which readers read and the next writer keeps.
void remove_marker(const std::filesystem::path& ledger) {
  std::ignore = ::unlink(marker_path(ledger).c_str());
}

// After the marker's batch was truncated away: the truncation, then the marker's removal, made
// durable before anything else is appended where the batch was (see above).
void remove_marker_durably(int fd, const std::filesystem::path& ledger) {
  const std::string marker = marker_path(ledger).string();
  if (::fsync(fd) != 0) {
    throw Error(fmt::format("cannot make the truncation of {} durable: {}", ledger.string(),
                            errno_text(errno)));
  }
  if (::unlink(marker.c_str()) != 0 && errno != ENOENT) {
    throw Error(fmt::format("cannot remove {}: {}", marker, errno_text(errno)));
  }
  fsync_directory(ledger.parent_path());
}

// Whether all of the batch a marker describes is in the file of `size` bytes: its last line
// ends where the marker says and hashes to the marker's head.
bool batch_complete(int fd, const Marker& marker, std::int64_t size, const std::string& name) {
  if (size < marker.end || read_range(fd, marker.end - 1, marker.end, name) != "\n") return false;
  const std::int64_t start = rfind_newline(fd, marker.end - 1, name, marker.offset) + 1;
  return sha256_hex(read_range(fd, std::max(start, marker.offset), marker.end - 1, name)) ==
         marker.head;
}

}  // namespace

// For a reader: whether the batch of a marker is settled, so that it can be read. A marker is
// live while its writer holds the lock (the batch is not acknowledged yet: readers skip it).
// When no writer holds it, the marker is stale: its writer died, or removing it failed or did
// not survive a power loss. Then the batch counts if it is complete, as the next writer will
// keep it, and it is made durable first, as that writer would, so that a reader never shows
// what a power loss could take back. The shared lock is held only for this check.
bool marker_settled(int fd, const Marker& marker, std::int64_t size, const std::string& name) {
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0) return false;  // a writer is at work, or cannot tell
  bool settled = false;
  try {
    settled = batch_complete(fd, marker, size, name) && ::fdatasync(fd) == 0;
  } catch (const Error&) {
    std::ignore = ::flock(fd, LOCK_UN);  // closing the descriptor would release it anyway
    throw;
  }
  std::ignore = ::flock(fd, LOCK_UN);
  return settled;
}

namespace {

// Copies [from, to) of the ledger `file` to `<file>.torn-<UTC time>`, made durable; returns its
// path. When that fails (a full disk), the side file is removed again: the bytes are still in
// the ledger, which is truncated only after this succeeded, so a partial or empty copy would
// only mislead.
std::string move_aside(int fd, std::int64_t from, std::int64_t to,
                       const std::filesystem::path& file, const std::string& name) {
  std::string side = file.string() + ".torn-" + compact_utc_now();
  Fd out(::open(side.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  for (int n = 2; out.get() < 0 && errno == EEXIST; ++n) {
    side = file.string() + ".torn-" + compact_utc_now() + "-" + std::to_string(n);
    out = Fd(::open(side.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  }
  if (out.get() < 0) {
    throw Error(fmt::format("cannot move the torn tail of {} aside: cannot create {}: {}", name,
                            side, errno_text(errno)));
  }
  const auto fail = [&](const std::string& what, int error) {
    std::ignore = ::unlink(side.c_str());  // its bytes are still in the ledger
    return Error(
        fmt::format("cannot move the torn tail of {} aside: {}: {} (the ledger was not "
                    "changed; free some space and append again)",
                    name, what, errno_text(error)));
  };
  constexpr std::int64_t k_chunk = 1 << 20;
  for (std::int64_t at = from; at < to; at += k_chunk) {
    std::string chunk;
    try {
      chunk = read_range(fd, at, std::min(to, at + k_chunk), name);
    } catch (const Error&) {
      std::ignore = ::unlink(side.c_str());
      throw;
    }
    std::size_t done = 0;
    while (done < chunk.size()) {
      const ssize_t wrote = ::write(out.get(), chunk.data() + done, chunk.size() - done);
      if (wrote < 0 && errno == EINTR) continue;
      if (wrote < 0) throw fail("cannot write " + side, errno);
      done += static_cast<std::size_t>(wrote);
    }
  }
  if (::fsync(out.get()) != 0) throw fail("fsync of " + side + " failed", errno);
  return side;
}

void truncate_to(int fd, std::int64_t size, const std::string& name) {
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    throw Error(fmt::format("cannot truncate {} to {} bytes: {}", name, size, errno_text(errno)));
  }
}

// Under the lock: finishes what an interrupted append left, so that the file ends with a
// complete batch. Returns the size after repair. `ledger` is the resolved file (its marker and
// side files are named after it), `name` the ledger as the user named it, for messages.
std::int64_t repair(int fd, const std::filesystem::path& ledger, const std::string& name,
                    std::vector<std::string>& warnings) {
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    throw Error(fmt::format("cannot stat {}: {}", name, errno_text(errno)));
  std::int64_t size = st.st_size;

  if (const auto marker = read_marker(ledger)) {
    // A marker that is not valid was being written when its writer died: the batch after it
    // had not started. One for another file (the ledger was replaced) does not apply.
    const bool ours = marker->valid && marker->dev == static_cast<std::uint64_t>(st.st_dev) &&
                      marker->ino == static_cast<std::uint64_t>(st.st_ino);
    if (ours && batch_complete(fd, *marker, size, name)) {
      // Its writer died before reporting it; make it durable now rather than drop it.
      if (file_ops().fdatasync(fd) != 0) {
        throw Error(fmt::format("cannot append to {}: fdatasync failed: {} (nothing was written)",
                                name, errno_text(errno)));
      }
      remove_marker(ledger);
    } else if (ours && size > marker->offset) {
      const std::string side = move_aside(fd, marker->offset, size, ledger, name);
      truncate_to(fd, marker->offset, name);
      remove_marker_durably(fd, ledger);
      warnings.push_back(
          fmt::format("{}: moved {} bytes of an interrupted append (from byte {}) to {}", name,
                      size - marker->offset, marker->offset, side));
      size = marker->offset;
    } else if (ours) {
      // Its batch left no bytes, so the next batch is written where it would have been: the
      // marker must not come back after a crash and describe that batch as partial.
      remove_marker_durably(fd, ledger);
    } else {
      // Invalid (its batch had not started) or for another file: it describes nothing here.
      remove_marker(ledger);
    }
  }

  const std::int64_t complete_end = rfind_newline(fd, size, name) + 1;
  if (complete_end < size) {
    const std::string side = move_aside(fd, complete_end, size, ledger, name);
    truncate_to(fd, complete_end, name);
    warnings.push_back(fmt::format("{}: moved a torn tail of {} bytes (from byte {}) to {}", name,
                                   size - complete_end, complete_end, side));
    size = complete_end;
  }
  return size;
}

// Opens the ledger `given` for appending through its resolved `file` (ledger_file), creating it
// (and its directories) if missing, and takes the writers' lock. Every name of the file (a link
// to it, or to a directory above it) appends through the one resolved path, so that all writers
// share its marker and side files. A FIFO or device is refused before anything is created.
Fd open_locked(const std::filesystem::path& given, const std::filesystem::path& file) {
  const std::string name = given.string();
  Fd fd(::open(file.c_str(), O_RDWR | O_APPEND | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0 && errno == ENOENT) {
    make_parent_directories(file);
    fd = Fd(::open(file.c_str(), O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    if (fd.get() >= 0) {
      fsync_directory(file.parent_path());  // the new name must survive a crash too
    } else if (errno == EEXIST) {
      fd = Fd(::open(file.c_str(), O_RDWR | O_APPEND | O_NONBLOCK | O_CLOEXEC));  // another won
    }
  }
  if (fd.get() < 0) {
    throw Error(fmt::format("cannot open {} for appending: {} (nothing was written)", name,
                            errno_text(errno)));
  }
  {
    // What was opened, in case the path changed since ledger_file() looked.
    struct stat opened {};
    if (::fstat(fd.get(), &opened) != 0)
      throw Error(fmt::format("cannot stat {}: {}", name, errno_text(errno)));
    check_ledger_kind(given, file, opened.st_mode);
    // A regular file never blocks; the flag only kept a device's open from blocking.
    std::ignore = ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
  }
  // flock, not fcntl: any close() in this process would drop an fcntl lock.
  while (::flock(fd.get(), LOCK_EX) != 0) {
    if (errno != EINTR) {
      throw Error(fmt::format("cannot lock {}: {} (nothing was written)", name, errno_text(errno)));
    }
  }
  return fd;
}

// Writes all of `bytes` at the end of the file (O_APPEND makes seek-and-write one step). A short
// write (a signal, a file size limit) continues until an error stops it; returns 0 or the errno,
// with the bytes written so far in `written`.
int write_all(int fd, std::string_view bytes, std::size_t& written) {
  written = 0;
  while (written < bytes.size()) {
    const ssize_t wrote = file_ops().write(fd, bytes.data() + written, bytes.size() - written);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return wrote < 0 ? errno : EIO;
    written += static_cast<std::size_t>(wrote);
  }
  return 0;
}

// Removes a failed batch again (the bytes from `size` on), so that nothing is left that was not
// reported as written, and returns the error to throw. The marker stays until the truncation is
// durable (see remove_marker_durably).
Error undo_batch(int fd, std::int64_t size, const std::filesystem::path& path,
                 const std::string& reason) {
  const std::string name = path.string();
  try {
    truncate_to(fd, size, name);
    remove_marker_durably(fd, path);
  } catch (const Error& e) {
    return Error(fmt::format(
        "cannot append to {}: {}; removing the batch again failed too ({}): the next "
        "append removes it if it is incomplete and keeps it if it is complete (readers do "
        "the same); run `benchledger ledger verify`",
        name, reason, e.what()));
  }
  return Error(fmt::format("cannot append to {}: {} (nothing was written)", name, reason));
}

Marker marker_of(int fd, std::int64_t offset, std::int64_t end, std::string head,
                 const std::string& name) {
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    throw Error(fmt::format("cannot stat {}: {}", name, errno_text(errno)));
  return {true,
          static_cast<std::uint64_t>(st.st_dev),
          static_cast<std::uint64_t>(st.st_ino),
          offset,
          end,
          std::move(head)};
}

// A SQLite ledger named as an NDJSON one (`ledger.ndjson` or `ndjson:` for a `sqlite:` file) has
// binary bytes after its last '\n', which repair() would take for a torn tail and truncate away:
// refused before anything is repaired.
void refuse_sqlite(int fd, const std::string& name) {
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    throw Error(fmt::format("cannot stat {}: {}", name, errno_text(errno)));
  constexpr std::size_t k_header = 16;
  if (st.st_size < static_cast<off_t>(k_header)) return;
  std::string first(k_header, '\0');
  pread_exact(fd, first.data(), first.size(), 0, name);
  if (is_sqlite_header(first)) {
    throw Error(
        fmt::format("cannot append to {}: it is a SQLite database, not an NDJSON ledger (name it "
                    "sqlite:{}; nothing was written)",
                    name, name));
  }
}

constexpr const char* k_fdatasync_failed =
    "fdatasync failed (not retried: the device may have lost the data; check it and run "
    "`benchledger ledger verify`)";

}  // namespace

LockedAppend::LockedAppend(const std::filesystem::path& given, std::vector<std::string>& warnings)
    : m_file(ledger_file(given)), m_name(given.string()) {
  m_fd = open_locked(given, m_file);
  refuse_sqlite(m_fd.get(), m_name);
  m_size = repair(m_fd.get(), m_file, m_name, warnings);
  // A tail that does not verify refuses the batch: chained on, one bad record would be buried
  // under acknowledged ones.
  m_head = checked_head(m_fd.get(), m_size, m_name);
  m_at = m_end = m_size;
}

void LockedAppend::begin(std::int64_t bytes, const std::string& head) {
  // One marker for the whole batch, however many writes it takes: a writer killed before the end
  // leaves it to say that everything from m_size on goes (see replace_marker).
  m_end = m_size + bytes;
  m_marker_head = head;
  write_marker(m_file, marker_of(m_fd.get(), m_size, m_end, head, m_name));
  m_started = true;
}

void LockedAppend::write(std::string_view bytes) {
  std::size_t written = 0;
  if (const int error = write_all(m_fd.get(), bytes, written); error != 0) {
    throw Error(fmt::format("write failed after {} of {} bytes: {}",
                            m_at - m_size + static_cast<std::int64_t>(written), m_end - m_size,
                            errno_text(error)));
  }
  m_at += static_cast<std::int64_t>(bytes.size());
}

void LockedAppend::commit(const std::string& head) {
  if (m_at != m_end) {
    throw Error(
        fmt::format("the batch took {} bytes, not the {} planned", m_at - m_size, m_end - m_size));
  }
  if (head != m_marker_head)
    replace_marker(m_file, marker_of(m_fd.get(), m_size, m_end, head, m_name));
  // Durable before success is reported. A failed fdatasync is never retried: the kernel may
  // have dropped the dirty pages, so a second call could succeed without the data on disk.
  if (file_ops().fdatasync(m_fd.get()) != 0) {
    const int error = errno;
    throw Error(fmt::format("{}: {}", k_fdatasync_failed, errno_text(error)));
  }
  remove_marker(m_file);
}

Error LockedAppend::undo(const std::string& reason) {
  return undo_batch(m_fd.get(), m_size, m_file, reason);
}

}  // namespace benchledger::ledger::ndjson
