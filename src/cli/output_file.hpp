// Writing a file the user named with -o/--output. Every command with such an option writes
// through this, so that all of them treat what is already at the path the same way:
//
// - `-` and `/dev/stdout` are standard output.
// - Symbolic links are followed: the file a link leads to is written, and the link stays.
// - A new file, or an existing regular file with one link, is replaced atomically: the content
//   goes to `<file>.tmp-<pid>` in the same directory, which gets the old file's mode (and its
//   owner, when the process may set it), is fdatasynced and renamed over the file. A reader
//   sees the old content or the new, never part of it, and a failure leaves the old file.
// - An existing regular file with several hard links is rewritten in place (truncated,
//   written, fdatasynced), so that every link still names the one file and sees the new
//   content. That is not atomic: a reader at that moment can see part of it, and a failure
//   part way (a full disk) leaves it short; the error then says so.
// - Anything else (a directory, a FIFO, a device, a socket) is refused with an Error naming the
//   path and what it is, before anything is created next to it.
// - So is a file that holds a ledger (ledger::ledger_in_file: an NDJSON ledger or a SQLite
//   database): no output replaces a ledger, whatever the command.
#pragma once

#include <string>
#include <string_view>

namespace benchledger::cli {

class OutputFile {
 public:
  // Checks the path now, so that a command can refuse it before doing its work; throws Error.
  explicit OutputFile(std::string path);

  // Writes all of `content` as described above; throws Error naming the path on a failure.
  void write(std::string_view content) const;

  const std::string& path() const { return m_path; }
  bool is_stdout() const { return m_stdout; }

 private:
  std::string m_path;
  bool m_stdout = false;
};

}  // namespace benchledger::cli
