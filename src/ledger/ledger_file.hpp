// Which file a ledger path names, for the stores that keep a ledger in a file (NDJSON, SQLite).
#pragma once

#include <sys/types.h>

#include <filesystem>

namespace benchledger::ledger {

// The file `given` reaches, every symbolic link resolved (model::resolve_symlinks), so that a
// ledger reached through several names (a link to the file or to a directory above it) is
// locked, marked and given side files under one name. Throws Error, naming `given` and what it
// is, unless that file is a regular file or does not exist yet (a new ledger is created there):
// nothing is created or written before this check.
std::filesystem::path ledger_file(const std::filesystem::path& given);

// The same check for what a descriptor opened on the ledger reached (`mode` from fstat), in
// case the path changed after ledger_file() looked at it.
void check_ledger_kind(const std::filesystem::path& given, const std::filesystem::path& file,
                       mode_t mode);

}  // namespace benchledger::ledger
