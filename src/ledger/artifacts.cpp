// Artifacts beside a file ledger (artifacts.hpp).
#include "ledger/artifacts.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include <benchledger/error.hpp>

#include "ledger/ledger_file.hpp"

namespace benchledger::ledger {

namespace {

bool is_sha256(std::string_view text) {
  return text.size() == 64 && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// The path a file ledger's URI names, as open_store() reads it.
std::optional<std::filesystem::path> ledger_path(const std::string& uri) {
  if (uri.starts_with("postgresql://") || uri.starts_with("postgres://")) return std::nullopt;
  for (const std::string_view scheme : {"ndjson:", "sqlite:"}) {
    if (uri.starts_with(scheme)) return std::filesystem::path(uri.substr(scheme.size()));
  }
  return std::filesystem::path(uri);
}

[[noreturn]] void fail_write(const std::filesystem::path& directory, const std::string& what) {
  throw Error(fmt::format("cannot write the artifact into {}: {}: {} (no record names it)",
                          directory.string(), what, std::strerror(errno)));
}

void fsync_directory(const std::filesystem::path& directory) {
  const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail_write(directory, "opening the directory");
  const int synced = ::fsync(fd);
  const int error = errno;
  std::ignore = ::close(fd);  // nothing to do if close fails after fsync succeeded
  errno = error;
  if (synced != 0) fail_write(directory, "fsync of the directory");
}

}  // namespace

std::optional<std::filesystem::path> artifact_directory(const std::string& uri) {
  const auto path = ledger_path(uri);
  if (!path) return std::nullopt;
  const std::filesystem::path file = ledger_file(*path);
  return std::filesystem::path(file.string() + ".artifacts");
}

std::string put_artifact(const std::filesystem::path& directory, std::string_view bytes) {
  const std::string hash = sha256_hex(bytes);
  const std::filesystem::path target = directory / hash;
  std::error_code error;
  if (std::filesystem::exists(target, error)) return hash;
  std::filesystem::create_directories(directory, error);
  if (error) {
    errno = error.value();
    fail_write(directory, "creating it");
  }
  // O_EXCL on a name of its own, not mkstemp: the file gets the ledger's permissions (0666 less
  // the umask), not mkstemp's 0600, so that whoever may read the ledger may read its artifacts.
  const std::string temporary =
      (directory / (".tmp." + hash + "." + std::to_string(::getpid()) + "." + new_ulid())).string();
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) fail_write(directory, "creating a temporary file");
  const auto give_up = [&](const std::string& what) {
    const int saved = errno;
    std::ignore = ::close(fd);  // the write already failed: that is what is reported
    std::ignore = ::unlink(temporary.c_str());
    errno = saved;
    fail_write(directory, what);
  };
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) give_up("writing " + temporary);
    written += static_cast<std::size_t>(n);
  }
  // Never retried: a failed fsync may have dropped the dirty pages (docs/ledger.md).
  if (::fsync(fd) != 0) give_up("fsync of " + temporary);
  if (::close(fd) != 0) {
    const int saved = errno;
    std::ignore = ::unlink(temporary.c_str());
    errno = saved;
    fail_write(directory, "closing " + temporary);
  }
  if (::rename(temporary.c_str(), target.c_str()) != 0) {
    const int saved = errno;
    std::ignore = ::unlink(temporary.c_str());
    errno = saved;
    fail_write(directory, "renaming " + temporary);
  }
  fsync_directory(directory);
  return hash;
}

std::string read_artifact(const std::filesystem::path& directory, const std::string& hash) {
  if (!is_sha256(hash)) throw Error("artifact \"" + hash + "\": not a SHA-256 (64 lower-case hex)");
  const std::filesystem::path path = directory / hash;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(fmt::format("artifact {} is missing from {}: {}", hash, directory.string(),
                            std::strerror(errno)));
  }
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) throw Error(fmt::format("cannot read artifact {}", path.string()));
  std::string text = std::move(bytes).str();
  if (sha256_hex(text) != hash) {
    throw Error(fmt::format("artifact {} was changed: its bytes hash to {}", path.string(),
                            sha256_hex(text)));
  }
  return text;
}

std::optional<std::string> profile_hash(const ResultRecord& result) {
  const auto found = result.header.extra.find("profile");
  if (found == result.header.extra.end()) return std::nullopt;
  return found->is_string() ? found->get<std::string>() : found->dump();
}

std::vector<std::string> check_artifacts(const Store& store, std::int64_t after) {
  const auto directory = artifact_directory(store.uri());
  if (!directory) return {};
  std::vector<std::string> problems;
  // The bytes, not parsed records: a record names a profile only with this member in its
  // canonical bytes, so only those few are parsed, and verify's second pass costs a read.
  store.scan_bytes([&](std::int64_t position, std::string_view bytes) {
    if (position <= after || bytes.find("\"profile\":") == std::string_view::npos) return true;
    Record record;
    try {
      record = parse_record(bytes);
    } catch (const Error&) {
      return true;  // the first pass has judged every record: this one verified
    }
    const auto* result = std::get_if<ResultRecord>(&record);
    const auto hash = result != nullptr ? profile_hash(*result) : std::nullopt;
    if (!hash) return true;
    try {
      std::ignore = read_artifact(*directory, *hash);
    } catch (const Error& e) {
      problems.push_back(fmt::format("{}: record {} (id {}): profile: {}", store.uri(), position,
                                     result->header.id, e.what()));
    }
    return true;
  });
  return problems;
}

}  // namespace benchledger::ledger
