// The PostgreSQL ledger's table (see postgres_schema.hpp). Values go into SQL through quote(),
// never by pasting.
#include "ledger/postgres/postgres_schema.hpp"

#include <fmt/format.h>

#include <benchledger/error.hpp>

namespace benchledger::ledger::postgres {

namespace {

// The key of the transaction-scoped advisory lock that orders appenders: "BENC".
constexpr const char* k_lock_key = "1111838275";
// Marks the table as a benchledger ledger, like SQLite's application_id.
constexpr const char* k_table_comment = "benchledger ledger, schema benchledger/1";

// The table, its indexes and the triggers that make it append-only. seq is the position, and
// appends number their rows on from the last, so a row can only go in the middle of history
// with a seq already taken: the primary key refuses it, as the unique id refuses an id used
// before, and their names say why in the error. (PostgreSQL has no INSERT OR REPLACE; ON
// CONFLICT DO UPDATE fires the update trigger.) A per-row insert trigger saying the same cost
// 40-70 ms a 1,000-record batch here, two to three times the rest of the insert.
// TRUNCATE, which fires no row trigger, has a statement trigger.
constexpr const char* k_schema_sql = R"sql(
CREATE TABLE benchledger_records (
  seq bigint NOT NULL
    CONSTRAINT "benchledger ledger is append-only: this seq is taken" PRIMARY KEY
    CONSTRAINT "benchledger ledger positions start at 1" CHECK (seq > 0),
  id text NOT NULL
    CONSTRAINT "benchledger ledger is append-only: this id is taken" UNIQUE,
  type text NOT NULL CHECK (type IN ('run', 'result', 'note')),
  time text NOT NULL,
  run text,
  label text,
  bench text,
  params text,
  git_commit text,
  target text,
  bytes text NOT NULL
);
CREATE INDEX benchledger_records_by_type ON benchledger_records (type, seq);
CREATE INDEX benchledger_records_by_run ON benchledger_records (run, seq);
CREATE INDEX benchledger_records_by_label ON benchledger_records (label, seq);
CREATE INDEX benchledger_records_by_git_commit
  ON benchledger_records (git_commit text_pattern_ops, seq);
CREATE INDEX benchledger_records_by_case ON benchledger_records (bench, params);
CREATE INDEX benchledger_records_by_time ON benchledger_records (time);
CREATE OR REPLACE FUNCTION benchledger_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'benchledger ledger is append-only: % is refused (correct a record by appending a note)', TG_OP;
END $$;
CREATE TRIGGER benchledger_refuse_update BEFORE UPDATE ON benchledger_records
  FOR EACH ROW EXECUTE FUNCTION benchledger_refuse_change();
CREATE TRIGGER benchledger_refuse_delete BEFORE DELETE ON benchledger_records
  FOR EACH ROW EXECUTE FUNCTION benchledger_refuse_change();
CREATE TRIGGER benchledger_refuse_truncate BEFORE TRUNCATE ON benchledger_records
  FOR EACH STATEMENT EXECUTE FUNCTION benchledger_refuse_change();
)sql";

// The database keeps the chain itself: after every INSERT statement, its rows must be numbered
// on from the last row before them, carry in `prev` the SHA-256 of the bytes of the row before,
// and each be exactly one record: the bytes parse as one JSON object (jsonb: junk after it, or a
// second value, fails the parse) that begins as a canonical record begins and is one line, with
// the fields its type requires, of the right JSON types, and the row's columns must say what
// the bytes say (a `label` column that names another run would send `show baseline` to it). So
// a role that may only insert (`ledger grant`) can append records, and cannot append a row that
// breaks the chain, or blinds readers, for everyone else. One check a statement, over its rows
// (a transition table), not a trigger a row; the bytes are parsed once, and parsed again row by
// row only when the statement fails, to name the row. What it does not check is verify's: the
// full rules of parse_record() (a metric's summary, numbers' ranges). Built-in functions are named
// with their schema, so that no function of the same name elsewhere can stand in; @SCHEMA@ is the
// table's schema.
constexpr const char* k_chain_function_sql = R"sql(
CREATE OR REPLACE FUNCTION benchledger_chain_on() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, @SCHEMA@, pg_temp AS $$
DECLARE
  first_seq bigint;
  last_seq bigint;
  rows bigint;
  start_hash text;
  bad bigint;
  why text;
  r record;
BEGIN
  SELECT pg_catalog.min(seq), pg_catalog.max(seq), pg_catalog.count(*)
    INTO first_seq, last_seq, rows FROM new_rows;
  IF rows = 0 THEN
    RETURN NULL;
  END IF;
  IF last_seq - first_seq + 1 <> rows
     OR (SELECT pg_catalog.count(*) FROM @SCHEMA@.benchledger_records WHERE seq >= first_seq) <> rows
  THEN
    RAISE EXCEPTION 'benchledger ledger is append-only: records go after the last one, numbered on from it';
  END IF;
  SELECT pg_catalog.encode(pg_catalog.sha256(pg_catalog.convert_to(bytes, 'UTF8')), 'hex')
    INTO start_hash FROM @SCHEMA@.benchledger_records WHERE seq = first_seq - 1;
  IF start_hash IS NULL THEN
    IF first_seq <> 1 THEN
      RAISE EXCEPTION 'benchledger ledger is append-only: record % is not numbered on from the last one', first_seq;
    END IF;
    start_hash := pg_catalog.repeat('0', 64);
  END IF;
  BEGIN
    SELECT seq, problem INTO bad, why FROM (
      SELECT seq, CASE
        -- A canonical record begins {"schema":"benchledger/1","type":"…","id":"…","time":"…",
        -- "prev":"…", so the first "prev":" is the header's: nothing a user wrote comes before it.
        WHEN pg_catalog.left(bytes, 34) <> '{"schema":"benchledger/1","type":"'
             OR pg_catalog.right(bytes, 1) <> '}'
          THEN 'it is not shaped as a record (one JSON object that begins {"schema":"benchledger/1","type":")'
        WHEN pg_catalog.strpos(bytes, E'\n') > 0 OR pg_catalog.strpos(bytes, E'\r') > 0
          THEN 'it holds a line break: a record is one line'
        WHEN at = 0 OR pg_catalog.substr(bytes, at + 8, 65) <> expected || '"'
             OR pg_catalog.jsonb_typeof(j -> 'prev') IS DISTINCT FROM 'string'
             OR j ->> 'prev' <> expected
          THEN 'it does not chain on: its prev is not the SHA-256 of record ' || (seq - 1)
        WHEN pg_catalog.jsonb_typeof(j -> 'type') IS DISTINCT FROM 'string'
             OR pg_catalog.jsonb_typeof(j -> 'id') IS DISTINCT FROM 'string'
             OR pg_catalog.jsonb_typeof(j -> 'time') IS DISTINCT FROM 'string'
             OR j ->> 'schema' IS DISTINCT FROM 'benchledger/1'
             OR j ->> 'type' <> type OR j ->> 'id' <> id OR j ->> 'time' <> time
          THEN 'its type, id or time column disagrees with its bytes'
        WHEN id !~ '^[0-7][0-9A-HJKMNP-TV-Z]{25}$'
             OR time !~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z$'
          THEN 'its id is not a ULID, or its time not RFC 3339 UTC with microseconds'
        WHEN type = 'run' AND NOT (
               j ?& ARRAY['label', 'project', 'git', 'env', 'warnings', 'command', 'source']
               AND pg_catalog.jsonb_typeof(j -> 'label') IN ('string', 'null')
               AND pg_catalog.jsonb_typeof(j -> 'project') = 'string'
               AND pg_catalog.jsonb_typeof(j -> 'git') = 'object'
               AND (j -> 'git') ?& ARRAY['commit', 'branch', 'dirty']
               AND pg_catalog.jsonb_typeof(j -> 'git' -> 'commit') IN ('string', 'null')
               AND pg_catalog.jsonb_typeof(j -> 'env') = 'object'
               AND pg_catalog.jsonb_typeof(j -> 'warnings') = 'array'
               AND pg_catalog.jsonb_typeof(j -> 'command') = 'array'
               AND pg_catalog.jsonb_typeof(j -> 'source') = 'string')
          THEN 'it lacks a field a run record has, or one is of the wrong JSON type'
        WHEN type = 'result' AND NOT (
               j ?& ARRAY['run', 'bench', 'params', 'metrics', 'primary', 'ops', 'errors']
               AND pg_catalog.jsonb_typeof(j -> 'run') = 'string'
               AND j ->> 'run' ~ '^[0-7][0-9A-HJKMNP-TV-Z]{25}$'
               AND pg_catalog.jsonb_typeof(j -> 'bench') = 'string' AND j ->> 'bench' <> ''
               AND pg_catalog.jsonb_typeof(j -> 'params') = 'object'
               AND pg_catalog.jsonb_typeof(j -> 'metrics') = 'object'
               AND pg_catalog.jsonb_typeof(j -> 'primary') = 'string'
               AND (j -> 'metrics') ? (j ->> 'primary')
               AND pg_catalog.jsonb_typeof(j -> 'ops') = 'number'
               AND pg_catalog.jsonb_typeof(j -> 'errors') = 'number')
          THEN 'it lacks a field a result record has, or one is of the wrong JSON type'
        WHEN type = 'note' AND NOT (
               j ?& ARRAY['target', 'bench', 'kind', 'text', 'author']
               AND pg_catalog.jsonb_typeof(j -> 'target') = 'string'
               AND j ->> 'target' ~ '^[0-7][0-9A-HJKMNP-TV-Z]{25}$'
               AND pg_catalog.jsonb_typeof(j -> 'bench') IN ('string', 'null')
               AND j ->> 'kind' IN ('accept-regression', 'invalidate', 'comment', 'remove')
               AND pg_catalog.jsonb_typeof(j -> 'text') = 'string'
               AND pg_catalog.jsonb_typeof(j -> 'author') = 'string')
          THEN 'it lacks a field a note record has, or one is of the wrong JSON type'
        WHEN label IS DISTINCT FROM (CASE type WHEN 'run' THEN j ->> 'label' END)
             OR git_commit IS DISTINCT FROM (CASE type WHEN 'run' THEN j -> 'git' ->> 'commit' END)
             OR run IS DISTINCT FROM (CASE type WHEN 'result' THEN j ->> 'run' END)
             OR bench IS DISTINCT FROM (CASE WHEN type <> 'run' THEN j ->> 'bench' END)
             OR params::pg_catalog.jsonb IS DISTINCT FROM (CASE type WHEN 'result' THEN j -> 'params' END)
             OR target IS DISTINCT FROM (CASE type WHEN 'note' THEN j ->> 'target' END)
          THEN 'its indexed columns (run, label, bench, params, git_commit, target) disagree with its bytes'
        END AS problem
      FROM (
        SELECT n.*, n.bytes::pg_catalog.jsonb AS j,
               pg_catalog.strpos(n.bytes, '"prev":"') AS at,
               coalesce(pg_catalog.lag(pg_catalog.encode(pg_catalog.sha256(
                   pg_catalog.convert_to(n.bytes, 'UTF8')), 'hex')) OVER (ORDER BY n.seq),
                 start_hash) AS expected
        FROM new_rows n) AS parsed
    ) AS checked
    WHERE problem IS NOT NULL ORDER BY seq LIMIT 1;
  EXCEPTION WHEN data_exception OR program_limit_exceeded THEN
    -- Some row is not JSON: find the first, one row at a time (only on this path).
    FOR r IN SELECT n.seq, n.bytes, n.params FROM new_rows n ORDER BY n.seq LOOP
      BEGIN
        PERFORM r.bytes::pg_catalog.jsonb, r.params::pg_catalog.jsonb;
      EXCEPTION WHEN data_exception OR program_limit_exceeded THEN
        RAISE EXCEPTION 'benchledger ledger is append-only: record % is refused: its bytes (or its params column) are not one JSON value: %', r.seq, SQLERRM;
      END;
    END LOOP;
    RAISE;
  END;
  IF bad IS NOT NULL THEN
    RAISE EXCEPTION 'benchledger ledger is append-only: record % is refused: %', bad, why;
  END IF;
  RETURN NULL;
END $$;
)sql";

constexpr const char* k_chain_trigger_sql = R"sql(
CREATE TRIGGER benchledger_chain_on AFTER INSERT ON benchledger_records
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION benchledger_chain_on();
)sql";

// Views for dashboards (docs/history.md, "Grafana"): one row per run, case and metric, as the
// SQLite store's; results and runs that an `invalidate` note targets are left out. A view binds
// to the table it was made with, whatever the search_path of a later reader.
constexpr const char* k_views_sql = R"sql(
CREATE OR REPLACE VIEW benchledger_results AS
SELECT run.time::timestamptz AS time,
  r.run AS run,
  r.id AS result,
  run.label AS label,
  run.git_commit AS git_commit,
  (parsed.rj -> 'git' ->> 'dirty')::boolean AS dirty,
  parsed.rj -> 'env' ->> 'host' AS host,
  parsed.rj -> 'env' ->> 'fingerprint' AS fingerprint,
  r.bench AS bench,
  r.params::jsonb AS params,
  m.key AS metric,
  m.key = parsed.j ->> 'primary' AS is_primary,
  m.value ->> 'unit' AS unit,
  m.value ->> 'better' AS better,
  (m.value ->> 'value')::double precision AS centre,
  (m.value -> 'summary' ->> 'p50')::double precision AS p50,
  (m.value -> 'summary' ->> 'p95')::double precision AS p95,
  (m.value -> 'summary' ->> 'p99')::double precision AS p99,
  (m.value -> 'summary' ->> 'n')::bigint AS samples
FROM benchledger_records AS r
JOIN benchledger_records AS run ON run.id = r.run AND run.type = 'run'
CROSS JOIN LATERAL (SELECT r.bytes::jsonb AS j, run.bytes::jsonb AS rj) AS parsed
CROSS JOIN LATERAL jsonb_each(parsed.j -> 'metrics') AS m
WHERE r.type = 'result'
  AND NOT EXISTS (
    SELECT 1 FROM benchledger_records AS n
    WHERE n.type = 'note' AND n.bytes::jsonb ->> 'kind' = 'invalidate'
      AND ((n.target = r.run AND (n.bench IS NULL OR n.bench = r.bench))
           OR (n.target = r.id AND n.bench IS NULL)));
)sql";

// Whether the connected role may replace the views: it owns the table, or is a member of its owner.
bool owns_table(pqxx::transaction_base& txn) {
  return txn
      .exec(
          "SELECT pg_has_role(current_user, c.relowner, 'MEMBER') FROM pg_class c "
          "WHERE c.oid = to_regclass('benchledger_records')")[0][0]
      .as<bool>();
}

// The chain check's function, for the table in `schema` (quoted).
std::string chain_function_sql(const std::string& schema) {
  std::string sql = k_chain_function_sql;
  for (std::size_t at = sql.find("@SCHEMA@"); at != std::string::npos;
       at = sql.find("@SCHEMA@", at + schema.size())) {
    sql.replace(at, 8, schema);
  }
  return sql;
}

}  // namespace

bool table_exists(pqxx::transaction_base& txn) {
  const pqxx::result r = txn.exec("SELECT to_regclass('benchledger_records') IS NOT NULL");
  return r[0][0].as<bool>();
}

// Refuses a table of that name that benchledger did not create.
void check_ours(pqxx::transaction_base& txn, const std::string& name) {
  const pqxx::result r = txn.exec(
      "SELECT coalesce(obj_description(to_regclass('benchledger_records'), 'pg_class'), '')");
  const std::string comment = r[0][0].c_str();
  if (comment != k_table_comment) {
    throw Error(fmt::format(
        "{}: its table benchledger_records is not a benchledger ledger (its comment is \"{}\")",
        name, comment));
  }
}

// The bytes must reach the server and come back unchanged, and the server must hash them as
// benchledger does: UTF-8 on the wire, and a database that stores UTF-8.
void check_encoding(pqxx::transaction_base& txn, const std::string& name) {
  const pqxx::result r = txn.exec("SHOW server_encoding");
  const std::string encoding = r[0][0].c_str();
  if (encoding != "UTF8") {
    throw Error(
        fmt::format("{}: the database's encoding is {}; a ledger needs UTF8 (records are "
                    "UTF-8 and are kept byte for byte)",
                    name, encoding));
  }
}

// The first statements of a transaction that appends (or grants). READ COMMITTED whatever the
// role's or database's default: each statement then sees what committed before it, so the head
// read after the lock is granted is the head. synchronous_commit on: the batch is durable when
// COMMIT returns, whatever the session was set to (a pooler may hand over any session). A
// client that stalls inside the transaction is cut off by the server after a minute instead of
// holding every other appender's lock for as long as TCP takes to notice. Then the lock:
// appenders on every machine queue on it, within lock_timeout.
void begin_append(pqxx::work& txn, bool default_lock_timeout) {
  txn.exec("SET TRANSACTION ISOLATION LEVEL READ COMMITTED");
  txn.exec("SET LOCAL synchronous_commit = on");
  txn.exec(fmt::format("SET LOCAL idle_in_transaction_session_timeout = '{}'", k_lock_timeout));
  if (default_lock_timeout) {
    txn.exec(fmt::format("SET LOCAL lock_timeout = '{}'", k_lock_timeout));
  }
  txn.exec(fmt::format("SELECT pg_advisory_xact_lock({})", k_lock_key));
}

// Creates the table under the advisory lock (already held) if it is missing; checks it if not.
void create_or_check(pqxx::work& txn, const std::string& name) {
  if (table_exists(txn)) {
    check_ours(txn, name);
    // A table made before the views gets them from the first append by its owner (an
    // append-only role may not create them; `ledger grant` does too).
    if (txn.exec("SELECT to_regclass('benchledger_results') IS NULL")[0][0].as<bool>() &&
        owns_table(txn)) {
      txn.exec(k_views_sql);
    }
    return;
  }
  txn.exec(k_schema_sql);
  txn.exec(k_views_sql);
  // The chain check names the table, so it runs with the search_path the table was made in:
  // nobody's temporary table of that name can stand in for it.
  const std::string schema = txn.exec("SELECT current_schema()")[0][0].c_str();
  txn.exec(chain_function_sql(txn.quote_name(schema)));
  txn.exec(k_chain_trigger_sql);
  txn.exec(fmt::format("COMMENT ON TABLE benchledger_records IS {}",
                       txn.quote(std::string(k_table_comment))));
}

void grant_append_only(pqxx::work& txn, const std::string& role, const std::string& name) {
  create_or_check(txn, name);
  // The owner brings the chain check up to date: a table made by an older version keeps the
  // check it was made with, which a role granted now must not be able to slip past.
  const std::string schema =
      txn.exec(
             "SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
             "WHERE c.oid = to_regclass('benchledger_records')")[0][0]
          .c_str();
  txn.exec(chain_function_sql(txn.quote_name(schema)));
  txn.exec(k_views_sql);  // and the views
  const std::string quoted = txn.quote(role);
  const std::string role_name = txn.quote_name(role);
  if (txn.exec("SELECT 1 FROM pg_roles WHERE rolname = " + quoted).empty()) {
    txn.exec("CREATE ROLE " + role_name + " LOGIN");
  }
  // Whatever it was given before, the role keeps only these on the ledger's table.
  txn.exec("REVOKE ALL ON benchledger_records FROM " + role_name);
  txn.exec("GRANT SELECT, INSERT ON benchledger_records TO " + role_name);
  txn.exec("REVOKE ALL ON benchledger_results FROM " + role_name);
  txn.exec("GRANT SELECT ON benchledger_results TO " + role_name);
  // What REVOKE cannot take away refuses the grant, and the transaction, REVOKE included,
  // rolls back: superuser; CREATEROLE (which can make itself a member of the owner, up to
  // PostgreSQL 15); owning the table, its schema or the database, or being a member of an
  // owner (who may switch the triggers off, or drop the table or the schema); privileges
  // held through another role; and CREATE on the schema (functions or operators of the same
  // name as the chain check's).
  const pqxx::result held = txn.exec(
      "SELECT r.rolsuper, r.rolcreaterole, pg_has_role(r.oid, t.relowner, 'MEMBER'), "
      "pg_has_role(r.oid, n.nspowner, 'MEMBER'), pg_has_role(r.oid, d.datdba, 'MEMBER'), "
      "has_schema_privilege(r.oid, n.oid, 'CREATE'), "
      "has_table_privilege(r.oid, t.oid, 'UPDATE'), has_table_privilege(r.oid, t.oid, "
      "'DELETE'), has_table_privilege(r.oid, t.oid, 'TRUNCATE'), "
      "has_table_privilege(r.oid, t.oid, 'TRIGGER'), "
      "(SELECT count(*) FROM pg_trigger g WHERE g.tgrelid = t.oid AND g.tgenabled = 'O' AND "
      "g.tgname IN ('benchledger_refuse_update', 'benchledger_refuse_delete', "
      "'benchledger_refuse_truncate', 'benchledger_chain_on')) "
      "FROM pg_roles r, pg_class t JOIN pg_namespace n ON n.oid = t.relnamespace, "
      "pg_database d WHERE r.rolname = " +
      quoted +
      " AND t.oid = to_regclass('benchledger_records') AND d.datname = "
      "current_database()");
  const pqxx::row h = held[0];
  const auto refuse = [&](const std::string& why) {
    throw Error(fmt::format("cannot make {} append-only on {}: {}", role, name, why));
  };
  if (h[10].as<int>() != 4) {
    refuse(
        "the table's triggers are missing or switched off (an owner's ALTER TABLE … "
        "DISABLE TRIGGER); put them back first");
  }
  if (h[0].as<bool>()) refuse("it is a superuser (grant to a role without SUPERUSER)");
  if (h[1].as<bool>()) refuse("it has CREATEROLE (grant to a role without it)");
  const char* owned[] = {"the table", "the table's schema", "the database"};
  for (int i = 0; i < 3; ++i) {
    if (h[2 + i].as<bool>()) {
      refuse(
          fmt::format("it owns {}, or is a member of its owner (grant to another role)", owned[i]));
    }
  }
  if (h[5].as<bool>()) {
    refuse(
        "it may create objects in the table's schema (on PostgreSQL 14 and earlier every "
        "role may in `public`: REVOKE CREATE ON SCHEMA public FROM PUBLIC)");
  }
  const char* privileges[] = {"UPDATE", "DELETE", "TRUNCATE", "TRIGGER"};
  for (int i = 0; i < 4; ++i) {
    if (h[6 + i].as<bool>()) {
      refuse(
          fmt::format("it still has {} on the table through a role it is a member of "
                      "(revoke it there, or grant to another role)",
                      privileges[i]));
    }
  }
}

}  // namespace benchledger::ledger::postgres
