// The PostgreSQL ledger's table (see postgres_store.hpp): its schema, the triggers that keep it
// append-only and chained, the table of points the database derives from it, the lock appenders
// queue on, and the append-only grant for a CI role.
#pragma once

#include <string>

#include <pqxx/pqxx>

namespace benchledger::ledger::postgres {

// The key of the transaction-scoped advisory lock that orders appenders: "BENC".
inline constexpr const char* k_lock_key = "1111838275";
// How long an appender waits for the lock (unless the session sets its own lock_timeout), and
// how long one may sit idle inside its transaction: the SQLite store's busy timeout.
inline constexpr const char* k_lock_timeout = "60s";
// SQLSTATE lock_not_available: lock_timeout expired.
inline constexpr const char* k_lock_not_available = "55P03";

// Whether the table exists (in the search path).
bool table_exists(pqxx::transaction_base& txn);
// Whether the table of points exists: not in a ledger made before it until its owner appends.
bool points_exist(pqxx::transaction_base& txn);
// Refuses a table of that name that benchledger did not create. Throws Error naming `name`.
void check_ours(pqxx::transaction_base& txn, const std::string& name);
// Refuses a database whose encoding is not UTF8. Throws Error naming `name`.
void check_encoding(pqxx::transaction_base& txn, const std::string& name);

// The first statements of a transaction that appends (or grants), ending with the appenders' lock
// (see the definition). `default_lock_timeout`: the session's lock_timeout is PostgreSQL's
// default, so ours is set.
void begin_append(pqxx::work& txn, bool default_lock_timeout);
// Creates the table (with its table of points and views) under the appenders' lock (already
// held) if it is missing; checks it if not, and gives one made before the points or the views
// what it lacks when the connected role owns it.
void create_or_check(pqxx::work& txn, const std::string& name);
// Under the appenders' lock: creates the table if missing, brings its trigger of appends up to date
// and leaves `role` (created if missing) only SELECT and INSERT on it; throws Error, for the caller
// to roll back, when the role or the table is one that REVOKE cannot bound (see
// grant_append_only() in ledger.hpp).
void grant_append_only(pqxx::work& txn, const std::string& role, const std::string& name);

}  // namespace benchledger::ledger::postgres
