// The PostgreSQL ledger's table (see postgres_schema.hpp). Values go into SQL through quote(),
// never by pasting.
#include "ledger/postgres/postgres_schema.hpp"

#include <utility>

#include <fmt/format.h>

#include <benchledger/error.hpp>

namespace benchledger::ledger::postgres {

namespace {

// Marks the table as a benchledger ledger, like SQLite's application_id.
constexpr const char* k_table_comment = "benchledger ledger, schema benchledger/1";

// The table, its indexes and the triggers that make it append-only. seq is the position, and
// appends number their rows on from the last, so a row can only go in the middle of history
// with a seq already taken: the primary key refuses it, as the unique id refuses an id used
// before, and their names say why in the error. (PostgreSQL has no INSERT OR REPLACE; ON
// CONFLICT DO UPDATE fires the update trigger.) A per-row insert trigger saying the same cost
// 40-70 ms a 1,000-record batch here, two to three times the rest of the insert.
// TRUNCATE, which fires no row trigger, has a statement trigger. The indexes of columns only a
// run has (label, commit, time), and of types, hold runs and notes alone, so that a result, most
// of every batch, is written into three indexes (seq, id, run) instead of eight: the records'
// insert takes about half the CPU time it took (docs/postgres.md, "A fleet"). Every query of
// runs or notes names its type, which is what lets the planner use them.
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
CREATE INDEX benchledger_records_by_type ON benchledger_records (type, seq)
  WHERE type <> 'result';
CREATE INDEX benchledger_records_by_run ON benchledger_records (run, seq);
CREATE INDEX benchledger_records_by_label ON benchledger_records (label, seq) WHERE type = 'run';
CREATE INDEX benchledger_records_by_git_commit
  ON benchledger_records (git_commit text_pattern_ops, seq) WHERE type = 'run';
CREATE INDEX benchledger_records_by_time ON benchledger_records (time) WHERE type = 'run';
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
// full rules of parse_record() (a metric's summary, numbers' ranges). The same statement derives
// the points of its results from the same parse (k_points_ctes_sql, below), when no row is refused:
// one parse of each record where a check and a trigger of their own parsed it twice. It runs as the
// table's owner (SECURITY DEFINER), since the role that appends may write no point. Built-in
// functions are named with their schema, so that no function of the same name elsewhere can
// stand in; @SCHEMA@ is the table's schema.
constexpr const char* k_append_function_sql = R"sql(
CREATE OR REPLACE FUNCTION @SCHEMA@.benchledger_append_on() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, @SCHEMA@, pg_temp AS $$
DECLARE
  first_seq bigint;
  last_seq bigint;
  rows bigint;
  start_hash text;
  bad bigint;
  why text;
  unreadable record;
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
    WITH parsed AS MATERIALIZED (
      SELECT n.*, n.bytes::pg_catalog.jsonb AS j,
             pg_catalog.strpos(n.bytes, '"prev":"') AS at,
             coalesce(pg_catalog.lag(pg_catalog.encode(pg_catalog.sha256(
                 pg_catalog.convert_to(n.bytes, 'UTF8')), 'hex')) OVER (ORDER BY n.seq),
               start_hash) AS expected
      FROM new_rows n),
    checked AS MATERIALIZED (
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
      FROM parsed),
    -- Nothing is derived from a batch with a refused row (its message is the check's).
    results AS MATERIALIZED (
      SELECT p.seq, p.id, p.run, p.bench, p.params, p.j FROM parsed p
      WHERE p.type = 'result' AND NOT EXISTS (SELECT 1 FROM checked c WHERE c.problem IS NOT NULL)),
    @POINTS_CTES@,
    inserted AS (@POINTS_INSERT@)
    SELECT c.seq, c.problem INTO bad, why FROM checked c
    WHERE c.problem IS NOT NULL ORDER BY c.seq LIMIT 1;
  EXCEPTION WHEN data_exception OR program_limit_exceeded THEN
    -- Some row is not JSON: find the first, one row at a time (only on this path).
    FOR unreadable IN SELECT n.seq, n.bytes, n.params FROM new_rows n ORDER BY n.seq LOOP
      BEGIN
        PERFORM unreadable.bytes::pg_catalog.jsonb, unreadable.params::pg_catalog.jsonb;
      EXCEPTION WHEN data_exception OR program_limit_exceeded THEN
        RAISE EXCEPTION 'benchledger ledger is append-only: record % is refused: its bytes (or its params column) are not one JSON value: %', unreadable.seq, SQLERRM;
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

// The one trigger of appends. A ledger made by an earlier version had two, the chain check
// (benchledger_chain_on) and the points' (benchledger_points_on), each parsing every record:
// install_append() drops them when the owner brings the ledger up to date.
constexpr const char* k_append_trigger_sql = R"sql(
CREATE TRIGGER benchledger_append_on AFTER INSERT ON @SCHEMA@.benchledger_records
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
  EXECUTE FUNCTION @SCHEMA@.benchledger_append_on();
)sql";

// The table of points: each result's metrics with its run's fields, one row per metric, what
// `history` and the views read (docs/ledger.md, "PostgreSQL store"). The database derives
// every row from the records, in the statement that appends them (benchledger_append_on), so a
// role that may only insert records cannot write a point the records do not say: it has no
// privilege on the table but SELECT, and the trigger's function runs as the table's owner.
// Rows are never changed; `verify` recomputes every one from the records. Bench, params, metric
// and time compare byte by byte (COLLATE "C"), so that one case's series is one range of the key
// and its order is the SQLite store's. The key's index holds every column `history` reads, as
// SQLite's table without rowid does: one case is then read from the index alone, in its order
// (an index-only scan, once vacuum has marked the pages visible), 0.1 s for 100,000 points where
// reading them from the table took 0.3-0.5 s. @SCHEMA@ is the table's schema.
constexpr const char* k_points_sql = R"sql(
CREATE TABLE @SCHEMA@.benchledger_points (
  bench text COLLATE "C" NOT NULL,
  params text COLLATE "C" NOT NULL,
  metric text COLLATE "C" NOT NULL,
  seq bigint NOT NULL,
  result text NOT NULL,
  is_primary boolean NOT NULL,
  unit text NOT NULL,
  better text NOT NULL,
  run text NOT NULL,
  time text COLLATE "C" NOT NULL,
  label text,
  branch text,
  git_commit text,
  dirty boolean NOT NULL,
  host text,
  fingerprint text,
  centre double precision NOT NULL,
  low double precision NOT NULL,
  high double precision NOT NULL,
  min double precision NOT NULL,
  max double precision NOT NULL,
  p50 double precision,
  p95 double precision,
  p99 double precision,
  samples bigint NOT NULL,
  CONSTRAINT "benchledger points: one a case, metric and result"
    PRIMARY KEY (bench, params, metric, seq)
    INCLUDE (is_primary, result, unit, better, run, time, label, git_commit, dirty, centre, low,
             high, min, max, samples)
);
CREATE INDEX benchledger_points_by_seq ON @SCHEMA@.benchledger_points (seq, metric);
CREATE TRIGGER benchledger_points_refuse_update BEFORE UPDATE ON @SCHEMA@.benchledger_points
  FOR EACH ROW EXECUTE FUNCTION @SCHEMA@.benchledger_refuse_change();
CREATE TRIGGER benchledger_points_refuse_delete BEFORE DELETE ON @SCHEMA@.benchledger_points
  FOR EACH ROW EXECUTE FUNCTION @SCHEMA@.benchledger_refuse_change();
CREATE TRIGGER benchledger_points_refuse_truncate BEFORE TRUNCATE ON @SCHEMA@.benchledger_points
  FOR EACH STATEMENT EXECUTE FUNCTION @SCHEMA@.benchledger_refuse_change();
)sql";

// The functions that derive the points, replaced by the owner with each upgrade (like the check
// of appends). benchledger_time is a point's time (RFC 3339 UTC with microseconds, as the check
// requires of every run) as timestamptz, from its digits: a cast of the text depends on the
// session's settings, so no index can hold the cast, where the dashboards' index of points by
// label and time (k_label_index_sql) holds this; it is exactly what the cast gives for such a
// time.
// benchledger_median_rank is the k of stats::median_interval at 95%: the interval of a run's
// samples is [x(k), x(n+1-k)]. PostgreSQL has no lgamma, so the binomial terms come from one
// another (P(B = k) = P(B = k - 1) (n - k + 1) / k, in logs); on the same C library the two give
// the same k wherever the coverage is not within rounding of 95% (checked against median_interval
// for every n up to 20,000, and in the tests), and `verify` would name a point where they did not.
// A term below 1e-308 counts as 0 (exp would raise on underflow): at that size it cannot move the
// coverage. Numbers go through their JSON text to double precision, as parse_record reads them, and
// `+ 0` makes -0 a plain 0 as series_point() does.
constexpr const char* k_points_functions_sql = R"sql(
CREATE OR REPLACE FUNCTION @SCHEMA@.benchledger_time(t text) RETURNS timestamptz
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT pg_catalog.timezone('UTC', pg_catalog.make_timestamp(
    pg_catalog.substr(t, 1, 4)::pg_catalog.int4, pg_catalog.substr(t, 6, 2)::pg_catalog.int4,
    pg_catalog.substr(t, 9, 2)::pg_catalog.int4, pg_catalog.substr(t, 12, 2)::pg_catalog.int4,
    pg_catalog.substr(t, 15, 2)::pg_catalog.int4, pg_catalog.substr(t, 18, 9)::pg_catalog.float8))
$$;
CREATE OR REPLACE FUNCTION @SCHEMA@.benchledger_median_rank(n integer) RETURNS integer
LANGUAGE plpgsql IMMUTABLE STRICT SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  k integer := 1;
  lp double precision := n * pg_catalog.ln(0.5::double precision);
  below double precision;
  wider double precision;
BEGIN
  below := CASE WHEN lp < -708 THEN 0 ELSE pg_catalog.exp(lp) END;
  WHILE 2 * (k + 1) <= n + 1 LOOP
    lp := lp + (pg_catalog.ln((n - (k - 1))::double precision) - pg_catalog.ln(k::double precision));
    wider := below + CASE WHEN lp < -708 THEN 0 ELSE pg_catalog.exp(lp) END;
    EXIT WHEN 1 - 2 * wider < 0.95::double precision;
    below := wider;
    k := k + 1;
  END LOOP;
  RETURN k;
END $$;
CREATE OR REPLACE FUNCTION @SCHEMA@.benchledger_fill_points(first_seq bigint, last_seq bigint)
RETURNS void LANGUAGE sql SET search_path = pg_catalog, @SCHEMA@, pg_temp AS $$
  WITH results AS MATERIALIZED (
    SELECT r.seq, r.id, r.run, r.bench, r.params, r.bytes::pg_catalog.jsonb AS j
    FROM @SCHEMA@.benchledger_records r
    WHERE r.seq BETWEEN first_seq AND last_seq AND r.type = 'result'),
  @POINTS_CTES@
  @POINTS_INSERT@;
$$;
REVOKE ALL ON FUNCTION @SCHEMA@.benchledger_fill_points(bigint, bigint) FROM PUBLIC;
)sql";

// How the points of a CTE `results` (seq, id, run, bench, params, and j, the record parsed) are
// derived, written once for the append's trigger and for benchledger_fill_points: common table
// expressions (@POINTS_CTES@) and the INSERT that follows them (@POINTS_INSERT@). A result's run
// is read by its id from the table (the batch's rows are in it by then); one whose run is not
// before it has no point. Each metric's samples are sorted once; the interval's rank is computed
// once for each sample count in the batch (benchledger_median_rank is a loop in PL/pgSQL: called
// for every metric it was an eighth of the append).
constexpr const char* k_points_ctes_sql = R"sql(runs AS MATERIALIZED (
    SELECT x.seq, x.id, x.time, x.label, x.git_commit, x.bytes::pg_catalog.jsonb AS j
    FROM @SCHEMA@.benchledger_records x
    WHERE x.type = 'run' AND x.id IN (SELECT run FROM results)),
  metrics AS MATERIALIZED (
    SELECT r.bench, r.params, m.key AS metric, r.seq, r.id AS result,
      m.key = r.j ->> 'primary' AS is_primary, m.value, run.id AS run, run.time, run.label,
      run.j -> 'git' ->> 'branch' AS branch, run.git_commit,
      coalesce((run.j -> 'git' ->> 'dirty')::boolean, false) AS dirty,
      run.j -> 'env' ->> 'host' AS host, run.j -> 'env' ->> 'fingerprint' AS fingerprint,
      (m.value ->> 'value')::double precision + 0::double precision AS centre, agg.sorted, agg.n
    FROM results r
    JOIN runs run ON run.id = r.run AND run.seq < r.seq
    CROSS JOIN LATERAL pg_catalog.jsonb_each(r.j -> 'metrics') AS m
    CROSS JOIN LATERAL (
      SELECT pg_catalog.array_agg(v::double precision ORDER BY v::double precision) AS sorted,
        pg_catalog.count(*)::integer AS n
      FROM pg_catalog.jsonb_array_elements_text(CASE
        WHEN pg_catalog.jsonb_typeof(m.value -> 'samples') = 'array' THEN m.value -> 'samples'
        ELSE '[]'::pg_catalog.jsonb END) AS v) AS agg),
  ranks AS MATERIALIZED (
    SELECT d.n, @SCHEMA@.benchledger_median_rank(d.n) AS k
    FROM (SELECT DISTINCT x.n FROM metrics x WHERE x.n > 0) AS d))sql";

constexpr const char* k_points_insert_sql = R"sql(
  INSERT INTO @SCHEMA@.benchledger_points (bench, params, metric, seq, result, is_primary, unit,
    better, run, time, label, branch, git_commit, dirty, host, fingerprint, centre, low, high,
    min, max, p50, p95, p99, samples)
  SELECT x.bench, x.params, x.metric, x.seq, x.result, x.is_primary, x.value ->> 'unit',
    x.value ->> 'better', x.run, x.time, x.label, x.branch, x.git_commit, x.dirty, x.host,
    x.fingerprint, x.centre,
    CASE WHEN x.n > 0 THEN x.sorted[k.k] + 0::double precision ELSE x.centre END,
    CASE WHEN x.n > 0 THEN x.sorted[x.n + 1 - k.k] + 0::double precision ELSE x.centre END,
    CASE WHEN x.n > 0
      THEN (x.value -> 'summary' ->> 'min')::double precision + 0::double precision
      ELSE x.centre END,
    CASE WHEN x.n > 0
      THEN (x.value -> 'summary' ->> 'max')::double precision + 0::double precision
      ELSE x.centre END,
    (x.value -> 'summary' ->> 'p50')::double precision,
    (x.value -> 'summary' ->> 'p95')::double precision,
    (x.value -> 'summary' ->> 'p99')::double precision,
    CASE WHEN x.n > 0 THEN x.n ELSE 1 END
  FROM metrics x LEFT JOIN ranks k ON k.n = x.n
)sql";

// The dashboards' index (docs/history.md, "Grafana"): every query of ci/grafana's dashboard
// names labels and a time range, which this index finds without reading the other points (a
// sequential scan of every point before it: 1.1-2.6 s at 4,000,000 results). The time is the
// view's expression, so that the planner matches the two. @SCHEMA@ is the table's schema.
constexpr const char* k_label_index_sql = R"sql(
CREATE INDEX benchledger_points_by_label
  ON @SCHEMA@.benchledger_points (label, @SCHEMA@.benchledger_time(time));
)sql";

// Views for dashboards (docs/history.md, "Grafana"): one row per run, case and metric, read from
// the table of points, so that a dashboard shows what `history` shows (a result appended before
// its run shows in neither); results and runs that an `invalidate` note targets are left out.
// A view binds to the table it was made with, whatever the search_path of a later reader. The
// columns keep the names, types and collations of the views made before the points, so that
// CREATE OR REPLACE can replace those.
constexpr const char* k_views_sql = R"sql(
CREATE OR REPLACE VIEW benchledger_results AS
SELECT benchledger_time(p.time) AS time,
  p.run AS run,
  p.result AS result,
  p.label AS label,
  p.git_commit AS git_commit,
  p.dirty AS dirty,
  p.host AS host,
  p.fingerprint AS fingerprint,
  p.bench COLLATE "default" AS bench,
  p.params::jsonb AS params,
  p.metric COLLATE "default" AS metric,
  p.is_primary AS is_primary,
  p.unit AS unit,
  p.better AS better,
  p.centre AS centre,
  p.p50 AS p50,
  p.p95 AS p95,
  p.p99 AS p99,
  p.samples AS samples
FROM benchledger_points AS p
WHERE NOT EXISTS (
    SELECT 1 FROM benchledger_records AS n
    WHERE n.type = 'note' AND n.bytes::jsonb ->> 'kind' = 'invalidate'
      AND ((n.target = p.run AND (n.bench IS NULL OR n.bench = p.bench COLLATE "C"))
           OR (n.target = p.result AND n.bench IS NULL)));
)sql";

// Whether the connected role may replace the views: it owns the table, or is a member of its owner.
bool owns_table(pqxx::transaction_base& txn) {
  return txn
      .exec(
          "SELECT pg_has_role(current_user, c.relowner, 'MEMBER') FROM pg_class c "
          "WHERE c.oid = to_regclass('benchledger_records')")[0][0]
      .as<bool>();
}

// `sql` with every `name` replaced by `value`.
std::string replaced(std::string sql, std::string_view name, std::string_view value) {
  for (std::size_t at = sql.find(name); at != std::string::npos;
       at = sql.find(name, at + value.size())) {
    sql.replace(at, name.size(), value);
  }
  return sql;
}

// `sql` for the table in `schema` (quoted): the points' derivation put in, and @SCHEMA@ replaced
// by the schema.
std::string in_schema(const char* sql, const std::string& schema) {
  std::string out = replaced(sql, "@POINTS_CTES@", k_points_ctes_sql);
  out = replaced(std::move(out), "@POINTS_INSERT@", k_points_insert_sql);
  return replaced(std::move(out), "@SCHEMA@", schema);
}

// The schema of the ledger's table, quoted.
std::string table_schema(pqxx::transaction_base& txn) {
  return txn.quote_name(
      txn.exec("SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
               "WHERE c.oid = to_regclass('benchledger_records')")[0][0]
          .c_str());
}

// The functions of appends (the check and the points' derivation) and their trigger, made or
// brought up to date in `schema` (quoted). The caller owns the table of records, and the table
// of points exists: benchledger_fill_points is checked against it when it is made.
void install_append(pqxx::transaction_base& txn, const std::string& schema) {
  txn.exec(in_schema(k_points_functions_sql, schema));
  txn.exec(in_schema(k_append_function_sql, schema));
  // The two triggers an earlier version made instead, and their functions, dropped by name
  // where they exist (DROP … IF EXISTS would print a notice for each that does not). A trigger
  // of appends that exists is left as it is: switched off by an owner, `ledger grant` refuses.
  const std::string table = schema + ".benchledger_records";
  bool present = false;
  for (const auto& row :
       txn.exec("SELECT tgname FROM pg_trigger WHERE tgrelid = to_regclass('benchledger_records') "
                "AND tgname IN ('benchledger_chain_on', 'benchledger_points_on', "
                "'benchledger_append_on')")) {
    const std::string name = row[0].c_str();
    if (name == "benchledger_append_on") {
      present = true;
    } else {
      txn.exec(fmt::format("DROP TRIGGER {} ON {}", txn.quote_name(name), table));
    }
  }
  for (const auto& row :
       txn.exec("SELECT p.oid::regprocedure FROM pg_proc p JOIN pg_class c ON c.relnamespace = "
                "p.pronamespace WHERE c.oid = to_regclass('benchledger_records') AND p.proname "
                "IN ('benchledger_chain_on', 'benchledger_points_on')")) {
    txn.exec(fmt::format("DROP FUNCTION {}", row[0].c_str()));
  }
  if (!present) txn.exec(in_schema(k_append_trigger_sql, schema));
}

// The dashboards' index of points, made where it is missing (a ledger from before it gets it from
// `ledger grant`: on a large ledger that takes a while, and an append would hold everyone's lock
// for it). install_append() has made the function it calls.
void create_label_index(pqxx::transaction_base& txn, const std::string& schema) {
  if (txn.exec("SELECT to_regclass('benchledger_points_by_label') IS NULL")[0][0].as<bool>()) {
    txn.exec(in_schema(k_label_index_sql, schema));
  }
}

// Makes the table of points, its index for dashboards and the trigger that derives them with the
// check, and fills the table from the records already appended (none for a new ledger), in
// `schema` (quoted). The caller owns the table of records.
void create_points(pqxx::transaction_base& txn, const std::string& schema) {
  txn.exec(in_schema(k_points_sql, schema));
  install_append(txn, schema);
  create_label_index(txn, schema);
  txn.exec(
      fmt::format("SELECT {0}.benchledger_fill_points(1, (SELECT coalesce(max(seq), 0) FROM "
                  "{0}.benchledger_records))",
                  schema));
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

bool points_exist(pqxx::transaction_base& txn) {
  return txn.exec("SELECT to_regclass('benchledger_points') IS NOT NULL")[0][0].as<bool>();
}

// Creates the table under the advisory lock (already held) if it is missing; checks it if not.
void create_or_check(pqxx::work& txn, const std::string& name) {
  if (table_exists(txn)) {
    check_ours(txn, name);
    // A table made before the points (or the views) gets them, the points filled from its
    // records, from the first append by its owner: an append-only role may not create them
    // (`ledger grant` does too). Until then `history` reads the records.
    const pqxx::row missing = txn.exec(
        "SELECT to_regclass('benchledger_points') IS NULL, "
        "to_regclass('benchledger_results') IS NULL")[0];
    const bool no_points = missing[0].as<bool>();
    if ((no_points || missing[1].as<bool>()) && owns_table(txn)) {
      const std::string schema = table_schema(txn);
      if (no_points) {
        create_points(txn, schema);
      } else {
        install_append(txn, schema);  // the view's time function with the rest
      }
      txn.exec(k_views_sql);
    }
    return;
  }
  txn.exec(k_schema_sql);
  // The check of appends names the table, so it runs with the search_path the table was made
  // in: nobody's temporary table of that name can stand in for it.
  const std::string schema = txn.quote_name(txn.exec("SELECT current_schema()")[0][0].c_str());
  create_points(txn, schema);
  txn.exec(k_views_sql);
  txn.exec(fmt::format("COMMENT ON TABLE benchledger_records IS {}",
                       txn.quote(std::string(k_table_comment))));
}

void grant_append_only(pqxx::work& txn, const std::string& role, const std::string& name) {
  create_or_check(txn, name);
  // The owner brings the trigger of appends, its functions and the dashboards' index up to date:
  // a table made by an older version keeps the functions it was made with, which a role granted
  // now must not be able to slip past.
  const std::string schema = table_schema(txn);
  install_append(txn, schema);
  create_label_index(txn, schema);
  txn.exec(k_views_sql);  // and the views
  const std::string quoted = txn.quote(role);
  const std::string role_name = txn.quote_name(role);
  if (txn.exec("SELECT 1 FROM pg_roles WHERE rolname = " + quoted).empty()) {
    txn.exec("CREATE ROLE " + role_name + " LOGIN");
  }
  // Whatever it was given before, the role keeps only these on the ledger's table.
  txn.exec("REVOKE ALL ON benchledger_records FROM " + role_name);
  txn.exec("GRANT SELECT, INSERT ON benchledger_records TO " + role_name);
  // The points the database derives: the role may read them, and write none.
  txn.exec("REVOKE ALL ON benchledger_points FROM " + role_name);
  txn.exec("GRANT SELECT ON benchledger_points TO " + role_name);
  txn.exec("REVOKE ALL ON benchledger_results FROM " + role_name);
  txn.exec("GRANT SELECT ON benchledger_results TO " + role_name);
  // What REVOKE cannot take away refuses the grant, and the transaction, REVOKE included,
  // rolls back: superuser; CREATEROLE (which can make itself a member of the owner, up to
  // PostgreSQL 15); owning the table, its schema or the database, or being a member of an
  // owner (who may switch the triggers off, or drop the table or the schema); privileges
  // held through another role; and CREATE on the schema (functions or operators of the same
  // name as the check of appends' or the points').
  const pqxx::result held = txn.exec(
      "SELECT r.rolsuper, r.rolcreaterole, pg_has_role(r.oid, t.relowner, 'MEMBER'), "
      "pg_has_role(r.oid, n.nspowner, 'MEMBER'), pg_has_role(r.oid, d.datdba, 'MEMBER'), "
      "has_schema_privilege(r.oid, n.oid, 'CREATE'), "
      "has_table_privilege(r.oid, t.oid, 'UPDATE'), has_table_privilege(r.oid, t.oid, "
      "'DELETE'), has_table_privilege(r.oid, t.oid, 'TRUNCATE'), "
      "has_table_privilege(r.oid, t.oid, 'TRIGGER'), "
      "(SELECT count(*) FROM pg_trigger g WHERE g.tgenabled = 'O' AND ((g.tgrelid = t.oid AND "
      "g.tgname IN ('benchledger_refuse_update', 'benchledger_refuse_delete', "
      "'benchledger_refuse_truncate', 'benchledger_append_on')) OR "
      "(g.tgrelid = p.oid AND g.tgname IN ('benchledger_points_refuse_update', "
      "'benchledger_points_refuse_delete', 'benchledger_points_refuse_truncate')))), "
      "has_table_privilege(r.oid, p.oid, 'INSERT'), has_table_privilege(r.oid, p.oid, "
      "'UPDATE'), has_table_privilege(r.oid, p.oid, 'DELETE'), "
      "has_table_privilege(r.oid, p.oid, 'TRUNCATE'), "
      "has_table_privilege(r.oid, p.oid, 'TRIGGER') "
      "FROM pg_roles r, pg_class t JOIN pg_namespace n ON n.oid = t.relnamespace, "
      "pg_class p, pg_database d WHERE r.rolname = " +
      quoted +
      " AND t.oid = to_regclass('benchledger_records') AND p.oid = "
      "to_regclass('benchledger_points') AND d.datname = current_database()");
  const pqxx::row h = held[0];
  const auto refuse = [&](const std::string& why) {
    throw Error(fmt::format("cannot make {} append-only on {}: {}", role, name, why));
  };
  if (h[10].as<int>() != 7) {
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
  // The points' beside the table's: a point written by hand would show in `history`.
  const std::pair<int, const char*> privileges[] = {
      {6, "UPDATE on the table"},   {7, "DELETE on the table"},     {8, "TRUNCATE on the table"},
      {9, "TRIGGER on the table"},  {11, "INSERT on the points"},   {12, "UPDATE on the points"},
      {13, "DELETE on the points"}, {14, "TRUNCATE on the points"}, {15, "TRIGGER on the points"}};
  for (const auto& [column, privilege] : privileges) {
    if (h[column].as<bool>()) {
      refuse(fmt::format(
          "it still has {} through a role it is a member of (revoke it there, or grant to "
          "another role)",
          privilege));
    }
  }
}

}  // namespace benchledger::ledger::postgres
