// Which file a ledger path names, for the stores that keep a ledger in a file (NDJSON, SQLite).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string_view>

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

// Whether the regular file `file` holds a ledger, judged by its first bytes, for a command about
// to remove or write over a file (a report, a gate's log) that must not destroy one:
// "an NDJSON ledger" when its first line is a benchledger/1 record (it starts with `{` and names
// the schema within its first 64 KiB), "a SQLite database" for any SQLite file (a new SQLite
// ledger keeps its application_id in the write-ahead log until a checkpoint, so the mark cannot
// be relied on), nullopt for anything else: another file, an empty one, no file at all, a
// directory or a device. Throws Error naming `file` when it exists but cannot be read: what
// cannot be looked at is not written over.
std::optional<std::string_view> ledger_in_file(const std::filesystem::path& file);

// Whether the first bytes of a file are SQLite's header ("SQLite format 3" and a NUL).
bool is_sqlite_header(std::string_view first_bytes);

}  // namespace benchledger::ledger
