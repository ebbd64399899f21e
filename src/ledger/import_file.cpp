// Reading an NDJSON file for `ledger import`: all of it is validated before anything is
// appended, and the first bad line is named as FILE:LINE.
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

ImportFile read_import_file(const std::string& path) {
  // A regular file only: a FIFO could block for ever, /dev/zero never ends.
  const int fd = model::open_input_file(path, "");
  struct Closer {
    int fd;
    ~Closer() { std::ignore = ::close(fd); }  // read-only: nothing to lose
  } closer{fd};

  ImportFile file;
  file.path = path;
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
    try {
      file.records.push_back(parse_record(line.bytes));
    } catch (const Error& e) {
      throw Error(fmt::format("{}:{}: {}", path, line.number, e.what()));
    }
    file.lines.push_back(line.number);
  }
  if (reader.tail_bytes() > 0) {
    throw Error(
        fmt::format("{}:{}: the last line has no final newline, so it may be cut short; "
                    "nothing was imported (add the newline if the line is complete)",
                    path, reader.lines() + 1));
  }
  if (file.records.empty()) throw Error(fmt::format("{}: empty file, no records to import", path));
  return file;
}

}  // namespace benchledger::ledger
