// The columns the database stores (SQLite, PostgreSQL) keep beside each record's exact bytes,
// for their indexes and queries. `verify` checks that a row's columns say what its bytes say.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <benchledger/record.hpp>

#include "ledger/chain.hpp"

namespace benchledger::ledger {

struct Columns {
  std::string id, type, time;
  std::optional<std::string> run, label, bench, params, git_commit, target;
  bool operator==(const Columns&) const = default;
};

// The columns as the record says them; `params` is the canonical JSON of a result's params.
Columns columns_of(const Record& record);
// The canonical JSON of params, as the `params` column holds it.
std::string params_text(const Params& params);

// `verify` of one database row: its bytes go through the chain, and its stored columns must say
// what the bytes say (a row edited with the triggers off); each disagreement is a break. Returns
// the record parsed, or nullopt when it is not a valid record (ChainVerifier::add()).
std::optional<Record> verify_row(ChainVerifier& verifier, std::int64_t seq, std::string_view bytes,
                                 const Columns& stored);

}  // namespace benchledger::ledger
