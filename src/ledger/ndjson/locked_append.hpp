// The writer's side of an NDJSON ledger (see ndjson_store.hpp): the lock, the marker of an append
// in flight, repairing what an interrupted append left, and writing a batch so that it is either
// all there and durable or removed again. Readers use the marker part only (read_marker,
// marker_settled).
#pragma once

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <benchledger/error.hpp>

namespace benchledger::ledger::ndjson {

std::string errno_text(int error);

// A file descriptor closed on scope exit.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : m_fd(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& other) noexcept : m_fd(std::exchange(other.m_fd, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    std::swap(m_fd, other.m_fd);
    return *this;
  }
  ~Fd() {
    // Nothing to do when close fails: every write that matters was fdatasync'ed before.
    if (m_fd >= 0) std::ignore = ::close(m_fd);
  }
  int get() const { return m_fd; }

 private:
  int m_fd = -1;
};

// The marker of an append in flight (see ndjson_store.hpp).
struct Marker {
  bool valid = false;
  std::uint64_t dev = 0, ino = 0;
  std::int64_t offset = 0, end = 0;
  std::string head;
};

// The marker of the resolved ledger file `ledger`, nullopt when there is none. Throws Error.
std::optional<Marker> read_marker(const std::filesystem::path& ledger);

// For a reader: whether the batch of a marker is settled, so that it can be read (see the
// definition).
bool marker_settled(int fd, const Marker& marker, std::int64_t size, const std::string& name);

// One append to the ledger, from opening the file to making the batch durable. The constructor
// opens `given` for appending through its resolved file (ledger_file), creating it and its
// directories if missing, takes the writers' lock, repairs what an interrupted append left (adding
// to `warnings`) and reads the head, checked (checked_tail). Throws Error, with nothing written.
class LockedAppend {
 public:
  LockedAppend(const std::filesystem::path& given, std::vector<std::string>& warnings);

  // The hash of the last record (64 zeros for an empty ledger).
  const std::string& head() const { return m_head; }
  // The resolved file and the descriptor, for reading what the ledger holds under the lock.
  const std::filesystem::path& file() const { return m_file; }
  std::int64_t size() const { return m_size; }

  // Announces `bytes` about to be written, whose last record hashes to `head` (64 zeros when
  // that is known only at the end): writes the marker. Throws Error.
  void begin(std::int64_t bytes, const std::string& head);
  bool started() const { return m_started; }
  // Writes `bytes` at the end (after begin()). Throws Error saying how much was written.
  void write(std::string_view bytes);
  // After the last write: checks that the bytes begin() announced are there, points the marker at
  // `head` if it did not already, makes the batch durable (fdatasync, never retried) and removes
  // the marker. Throws Error; then undo() the batch.
  void commit(const std::string& head);
  // Removes a started batch again, so that nothing is left that was not reported as written, and
  // returns the Error to throw, saying why (`reason`) and whether the removal worked.
  Error undo(const std::string& reason);

 private:
  std::filesystem::path m_file;
  std::string m_name;
  Fd m_fd;
  std::int64_t m_size = 0;  // the file's size before this batch
  std::string m_head;
  bool m_started = false;
  std::int64_t m_at = 0, m_end = 0;  // where the next write goes, where the batch ends
  std::string m_marker_head;
};

}  // namespace benchledger::ledger::ndjson
