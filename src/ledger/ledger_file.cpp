// Which file a ledger path names (see ledger_file.hpp).
#include "ledger/ledger_file.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

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

}  // namespace benchledger::ledger
