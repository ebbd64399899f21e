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

namespace benchledger::ledger {

ImportFiles::ImportFiles(std::vector<std::string> paths) : m_paths(std::move(paths)) {}

void ImportFiles::each(const std::function<void(Record&& record, std::size_t index)>& visit) const {
  m_counts.assign(m_paths.size(), 0);
  std::size_t index = 0;
  for (std::size_t f = 0; f < m_paths.size(); ++f) {
    const std::string& path = m_paths[f];
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
    struct Closer {
      int fd;
      ~Closer() { std::ignore = ::close(fd); }  // read-only: nothing to lose
    } closer{fd};

    ndjson::LineReader reader(fd, path);
    ndjson::LineReader::Line line;
    while (reader.next(line)) {
      if (line.too_long) {
        throw Error(fmt::format("{}:{}: record is {} bytes, over the limit of {} bytes a line",
                                path, line.number, line.length, k_max_line_bytes));
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
