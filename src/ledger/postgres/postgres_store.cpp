// The PostgreSQL store (see postgres_store.hpp): the connection, the write transaction, and
// reading; the table's schema, triggers and grants are postgres_schema.hpp's. Written against the
// part of libpqxx that 6.4 (Debian 12) and 7.x share: connection, work, read_transaction, exec of
// SQL text, quote(). Values go into SQL through quote(), never by pasting.
#include "ledger/postgres/postgres_store.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

#include <fmt/format.h>
#include <pqxx/pqxx>

#include <benchledger/error.hpp>

#include "ledger/canonical.hpp"
#include "ledger/chain.hpp"
#include "ledger/columns.hpp"
#include "ledger/import_plan.hpp"
#include "ledger/points.hpp"
#include "ledger/postgres/postgres_schema.hpp"
#include "model/redact.hpp"

namespace benchledger::ledger::postgres {

namespace {

// Rows per INSERT statement, and per FETCH from a reading cursor.
constexpr std::size_t k_insert_rows = 250;
constexpr int k_fetch_rows = 1000;

constexpr const char* k_columns =
    "seq, bytes, id, type, time, run, label, bench, params, git_commit, target";

using Row = std::vector<std::optional<std::string_view>>;

std::string_view text(const std::optional<std::string_view>& field) {
  return field.value_or(std::string_view());
}

std::optional<std::string> nullable(const std::optional<std::string_view>& field) {
  if (!field) return std::nullopt;
  return std::string(*field);
}

Row row_of(const pqxx::row& row) {
  Row out;
  out.reserve(row.size());
  for (const auto& field : row) {
    if (field.is_null()) {
      out.emplace_back(std::nullopt);
    } else {
      out.emplace_back(std::string_view(field.c_str(), field.size()));
    }
  }
  return out;
}

std::string sql_text(pqxx::transaction_base& txn, const std::optional<std::string>& value) {
  return value ? txn.quote(*value) : std::string("NULL");
}

// A cursor of a transaction that outlives it, read a page at a time, so that memory stays
// constant; two of them read two queries side by side in one snapshot.
class Cursor {
 public:
  Cursor(pqxx::transaction_base& txn, const std::string& name, const std::string& sql)
      : Cursor(txn, name) {
    declare(txn, name, sql);
  }
  // The cursor `name` that declare() made, in `txn` or a subtransaction of it since released.
  Cursor(pqxx::transaction_base& txn, const std::string& name)
      : m_txn(txn), m_fetch(fmt::format("FETCH {} FROM {}", k_fetch_rows, name)) {}

  static void declare(pqxx::transaction_base& txn, const std::string& name,
                      const std::string& sql) {
    txn.exec("DECLARE " + name + " NO SCROLL CURSOR FOR " + sql);
  }

  // The next row, or nullptr after the last; valid until the next call.
  const Row* next() {
    if (m_at == m_rows.size()) {
      if (m_done) return nullptr;
      m_page = m_txn.exec(m_fetch);
      m_rows.clear();
      for (const auto& r : m_page) m_rows.push_back(row_of(r));
      // (result::size() is unsigned in libpqxx 6 and int in 7.)
      m_done = m_rows.size() < static_cast<std::size_t>(k_fetch_rows);
      m_at = 0;
      if (m_rows.empty()) return nullptr;
    }
    return &m_rows[m_at++];
  }

 private:
  pqxx::transaction_base& m_txn;
  std::string m_fetch;
  pqxx::result m_page;  // what m_rows' views point into
  std::vector<Row> m_rows;
  std::size_t m_at = 0;
  bool m_done = false;
};

// The rows of one append or import, in INSERT statements of k_insert_rows rows.
class PostgresBatch final : public ChainedStore::Batch {
 public:
  PostgresBatch(pqxx::work& txn, std::string name, std::int64_t seq)
      : m_txn(txn), m_name(std::move(name)), m_seq(seq) {}

  void find_present(ImportPlan& plan) override {
    for (std::size_t from = 0; from < plan.distinct_ids(); from += k_insert_rows) {
      std::string ids;
      for (const std::string& id : plan.ids(from, k_insert_rows)) {
        ids += (ids.empty() ? "" : ",") + m_txn.quote(id);
      }
      const pqxx::result found =
          m_txn.exec("SELECT id, seq, bytes FROM benchledger_records WHERE id IN (" + ids + ")");
      for (const auto& row : found) {
        plan.present(row[0].c_str(), std::string_view(row[2].c_str(), row[2].size()), m_name,
                     fmt::format("record {}", row[1].as<std::int64_t>()));
      }
    }
  }

  void write(std::vector<PendingRecord>& pending, const std::vector<Record>& records) override {
    for (std::size_t from = 0; from < pending.size(); from += k_insert_rows) {
      std::string sql =
          "INSERT INTO benchledger_records (seq, id, type, time, run, label, bench, params, "
          "git_commit, target, bytes) VALUES ";
      for (std::size_t i = from; i < std::min(pending.size(), from + k_insert_rows); ++i) {
        const Columns columns = columns_of(records[pending[i].index]);
        sql += fmt::format("{}({},{},{},{},{},{},{},{},{},{},{})", i == from ? "" : ",", ++m_seq,
                           m_txn.quote(columns.id), m_txn.quote(columns.type),
                           m_txn.quote(columns.time), sql_text(m_txn, columns.run),
                           sql_text(m_txn, columns.label), sql_text(m_txn, columns.bench),
                           sql_text(m_txn, columns.params), sql_text(m_txn, columns.git_commit),
                           sql_text(m_txn, columns.target), m_txn.quote(pending[i].bytes));
      }
      m_txn.exec(sql);
    }
    m_appended += static_cast<std::int64_t>(pending.size());
  }

  std::int64_t appended() const { return m_appended; }

 private:
  pqxx::work& m_txn;
  std::string m_name;
  std::int64_t m_seq;  // of the last row
  std::int64_t m_appended = 0;
};

}  // namespace

std::string PostgresStore::message_of(const std::exception& e) const {
  const std::string what = e.what();
  for (const auto& [begin, end] : model::secret_spans(m_uri)) {
    const std::string raw = m_uri.substr(begin, end - begin);
    if (raw.empty()) continue;
    if (what.find(raw) != std::string::npos ||
        what.find(model::percent_decoded(raw)) != std::string::npos) {
      return "libpq's message is not shown: it quotes the URI's password";
    }
  }
  return what;
}

struct PostgresStore::Connection {
  explicit Connection(const std::string& uri) : connection(uri) {}
  pqxx::connection connection;
  bool default_lock_timeout = true;  // the session's lock_timeout is 0, PostgreSQL's default
};

PostgresStore::PostgresStore(std::string uri)
    : m_uri(std::move(uri)), m_name(model::redact_secrets(m_uri)) {}

PostgresStore::~PostgresStore() = default;

PostgresStore::Connection& PostgresStore::connection() const {
  if (m_connection && m_connection->connection.is_open()) return *m_connection;
  m_connection.reset();
  try {
    m_connection = std::make_unique<Connection>(m_uri);
    pqxx::nontransaction setup(m_connection->connection);
    setup.exec("SET client_encoding = 'UTF8'");
    check_encoding(setup, m_name);
    // A lock_timeout set for the role, the database or in the URI's options is kept.
    m_connection->default_lock_timeout =
        std::string(setup.exec("SHOW lock_timeout")[0][0].c_str()) == "0";
  } catch (const Error&) {
    m_connection.reset();
    throw;
  } catch (const std::exception& e) {
    m_connection.reset();
    throw Error(fmt::format("cannot connect to {}: {}", m_name, message_of(e)));
  }
  return *m_connection;
}

std::string PostgresStore::write_batch(
    const BatchOutline& outline,
    const std::function<std::string(Batch& batch, std::string head)>& body) {
  m_warnings.clear();
  Connection& c = connection();
  bool committing = false;
  std::int64_t appended = 0;
  try {
    pqxx::work txn(c.connection);
    begin_append(txn, c.default_lock_timeout);
    create_or_check(txn, m_name);
    std::string head(k_zero_hash);
    std::int64_t seq = 0;
    {
      // The last two records: a tail that does not verify refuses the batch (checked_tail).
      const pqxx::result last =
          txn.exec("SELECT seq, bytes FROM benchledger_records ORDER BY seq DESC LIMIT 2");
      if (!last.empty()) {
        seq = last[0][0].as<std::int64_t>();
        head =
            checked_tail(m_name, fmt::format("its last record (record {})", seq),
                         std::string_view(last[0][1].c_str(), last[0][1].size()),
                         last.size() > 1 ? std::optional<std::string_view>(
                                               std::in_place, last[1][1].c_str(), last[1][1].size())
                                         : std::nullopt);
      }
    }
    // One transaction, however many records: all or nothing.
    PostgresBatch batch(txn, m_name, seq);
    head = body(batch, head);
    appended = batch.appended();
    committing = true;
    txn.commit();
    return head;
  } catch (const ConflictError&) {
    throw;
  } catch (const IntegrityError&) {  // checked_tail's message says nothing was written
    throw;
  } catch (const pqxx::in_doubt_error& e) {
    m_connection.reset();
    throw Error(fmt::format(
        "{}: the connection was lost during COMMIT, so whether the batch of {} records was "
        "written is unknown: {} (look for its first record, {}, in `benchledger ledger export`, "
        "then run `verify`)",
        m_name, appended, message_of(e), outline.first_id));
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + " (nothing was written)");
  } catch (const pqxx::sql_error& e) {
    const bool default_lock_timeout = c.default_lock_timeout;  // before `c` may be freed
    if (!c.connection.is_open()) m_connection.reset();
    if (e.sqlstate() == k_lock_not_available) {
      throw Error(
          fmt::format("cannot append to {}: another appender held the ledger's lock "
                      "longer than lock_timeout ({}) (nothing was written)",
                      m_name, default_lock_timeout ? k_lock_timeout : "as set"));
    }
    // A COMMIT the server refused rolled back; one whose answer never came raised in_doubt.
    throw Error(fmt::format("cannot append to {}: {}{} (nothing was written)", m_name,
                            message_of(e), committing ? " (COMMIT failed)" : ""));
  } catch (const std::exception& e) {
    if (!c.connection.is_open()) m_connection.reset();
    throw Error(fmt::format("cannot append to {}: {}{} (nothing was written)", m_name,
                            message_of(e), committing ? " (COMMIT failed)" : ""));
  }
}

std::int64_t PostgresStore::integer(const std::optional<std::string_view>& field) const {
  const std::string_view digits = text(field);
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc() || end != digits.data() + digits.size()) {
    throw Error(fmt::format("{}: the server answered \"{}\" where a row's integer belongs", m_name,
                            digits.substr(0, 40)));
  }
  return value;
}

double PostgresStore::real(const std::optional<std::string_view>& field) const {
  const std::string_view digits = text(field);
  double value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc() || end != digits.data() + digits.size()) {
    throw Error(fmt::format("{}: the server answered \"{}\" where a point's number belongs", m_name,
                            digits.substr(0, 40)));
  }
  return value;
}

bool PostgresStore::points_exist() const {
  Connection& c = connection();
  try {
    pqxx::read_transaction txn(c.connection);
    return postgres::points_exist(txn);
  } catch (const std::exception& e) {
    if (!c.connection.is_open()) m_connection.reset();
    throw Error(fmt::format("cannot read {}: {}", m_name, message_of(e)));
  }
}

Record PostgresStore::parse_row(std::int64_t seq, std::string_view bytes) const {
  return parse_stored(bytes, m_name, "record", seq);
}

bool PostgresStore::query_rows(const std::string& sql,
                               const std::function<bool(const Row&)>& row) const {
  Connection& c = connection();
  try {
    pqxx::read_transaction txn(c.connection);
    if (!table_exists(txn)) {
      m_warnings.push_back(
          fmt::format("{}: its ledger table does not exist yet: read as an empty ledger (the "
                      "first append creates it)",
                      m_name));
      return false;
    }
    check_ours(txn, m_name);
    Cursor rows(txn, "benchledger_rows", sql);
    for (const Row* r = rows.next(); r != nullptr; r = rows.next()) {
      if (!row(*r)) break;
    }
    return true;
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    if (!c.connection.is_open()) m_connection.reset();
    throw Error(fmt::format("cannot read {}: {}", m_name, message_of(e)));
  }
}

void PostgresStore::scan(const std::function<bool(const StoredRecord&)>& visit) const {
  m_warnings.clear();
  query_rows("SELECT seq, bytes FROM benchledger_records ORDER BY seq", [&](const Row& row) {
    const std::int64_t seq = integer(row[0]);
    return visit(StoredRecord{seq, std::string(text(row[1])), parse_row(seq, text(row[1]))});
  });
}

void PostgresStore::scan_bytes(
    const std::function<bool(std::int64_t position, std::string_view bytes)>& visit) const {
  m_warnings.clear();
  query_rows("SELECT seq, bytes FROM benchledger_records ORDER BY seq",
             [&](const Row& row) { return visit(integer(row[0]), text(row[1])); });
}

std::vector<RunRecord> PostgresStore::find_runs(const RunSelector& selector,
                                                std::size_t limit) const {
  m_warnings.clear();
  std::vector<RunRecord> out;
  if (limit == 0) return out;
  // The quoting needs a connection; the selector's value only ever goes in through quote().
  pqxx::connection& c = connection().connection;
  const std::string page = fmt::format(
      " ORDER BY seq DESC{} OFFSET {}",
      limit >= static_cast<std::size_t>(INT64_MAX) ? "" : fmt::format(" LIMIT {}", limit),
      selector.back);
  std::string where;
  switch (selector.kind) {
    case RunSelector::Kind::id:
      where = "id = " + c.quote(selector.value);
      break;
    case RunSelector::Kind::label:
      where = "label = " + c.quote(selector.value);
      break;
    case RunSelector::Kind::git: {
      // A prefix: LIKE with text_pattern_ops uses the index. The selector holds hex digits
      // only, but the pattern's own characters are escaped all the same.
      std::string pattern;
      for (const char ch : selector.value) {
        if (ch == '%' || ch == '_' || ch == '\\') pattern += '\\';
        pattern += ch;
      }
      where = "git_commit LIKE " + c.quote(pattern + "%");
      break;
    }
    case RunSelector::Kind::latest:
      where = "TRUE";
      break;
  }
  const std::string sql = "SELECT seq, bytes FROM benchledger_records WHERE type = 'run' AND " +
                          where + (selector.kind == RunSelector::Kind::id ? "" : page);
  query_rows(sql, [&](const Row& row) {
    out.push_back(std::get<RunRecord>(parse_row(integer(row[0]), text(row[1]))));
    return out.size() < limit;
  });
  return out;
}

void PostgresStore::scan_results(const std::string& run_id,
                                 const std::function<bool(ResultRecord&& result)>& visit) const {
  m_warnings.clear();
  const std::string sql = "SELECT seq, bytes FROM benchledger_records WHERE run = " +
                          connection().connection.quote(run_id) +
                          " AND type = 'result' ORDER BY seq";
  query_rows(sql, [&](const Row& row) {
    return visit(std::get<ResultRecord>(parse_row(integer(row[0]), text(row[1]))));
  });
}

std::vector<NoteRecord> PostgresStore::notes() const {
  m_warnings.clear();
  std::vector<NoteRecord> out;
  query_rows("SELECT seq, bytes FROM benchledger_records WHERE type = 'note' ORDER BY seq",
             [&](const Row& row) {
               out.push_back(std::get<NoteRecord>(parse_row(integer(row[0]), text(row[1]))));
               return true;
             });
  return out;
}

std::optional<StoredRecord> PostgresStore::find_record(const std::string& id) const {
  m_warnings.clear();
  std::optional<StoredRecord> found;
  query_rows(
      "SELECT seq, bytes FROM benchledger_records WHERE id = " + connection().connection.quote(id),
      [&](const Row& row) {
        const std::int64_t seq = integer(row[0]);
        found = StoredRecord{seq, std::string(text(row[1])), parse_row(seq, text(row[1]))};
        return false;
      });
  return found;
}

std::vector<RunListing> PostgresStore::log(std::size_t limit) const {
  m_warnings.clear();
  std::vector<RunListing> out;
  query_rows(fmt::format("SELECT r.seq, r.bytes, (SELECT count(*) FROM benchledger_records x "
                         "WHERE x.run = r.id AND x.type = 'result') FROM benchledger_records r "
                         "WHERE r.type = 'run' ORDER BY r.seq DESC{}",
                         limit == 0 ? "" : fmt::format(" LIMIT {}", limit)),
             [&](const Row& row) {
               RunListing listing;
               listing.run = std::get<RunRecord>(parse_row(integer(row[0]), text(row[1])));
               listing.results = integer(row[2]);
               out.push_back(std::move(listing));
               return true;
             });
  return out;
}

VerifyReport PostgresStore::verify(const std::optional<std::string>& head) const {
  m_warnings.clear();
  ChainVerifier verifier(m_name, "record", head);
  verify_after(verifier, 0);
  return verifier.finish();
}

VerifyReport PostgresStore::verify_since(const std::string& saved_head) const {
  m_warnings.clear();
  ChainVerifier verifier(m_name, "record", std::nullopt);
  std::int64_t after = 0;
  if (saved_head != k_zero_hash) {
    // The saved head's record is the last one, or the one before the newest record whose bytes
    // hold the saved head (as its `prev`): the server looks for that text from the newest record
    // back (the primary key read backwards), so that a head saved a day ago costs a day's
    // records, sending none of their bytes; this process then hashes the record before it
    // itself, so that nothing rests on the server's word. A record that holds the text for
    // another reason (a note quoting the head) is passed over.
    std::optional<std::pair<std::int64_t, std::string>> found;
    const auto saved_head_at = [&](const std::string& where) {
      bool any = false;
      std::int64_t seq = 0;
      const bool table = query_rows(
          fmt::format("SELECT seq, bytes FROM benchledger_records {} ORDER BY seq DESC LIMIT 1",
                      where),
          [&](const Row& row) {
            any = true;
            seq = integer(row[0]);
            if (sha256_hex(text(row[1])) == saved_head) {
              const auto peek = peek_canonical(text(row[1]));
              found.emplace(seq, peek ? std::string(peek->id) : std::string());
            }
            return false;
          });
      return std::make_pair(table, any ? std::optional<std::int64_t>(seq) : std::nullopt);
    };
    const std::string quoted = connection().connection.quote(saved_head);
    const bool exists = saved_head_at("").first;
    for (std::int64_t below = std::numeric_limits<std::int64_t>::max(); exists && !found;) {
      std::optional<std::int64_t> naming;
      query_rows(fmt::format("SELECT seq, NULL FROM benchledger_records WHERE seq < {} AND "
                             "pg_catalog.strpos(bytes, {}) > 0 ORDER BY seq DESC LIMIT 1",
                             below, quoted),
                 [&](const Row& row) {
                   naming = integer(row[0]);
                   return false;
                 });
      if (!naming) break;
      const auto before = saved_head_at(fmt::format("WHERE seq < {}", *naming)).second;
      if (!before) break;
      below = *naming;
    }
    if (!exists) {
      throw Error(fmt::format("cannot verify {}: its ledger table does not exist", m_name));
    }
    if (!found) {
      std::int64_t records = 0;
      query_rows("SELECT count(*), NULL FROM benchledger_records", [&](const Row& row) {
        records = integer(row[0]);
        return false;
      });
      verifier.add_ledger_break(unknown_saved_head(saved_head, records));
      return verifier.finish();
    }
    after = found->first;
    verifier.start_after(after, found->second, saved_head);
  } else {
    verifier.start_after(0, "", saved_head);
  }
  verify_after(verifier, after);
  return verifier.finish();
}

void PostgresStore::verify_after(ChainVerifier& verifier, std::int64_t after) const {
  Connection& c = connection();
  std::string unreadable_points;  // why the table of points cannot be read: a break, at the end
  try {
    pqxx::read_transaction txn(c.connection);
    // One snapshot for the records and the points: a batch appended between two reads would
    // show as points that no record gives.
    txn.exec("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
    if (!table_exists(txn)) {
      throw Error(fmt::format("cannot verify {}: its ledger table does not exist", m_name));
    }
    check_ours(txn, m_name);
    // The points after `after`, beside the records, unless the table is missing (a ledger made
    // before them: its owner's append makes it) or cannot be read (one made over with other
    // columns, whose cursor is declared under a savepoint so that the records are read anyway).
    std::optional<Cursor> points;
    if (postgres::points_exist(txn)) {
      const std::string name = "benchledger_points_rows";
      try {
        pqxx::subtransaction declare(txn, "benchledger_points_cursor");
        Cursor::declare(declare, name,
                        fmt::format("SELECT seq, bench, params, metric, result, is_primary, unit, "
                                    "better, run, time, label, branch, git_commit, dirty, centre, "
                                    "low, high, min, max, samples FROM benchledger_points WHERE "
                                    "seq > {} ORDER BY seq, metric",
                                    after));
        declare.commit();
        points.emplace(txn, name);
      } catch (const pqxx::sql_error& e) {
        if (!c.connection.is_open()) throw;
        unreadable_points = message_of(e);
      }
    }
    std::optional<PointsCheck> check;
    if (points) {
      check.emplace(
          // A result's run from before `after` (or one no longer kept): one probe of the ids'
          // unique index, in the same snapshot.
          [&](const std::string& id, std::int64_t before) -> std::optional<std::string> {
            const pqxx::result run = txn.exec(
                fmt::format("SELECT bytes FROM benchledger_records WHERE id = {} AND type = "
                            "'run' AND seq < {}",
                            txn.quote(id), before));
            if (run.empty()) return std::nullopt;
            return std::string(run[0][0].c_str(), run[0][0].size());
          },
          [&](PointRow& point) {
            const Row* found = points->next();
            if (found == nullptr) return false;
            const Row& row = *found;
            point = PointRow{std::string(text(row[1])),
                             std::string(text(row[2])),
                             std::string(text(row[3])),
                             integer(row[0]),
                             std::string(text(row[4])),
                             text(row[5]) == "t" ? 1 : 0,
                             std::string(text(row[6])),
                             std::string(text(row[7])),
                             std::string(text(row[8])),
                             std::string(text(row[9])),
                             nullable(row[10]),
                             nullable(row[11]),
                             nullable(row[12]),
                             text(row[13]) == "t" ? 1 : 0,
                             {},
                             integer(row[19])};
            for (std::size_t i = 14; i < 19; ++i) point.numbers.push_back(real(row[i]));
            return true;
          },
          verifier);
    }
    // Each record parsed once, for the chain, its columns and its points.
    Cursor records(txn, "benchledger_verify_rows",
                   fmt::format("SELECT {} FROM benchledger_records WHERE seq > {} ORDER BY seq",
                               k_columns, after));
    for (const Row* found = records.next(); found != nullptr; found = records.next()) {
      const Row& row = *found;
      const std::int64_t seq = integer(row[0]);
      const std::optional<Record> record = verify_row(
          verifier, seq, text(row[1]),
          Columns{std::string(text(row[2])), std::string(text(row[3])), std::string(text(row[4])),
                  nullable(row[5]), nullable(row[6]), nullable(row[7]), nullable(row[8]),
                  nullable(row[9]), nullable(row[10])});
      // On past a bad record: nothing after it may go unchecked.
      if (check) check->add(seq, record);
    }
    if (check) check->finish();
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    if (!c.connection.is_open()) m_connection.reset();
    throw Error(fmt::format("cannot read {}: {}", m_name, message_of(e)));
  }
  // A table of points made over with other columns is a break like the others, not a reason to
  // stop reporting.
  if (!unreadable_points.empty()) {
    verifier.add_ledger_break("its table of points cannot be read: " + unreadable_points);
  }
}

void PostgresStore::grant_append_only(const std::string& role) {
  Connection& c = connection();
  try {
    pqxx::work txn(c.connection);
    begin_append(txn, c.default_lock_timeout);
    postgres::grant_append_only(txn, role, m_name);
    txn.commit();
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    if (!c.connection.is_open()) m_connection.reset();
    throw Error(
        fmt::format("cannot grant {} append-only access to {}: {}", role, m_name, message_of(e)));
  }
}

}  // namespace benchledger::ledger::postgres
