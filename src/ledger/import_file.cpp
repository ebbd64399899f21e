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

namespace benchledger::ledger {

ImportFile read_import_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  struct Closer {
    int fd;
    ~Closer() { std::ignore = ::close(fd); }  // read-only: nothing to lose
  } closer{fd};

  ImportFile file;
  file.path = path;
  ndjson::LineReader reader(fd, path);
  ndjson::LineReader::Line line;
  while (reader.next(line)) {
    if (line.too_long) {
      throw Error(fmt::format("{}:{}: record is {} bytes, over the limit of {} bytes a line", path,
                              line.number, line.length, k_max_line_bytes));
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
