// Reading NDJSON files for `ledger import`, line by line on every pass: each bad line is named as
// FILE:LINE, and nothing but the line being read is held in memory.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include <benchledger/error.hpp>
#include <benchledger/ledger.hpp>

#include "ledger/ndjson/line_reader.hpp"
#include "model/user_file.hpp"

namespace benchledger::ledger {

ImportFiles::ImportFiles(std::vector<std::string> paths) : m_paths(std::move(paths)) {}

void ImportFiles::each(const std::function<void(Record&& record, std::size_t index)>& visit) const {
  m_counts.assign(m_paths.size(), 0);
  std::size_t index = 0;
  for (std::size_t f = 0; f < m_paths.size(); ++f) {
    const std::string& path = m_paths[f];
    // A regular file only: a FIFO could block for ever, /dev/zero never ends.
    const int fd = model::open_input_file(path, "");
    struct Closer {
      int fd;
      ~Closer() { std::ignore = ::close(fd); }  // read-only: nothing to lose
    } closer{fd};

    // A line over the limit is refused as soon as the limit is passed, not read to its end.
    ndjson::LineReader reader(fd, path, -1, k_max_line_bytes, ndjson::LineReader::LongLine::stop);
    ndjson::LineReader::Line line;
    while (reader.next(line)) {
      if (line.too_long) {
        throw Error(
            fmt::format("{}:{}: record is over the limit of {} bytes a line (refused after "
                        "its first {} bytes; nothing was imported)",
                        path, line.number, k_max_line_bytes, line.length));
      }
      Record record;
      try {
        record = parse_record(line.bytes);
      } catch (const Error& e) {
        throw Error(fmt::format("{}:{}: {}", path, line.number, e.what()));
      }
      ++m_counts[f];
      visit(std::move(record), index++);
    }
    if (reader.tail_bytes() > 0) {
      throw Error(
          fmt::format("{}:{}: the last line has no final newline, so it may be cut short; "
                      "nothing was imported (add the newline if the line is complete)",
                      path, reader.lines() + 1));
    }
    if (m_counts[f] == 0) throw Error(fmt::format("{}: empty file, no records to import", path));
  }
}

std::string ImportFiles::where(std::size_t index) const {
  for (std::size_t f = 0; f < m_counts.size(); ++f) {
    // Every line of an accepted file is a record, so a record's line is its place in the file.
    if (index < m_counts[f]) return fmt::format("{}:{}", m_paths[f], index + 1);
    index -= m_counts[f];
  }
  return fmt::format("record {}", index + 1);
}

}  // namespace benchledger::ledger
