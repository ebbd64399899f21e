// The columns the database stores (SQLite, PostgreSQL) keep beside each record's exact bytes,
// for their indexes and queries. `verify` checks that a row's columns say what its bytes say.
#pragma once

#include <optional>
#include <string>

#include <benchledger/record.hpp>

namespace benchledger::ledger {

struct Columns {
  std::string id, type, time;
  std::optional<std::string> run, label, bench, params, git_commit, target;
  bool operator==(const Columns&) const = default;
};

// The columns as the record says them; `params` is the canonical JSON of a result's params.
Columns columns_of(const Record& record);

}  // namespace benchledger::ledger
