// Buffered line reading (see line_reader.hpp).
#include "ledger/ndjson/line_reader.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include <benchledger/error.hpp>

namespace benchledger::ledger::ndjson {

namespace {
constexpr std::size_t k_initial_capacity = 1u << 20;
}

LineReader::LineReader(int fd, std::string name, std::int64_t limit, std::size_t max_line,
                       LongLine long_line)
    : m_fd(fd),
      m_name(std::move(name)),
      m_limit(limit),
      m_max_line(max_line),
      m_long_line(long_line),
      m_buffer(new char[k_initial_capacity]),
      m_capacity(k_initial_capacity) {}

bool LineReader::fill() {
  if (m_eof) return false;
  if (m_begin > 0) {
    std::memmove(m_buffer.get(), m_buffer.get() + m_begin, m_end - m_begin);
    m_end -= m_begin;
    m_begin = 0;
  }
  if (m_end == m_capacity) {
    // A line longer than the buffer: grow, up to the longest line allowed (plus its '\n').
    const std::size_t wanted = std::min(m_capacity * 2, m_max_line + 1);
    if (wanted <= m_capacity) return false;  // the caller handles a line that is too long
    std::unique_ptr<char[]> bigger(new char[wanted]);
    std::memcpy(bigger.get(), m_buffer.get(), m_end);
    m_buffer = std::move(bigger);
    m_capacity = wanted;
  }
  std::size_t room = m_capacity - m_end;
  if (m_limit >= 0)
    room = static_cast<std::size_t>(
        std::min<std::int64_t>(static_cast<std::int64_t>(room), m_limit - m_read));
  if (room == 0) {
    m_eof = true;
    return false;
  }
  for (;;) {
    const ssize_t got = ::read(m_fd, m_buffer.get() + m_end, room);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw Error(fmt::format("cannot read {}: {}", m_name, std::strerror(errno)));
    if (got == 0) {
      m_eof = true;
      return false;
    }
    m_end += static_cast<std::size_t>(got);
    m_read += got;
    return true;
  }
}

bool LineReader::next(Line& line) {
  std::size_t searched = 0;  // bytes after m_begin known to hold no '\n'
  for (;;) {
    const char* from = m_buffer.get() + m_begin + searched;
    const void* newline = std::memchr(from, '\n', m_end - m_begin - searched);
    if (newline != nullptr) {
      const auto at = static_cast<std::size_t>(static_cast<const char*>(newline) - m_buffer.get());
      line.bytes = std::string_view(m_buffer.get() + m_begin, at - m_begin);
      line.number = ++m_number;
      line.offset = m_consumed;
      line.length = static_cast<std::int64_t>(at - m_begin);
      line.too_long = at - m_begin > m_max_line;
      if (line.too_long) line.bytes = {};
      m_consumed += static_cast<std::int64_t>(at + 1 - m_begin);
      m_begin = at + 1;
      return true;
    }
    searched = m_end - m_begin;
    if (searched > m_max_line && m_long_line == LongLine::stop) {
      // Nothing after it is read: the line may never end (a file without a newline).
      line.bytes = {};
      line.number = ++m_number;
      line.offset = m_consumed;
      line.length = static_cast<std::int64_t>(searched);
      line.too_long = true;
      m_begin = m_end;
      m_eof = true;
      return true;
    }
    if (searched > m_max_line) return skip_long_line(line);
    if (!fill()) return false;
  }
}

bool LineReader::skip_long_line(Line& line) {
  const std::int64_t offset = m_consumed;
  auto length = static_cast<std::int64_t>(m_end - m_begin);
  m_begin = m_end = 0;
  for (;;) {
    if (!fill()) {
      m_skipped_tail = length;  // a torn tail, too long to keep
      return false;
    }
    const void* newline = std::memchr(m_buffer.get(), '\n', m_end);
    if (newline == nullptr) {
      length += static_cast<std::int64_t>(m_end);
      m_end = 0;
      continue;
    }
    const auto at = static_cast<std::size_t>(static_cast<const char*>(newline) - m_buffer.get());
    length += static_cast<std::int64_t>(at);
    line.bytes = {};
    line.number = ++m_number;
    line.offset = offset;
    line.length = length;
    line.too_long = true;
    m_consumed = offset + length + 1;
    m_begin = at + 1;
    return true;
  }
}

}  // namespace benchledger::ledger::ndjson
