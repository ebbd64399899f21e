#!/usr/bin/env bash
# bench/pg_append_parts.sh: what one append to a PostgreSQL ledger costs the server, part by part
# (docs/postgres.md, "A fleet"), as the server's CPU time (user + system, from
# log_statement_stats) of one INSERT of a day's last 1,025 records (25 runs of 40 results, a
# metric each with 10 samples: bench/make_fleet_records.py's fleet) after the 39,975 before them,
# each variant in a transaction that is rolled back, 7 times, the median printed:
#
#   bare          the records' bytes into a table with no index or trigger (the floor)
#   parse         the bytes parsed as jsonb and hashed, nothing written (what any check that
#                 reads each record costs at least)
#   no_trigger    the records into the ledger's table and its indexes, the trigger switched off
#   append        the append as a client makes it: the table, its indexes and the trigger that
#                 checks each record and derives its points into the points' table and indexes
#   append_no_dashboard_index
#                 the same without the points' index for dashboards
#
# CPU time, not wall time, so that other work on the machine moves it less. The ledger is made
# by the benchledger given (BENCHLEDGER, default build/release/bin/benchledger), so that two
# versions' schemas can be compared on the same records. The server is BENCHLEDGER_BENCH_PG's (a
# superuser's URI of its maintenance database, `PG_LOCAL_FSYNC=on tools/pg-local start DIR`
# prints one) and must log to the file PG_LOG names (tools/pg-local's DIR/server.log).
#
#   BENCHLEDGER_BENCH_PG=… PG_LOG=/tmp/pg/server.log bench/pg_append_parts.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
benchledger=$(realpath "${BENCHLEDGER:-$root/build/release/bin/benchledger}")
server=${BENCHLEDGER_BENCH_PG:?set BENCHLEDGER_BENCH_PG to a PostgreSQL server (tools/pg-local)}
log=${PG_LOG:?set PG_LOG to the log file of the server (tools/pg-local: DIR/server.log)}
database=append_parts_$$
uri="${server%/*}/$database"
data=$(mktemp -d)
trap 'psql -X -q -d "$server" -c "DROP DATABASE IF EXISTS $database" >/dev/null; rm -rf "$data"' EXIT

python3 bench/make_fleet_records.py "$data/day.ndjson" --days 1
head -n 39975 "$data/day.ndjson" >"$data/before.ndjson"
tail -n 1025 "$data/day.ndjson" >"$data/batch.ndjson"
psql -X -q -d "$server" -c "CREATE DATABASE $database"
"$benchledger" ledger import "$data/before.ndjson" --ledger "$uri" >/dev/null
# The batch's rows as the client's INSERT sends them: imported into a scratch ledger of the whole
# day, copied out of it, and kept in a table `batch` beside the ledger.
psql -X -q -d "$server" -c "CREATE DATABASE ${database}_whole"
"$benchledger" ledger import "$data/day.ndjson" --ledger "${server%/*}/${database}_whole" >/dev/null
psql -X -q -d "${server%/*}/${database}_whole" \
  -c "\\copy (SELECT * FROM benchledger_records WHERE seq > 39975 ORDER BY seq) TO '$data/batch.tsv'"
psql -X -q -d "$server" -c "DROP DATABASE ${database}_whole"
psql -X -q -v ON_ERROR_STOP=1 -d "$uri" \
  -c "CREATE TABLE batch AS SELECT * FROM benchledger_records WHERE false" \
  -c "\\copy batch FROM '$data/batch.tsv'" \
  -c "CREATE TABLE bare (seq bigint, bytes text)" -c "VACUUM ANALYZE"

# The median CPU time (ms) of STATEMENT after SETUP, in a transaction rolled back each time.
cpu_ms() {
  local setup=$1 statement=$2 i before
  for i in 1 2 3 4 5 6 7; do
    before=$(wc -l <"$log")
    psql -X -q -v ON_ERROR_STOP=1 -d "$uri" >/dev/null <<SQL
BEGIN;
$setup
SET LOCAL log_statement_stats = on;
$statement;
ROLLBACK;
SQL
    tail -n +"$((before + 1))" "$log" |
      grep -oP '[0-9.]+ s user, [0-9.]+ s system, [0-9.]+ s elapsed' | head -1 |
      awk '{printf "%.1f\n", ($1 + $4) * 1000}'
  done | sort -n | sed -n 4p
}

insert="INSERT INTO benchledger_records SELECT * FROM batch"
echo "| part | server CPU, ms (median of 7) |"
echo "|---|--:|"
echo "| bare | $(cpu_ms "" "INSERT INTO bare SELECT seq, bytes FROM batch") |"
echo "| parse | $(cpu_ms "" "SELECT count(bytes::jsonb -> 'id'), count(sha256(convert_to(bytes, 'UTF8'))) FROM batch") |"
trigger=$(psql -X -A -t -d "$uri" -c "SELECT string_agg(tgname, ' ') FROM pg_trigger WHERE
  tgrelid = 'benchledger_records'::regclass AND tgname IN ('benchledger_append_on',
  'benchledger_chain_on', 'benchledger_points_on')")
off=""
for name in $trigger; do off+="ALTER TABLE benchledger_records DISABLE TRIGGER $name; "; done
echo "| no_trigger | $(cpu_ms "$off" "$insert") |"
echo "| append | $(cpu_ms "" "$insert") |"
if [[ $(psql -X -A -t -d "$uri" -c "SELECT to_regclass('benchledger_points_by_label') IS NOT NULL") == t ]]; then
  echo "| append_no_dashboard_index | $(cpu_ms "DROP INDEX benchledger_points_by_label;" "$insert") |"
fi
