// Reads complete lines of a file front to back in constant memory (a buffer that grows only to
// the longest line allowed), without any lock: what every NDJSON reader uses. Bytes after the
// last '\n' are a torn tail: never returned as a line, counted in tail_bytes().
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include <benchledger/record.hpp>

namespace benchledger::ledger::ndjson {

class LineReader {
 public:
  struct Line {
    std::string_view bytes;   // without '\n'; valid until the next call to next()
    std::int64_t number = 0;  // 1-based
    std::int64_t offset = 0;  // of its first byte
    std::int64_t length = 0;  // without '\n', also when too long to be returned
    bool too_long = false;    // over max_line: bytes is empty (see LongLine)
  };

  // What happens to a line over max_line. `skip`: the rest of it is read and dropped, its full
  // length is reported and reading goes on after it (a ledger, whose size is known). `stop`:
  // it is returned as soon as max_line + 1 of its bytes were read, with that as its length, and
  // reading ends there (an input that may never end, and is refused whole anyway).
  enum class LongLine { skip, stop };

  // Reads `fd` from its current offset (0 for a fresh one) up to `limit` bytes in all, or to the
  // end of the file when `limit` is negative. Throws Error (naming `name`) when a read fails.
  LineReader(int fd, std::string name, std::int64_t limit = -1,
             std::size_t max_line = k_max_line_bytes, LongLine long_line = LongLine::skip);

  // The next complete line; false at the end.
  bool next(Line& line);

  // Once next() returned false: the bytes after the last '\n', and where they start.
  std::int64_t tail_bytes() const {
    return static_cast<std::int64_t>(m_end - m_begin) + m_skipped_tail;
  }
  std::int64_t tail_offset() const { return m_consumed; }
  std::int64_t lines() const { return m_number; }

 private:
  bool fill();  // reads more; false at the end
  bool skip_long_line(Line& line);

  int m_fd;
  std::string m_name;
  std::int64_t m_limit;
  std::size_t m_max_line;
  LongLine m_long_line;
  std::unique_ptr<char[]> m_buffer;
  std::size_t m_capacity = 0;
  std::size_t m_begin = 0, m_end = 0;  // unread bytes in the buffer
  std::int64_t m_read = 0;             // bytes read from the file so far
  std::int64_t m_consumed = 0;         // file offset of m_begin
  std::int64_t m_number = 0;
  std::int64_t m_skipped_tail = 0;  // a torn tail too long to keep in the buffer
  bool m_eof = false;
};

}  // namespace benchledger::ledger::ndjson
