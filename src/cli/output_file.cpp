// Writing a file the user named with -o/--output (see output_file.hpp).
#include "cli/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <tuple>

#include <fmt/format.h>

#include <benchledger/error.hpp>

#include "ledger/ledger_file.hpp"
#include "model/user_file.hpp"

namespace benchledger::cli {

namespace {

// What is at the path now: the resolved file and its stat, or nullopt-like `exists = false`.
struct Target {
  std::filesystem::path file;
  bool exists = false;
  struct stat st {};
};

Target look(const std::string& path) {
  Target target;
  target.file = model::resolve_symlinks(path);
  if (::stat(target.file.c_str(), &target.st) == 0) {
    target.exists = true;
    if (!S_ISREG(target.st.st_mode)) {
      throw Error(fmt::format("cannot write {}: it is {}, not a regular file{}", path,
                              model::file_kind(target.st.st_mode),
                              S_ISDIR(target.st.st_mode)
                                  ? ""
                                  : " (-o writes regular files; -o - writes to standard output)"));
    }
    // A report never takes a ledger's place: the ledger's records would be gone.
    if (const auto ledger = ledger::ledger_in_file(target.file)) {
      throw Error(fmt::format(
          "cannot write {}: it is {}, and an output never replaces a ledger (name another file; "
          "nothing was written)",
          path, *ledger));
    }
  } else if (errno != ENOENT) {
    throw Error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  }
  return target;
}

// Writes all of `content` to `fd`; returns 0 or the errno of the failure.
int write_all(int fd, std::string_view content) {
  while (!content.empty()) {
    const ssize_t wrote = ::write(fd, content.data(), content.size());
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote < 0) return errno;
    content.remove_prefix(static_cast<std::size_t>(wrote));
  }
  return 0;
}

// A file with several hard links: rewritten in place, so that the links stay one file.
void write_in_place(const std::string& path, const Target& target, std::string_view content) {
  const int fd = ::open(target.file.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) throw Error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  struct stat st {};
  int error = ::fstat(fd, &st) != 0 ? errno : 0;
  if (error == 0 && (st.st_dev != target.st.st_dev || st.st_ino != target.st.st_ino)) {
    std::ignore = ::close(fd);  // nothing was written to it
    throw Error(fmt::format("cannot write {}: it was replaced while being written", path));
  }
  if (error == 0 && ::ftruncate(fd, 0) != 0) error = errno;
  if (error == 0) error = write_all(fd, content);
  if (error == 0 && ::fdatasync(fd) != 0) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) {
    throw Error(fmt::format(
        "cannot write {}: {} (it has {} hard links, so it was rewritten in place and may now "
        "be incomplete)",
        path, std::strerror(error), target.st.st_nlink));
  }
}

// A new file, or a regular file with one link: a temporary file renamed over it.
void write_by_rename(const std::string& path, const Target& target, std::string_view content) {
  std::string temporary = target.file.string() + ".tmp-" + std::to_string(::getpid());
  // The mode is set below for an existing file; a new one gets 0666 less the umask, as a shell
  // redirection would give it.
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  for (int n = 2; fd < 0 && errno == EEXIST && n < 100; ++n) {
    temporary =
        target.file.string() + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(n);
    fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  }
  if (fd < 0) {
    throw Error(fmt::format("cannot write {}: cannot create {}: {}", path, temporary,
                            std::strerror(errno)));
  }
  int error = 0;
  if (target.exists) {
    // The owner first: changing it may clear set-user-ID bits, which fchmod then restores.
    // Keeping another user's ownership needs privileges; without them the file becomes this
    // user's, as any rewrite by a tool that renames would make it.
    if (target.st.st_uid != ::geteuid() || target.st.st_gid != ::getegid()) {
      std::ignore = ::fchown(fd, target.st.st_uid, target.st.st_gid);
    }
    if (::fchmod(fd, target.st.st_mode & 07777) != 0) error = errno;
  }
  if (error == 0) error = write_all(fd, content);
  if (error == 0 && ::fdatasync(fd) != 0) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && ::rename(temporary.c_str(), target.file.c_str()) != 0) error = errno;
  if (error != 0) {
    std::ignore = ::unlink(temporary.c_str());  // the old file, if any, is untouched
    throw Error(fmt::format("cannot write {}: {}", path, std::strerror(error)));
  }
}

}  // namespace

OutputFile::OutputFile(std::string path)
    : m_path(std::move(path)), m_stdout(m_path == "-" || m_path == "/dev/stdout") {
  if (!m_stdout) look(m_path);
}

void OutputFile::write(std::string_view content) const {
  if (m_stdout) {
    // Checked with every other write to standard output, once, when the command ends
    // (close_standard_output).
    std::cout.write(content.data(), static_cast<std::streamsize>(content.size()));
    return;
  }
  // Looked at again: the path may have changed while the command worked.
  const Target target = look(m_path);
  if (target.exists && target.st.st_nlink > 1) {
    write_in_place(m_path, target, content);
  } else {
    write_by_rename(m_path, target, content);
  }
}

}  // namespace benchledger::cli
