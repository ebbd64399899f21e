// Which file a ledger path names (see ledger_file.hpp).
#include "ledger/ledger_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include <benchledger/error.hpp>

#include "model/user_file.hpp"

namespace benchledger::ledger {

void check_ledger_kind(const std::filesystem::path& given, const std::filesystem::path& file,
                       mode_t mode) {
  if (S_ISREG(mode)) return;
  std::error_code ec;
  const bool linked = std::filesystem::absolute(given, ec).lexically_normal() != file;
  throw Error(fmt::format(
      "ledger {}{} is {}, not a regular file: a ledger is a regular file, or a path where a new "
      "one can be created (nothing was read or written)",
      given.string(), linked ? " (a link to " + file.string() + ")" : "", model::file_kind(mode)));
}

std::filesystem::path ledger_file(const std::filesystem::path& given) {
  std::filesystem::path file = model::resolve_symlinks(given);
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) {
    if (errno == ENOENT) return file;
    throw Error(fmt::format("cannot open ledger {}: {}", given.string(), std::strerror(errno)));
  }
  check_ledger_kind(given, file, st.st_mode);
  return file;
}

bool is_sqlite_header(std::string_view first_bytes) {
  // https://www.sqlite.org/fileformat.html#the_database_header: the first 16 bytes.
  constexpr std::string_view k_magic("SQLite format 3\0", 16);
  return first_bytes.substr(0, k_magic.size()) == k_magic;
}

std::optional<std::string_view> ledger_in_file(const std::filesystem::path& file) {
  const auto unreadable = [&](int error) {
    return Error(fmt::format("cannot tell whether {} is a ledger: {} (nothing was written)",
                             file.string(), std::strerror(error)));
  };
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) {
    if (errno == ENOENT) return std::nullopt;
    throw unreadable(errno);
  }
  if (!S_ISREG(st.st_mode)) return std::nullopt;  // never opened: a FIFO would block
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw unreadable(errno);
  std::string head(64 * 1024, '\0');
  std::size_t got = 0;
  int error = 0;
  while (got < head.size()) {
    const ssize_t n = ::read(fd, head.data() + got, head.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) error = errno;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  std::ignore = ::close(fd);  // only read from
  if (error != 0) throw unreadable(error);
  head.resize(got);
  if (is_sqlite_header(head)) return "a SQLite database";
  // Canonical records begin `{"schema":"benchledger/1",`; one written by hand may order its
  // members otherwise, so the first line is searched rather than its prefix compared.
  const std::string_view first_line = std::string_view(head).substr(0, head.find('\n'));
  if (first_line.starts_with('{') && first_line.find("\"schema\"") != std::string_view::npos &&
      first_line.find("\"benchledger/1\"") != std::string_view::npos) {
    return "an NDJSON ledger";
  }
  return std::nullopt;
}

}  // namespace benchledger::ledger
