// Artifacts of a ledger (docs/ledger.md, "Artifacts"): files kept beside an NDJSON or SQLite
// ledger, each named by the SHA-256 of its bytes, in the directory `<ledger file>.artifacts/`. A
// record names an artifact by that hash (a result's `profile`), so the hash chain covers the
// artifact's bytes too; `ledger verify` checks that each named artifact is there and unchanged.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <benchledger/ledger.hpp>
#include <benchledger/record.hpp>

namespace benchledger::ledger {

// The artifact directory of the ledger `uri` (the ledger file's symbolic links resolved, so that
// every name of a ledger finds the same one), or nothing for a PostgreSQL ledger, which keeps no
// artifacts. Throws Error as ledger_file() does for a path that is not a ledger's.
std::optional<std::filesystem::path> artifact_directory(const std::string& uri);

// Writes `bytes` as the artifact named by their SHA-256, which it returns: durable (written to a
// temporary file, fsynced, renamed, the directory fsynced) when it returns; an artifact already
// there is left as it is. Throws Error naming the directory and the reason (nothing is named by
// the hash then).
std::string put_artifact(const std::filesystem::path& directory, std::string_view bytes);

// The bytes of the artifact `hash`. Throws Error naming it when it is missing, unreadable, or its
// bytes do not hash to its name.
std::string read_artifact(const std::filesystem::path& directory, const std::string& hash);

// The artifact a result names (its `profile`), or nothing.
std::optional<std::string> profile_hash(const ResultRecord& result);

// What verify finds wrong with the artifacts the records of `store` name: one message a result
// whose artifact is missing, unreadable or changed, or whose `profile` is not a SHA-256
// (`ledger.ndjson: line 7 (id 01J…): profile 3f2a… is missing from ledger.ndjson.artifacts/`).
// A PostgreSQL store, which keeps none, has nothing to check. Only the records after position
// `after` are checked (verify --since); 0 for all.
std::vector<std::string> check_artifacts(const Store& store, std::int64_t after);

}  // namespace benchledger::ledger
