// The files a user names on the command line or in the config file: which file a path really
// reaches (symbolic links followed), what kind of file that is, and reading an input file with
// a bound. A FIFO or a device is never opened for reading here: opening a FIFO blocks until a
// writer comes, and a device like /dev/zero never ends.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace benchledger::model {

// What kind of file a stat mode is, for messages: "a regular file", "a directory", "a FIFO",
// "a character device", "a block device", "a socket" or "a symbolic link".
std::string_view file_kind(mode_t mode);

// The file that opening `path` reaches: absolute, with every symbolic link resolved, in the
// directories and in the last component, also when that file does not exist yet (a dangling
// link resolves to where its target would be created). Side files named after a file (a
// lock, a marker, a temporary file renamed over it) must be named after this path, so that
// every name of one file shares them. Throws Error on a loop of links or an unreadable
// directory.
std::filesystem::path resolve_symlinks(const std::filesystem::path& path);

// Opens a regular file the user named as input (`what` names its role in messages, e.g.
// "config file") for reading and returns the descriptor, which the caller closes. O_NONBLOCK
// keeps a FIFO from blocking the open; anything but a regular file is then refused with an
// Error naming the path and what it is.
int open_input_file(const std::filesystem::path& path, std::string_view what);

// All of a regular input file, refused with an Error naming it once it is over `max_bytes`
// (never more than max_bytes + 1 bytes are read).
std::string read_input_file(const std::filesystem::path& path, std::size_t max_bytes,
                            std::string_view what);

}  // namespace benchledger::model
