// The files a user names (see user_file.hpp).
#include "model/user_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <tuple>

#include <fmt/format.h>

#include <benchledger/error.hpp>

namespace benchledger::model {

namespace {

std::string named(std::string_view what, const std::filesystem::path& path) {
  return what.empty() ? path.string() : fmt::format("{} {}", what, path.string());
}

}  // namespace

std::string_view file_kind(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

std::filesystem::path resolve_symlinks(const std::filesystem::path& given) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path path = fs::absolute(given, ec);
  if (ec) throw Error(fmt::format("cannot resolve {}: {}", given.string(), ec.message()));
  // As the kernel does: at most 40 links in a row (Linux's MAXSYMLINKS), then ELOOP.
  for (int links = 0;; ++links) {
    // The directories first (canonical as far as they exist), then the last component.
    const fs::path directory = fs::weakly_canonical(path.parent_path(), ec);
    if (ec) throw Error(fmt::format("cannot resolve {}: {}", given.string(), ec.message()));
    path = directory / path.filename();
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
      if (errno == ENOENT) return path;  // a new file: created here
      throw Error(fmt::format("cannot resolve {}: {}", given.string(), std::strerror(errno)));
    }
    if (!S_ISLNK(st.st_mode)) return path;
    if (links == 40) {
      throw Error(fmt::format("cannot resolve {}: {}", given.string(), std::strerror(ELOOP)));
    }
    const fs::path target = fs::read_symlink(path, ec);
    if (ec) throw Error(fmt::format("cannot resolve {}: {}", given.string(), ec.message()));
    path = target.is_absolute() ? target : directory / target;
  }
}

int open_input_file(const std::filesystem::path& path, std::string_view what) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    throw Error(fmt::format("cannot read {}: {}", named(what, path), std::strerror(errno)));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int error = errno;
    std::ignore = ::close(fd);  // opened for reading only: nothing to lose
    throw Error(fmt::format("cannot read {}: {}", named(what, path), std::strerror(error)));
  }
  if (!S_ISREG(st.st_mode)) {
    std::ignore = ::close(fd);
    throw Error(fmt::format("cannot read {}: it is {}, not a regular file{}", named(what, path),
                            file_kind(st.st_mode),
                            S_ISDIR(st.st_mode) ? ""
                                                : " (only regular files are read: save the "
                                                  "output of a pipe or device to a file first)"));
  }
  // Reads from a regular file never block; the flag is cleared so that nothing else is odd.
  std::ignore = ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

std::string read_input_file(const std::filesystem::path& path, std::size_t max_bytes,
                            std::string_view what) {
  const int fd = open_input_file(path, what);
  struct Closer {
    int fd;
    ~Closer() { std::ignore = ::close(fd); }  // read-only: nothing to lose
  } closer{fd};
  std::string text;
  char buffer[65536];
  for (;;) {
    const std::size_t room = std::min(sizeof buffer, max_bytes + 1 - text.size());
    const ssize_t got = ::read(fd, buffer, room);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      throw Error(fmt::format("cannot read {}: {}", named(what, path), std::strerror(errno)));
    }
    if (got == 0) return text;
    if (text.size() + static_cast<std::size_t>(got) > max_bytes) {
      throw Error(fmt::format("cannot read {}: it is over the limit of {} bytes", named(what, path),
                              max_bytes));
    }
    text.append(buffer, static_cast<std::size_t>(got));
  }
}

}  // namespace benchledger::model
