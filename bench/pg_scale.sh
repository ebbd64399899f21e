#!/usr/bin/env bash
# bench/pg_scale.sh DAYS [READ...]: the reads of a fleet's PostgreSQL ledger at scale
# (docs/postgres.md, "A fleet"), each as the command a user runs, its wall time and peak resident
# set (`max_rss`, from wait4) measured by `benchledger run` in command mode:
#
#   history        `history` of one case (every point it has: 20 a day)
#   detect         `detect --since` the last day: every case touched in it
#   compare        `compare` of the latest two runs of one runner (`fleet-07~1 fleet-07`)
#   verify_since   `ledger verify --since` the head saved at the end of the day before the last:
#                  the last day's appends (41,000 records)
#   verify         `ledger verify` of the whole ledger
#   grafana_*      each query of ci/grafana/benchledger.json through psql, its variables and
#                  $__timeFilter expanded as Grafana's PostgreSQL data source does (label
#                  fleet-07, its four benches, metric time, the dashboard's 90 days), psql's start
#                  included (a few ms)
#
# The ledger is bench/make_fleet_records.py's fleet of DAYS days (1,000 runs and 40,000 results a
# day over 2,000 cases, 50 runners), imported with `benchledger ledger import` (the append path:
# the database's triggers check the chain and derive the points) into the database fleet_DAYSd of
# the server BENCHLEDGER_BENCH_PG names (its maintenance database's URI; `PG_LOCAL_FSYNC=on
# tools/pg-local start DIR` prints one), then vacuumed and analysed; the measured `verify` says
# whether it verifies (a failed verify is a failed result in the run). The NDJSON file (in ${TMPDIR:-/tmp}/benchledger-bench/fleet-DAYS/, about 26 MB a
# day) and the database are kept for the next time: drop the database (or stop the server) to
# make it again. The reads are one run of `benchledger run` (RUNS runs of each, default 3) and
# `verify` another (one run), both labelled pg_scale and appended to this repository's ledger
# (BENCHLEDGER_LEDGER for another).
#
#   BENCHLEDGER_BENCH_PG=postgresql://postgres@127.0.0.1:PORT/postgres bench/pg_scale.sh 25
#   BENCHLEDGER_BENCH_PG=… bench/pg_scale.sh 25 history detect      some reads
#
# Needs a Release build (build/release/bin/benchledger), or BENCHLEDGER=PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
benchledger=${BENCHLEDGER:-$root/build/release/bin/benchledger}
[[ -x $benchledger ]] || { echo "pg_scale.sh: no $benchledger (build the release preset or set BENCHLEDGER)" >&2; exit 2; }
benchledger=$(realpath "$benchledger")

# The dashboard's variables and time range, the ledger's last day, and the case `history` reads.
label=fleet-07
benches="'fleet/suite_028','fleet/suite_029','fleet/suite_030','fleet/suite_031'"
time_filter="time BETWEEN '2026-08-30T00:00:00Z' AND '2026-11-28T00:00:00Z'"
last_day=2026-11-27
history_case='fleet/suite_137{"n":4}'

# One read (--case READ URI DATA RESULTS, RESULTS for the record only), run by `benchledger run`
# below; its output goes to a file, as a job's does, and is deleted.
if [[ ${1:-} == --case ]]; then
  read=$2 uri=$3 data=$4
  out="$data/out.$read"
  saved_head=$(cat "$data/saved-head")
  status=0
  case $read in
    history) "$benchledger" history "$history_case" --ledger "$uri" >"$out" || status=$? ;;
    detect) "$benchledger" detect --since "$last_day" --ledger "$uri" >"$out" || status=$? ;;
    compare) "$benchledger" compare "$label~1" "$label" --ledger "$uri" >"$out" || status=$? ;;
    verify_since)
      "$benchledger" ledger verify --since "$saved_head" --ledger "$uri" >"$out" || status=$?
      ;;
    verify) "$benchledger" ledger verify --ledger "$uri" >"$out" || status=$? ;;
    grafana_*)
      psql -X -q -A -t -v ON_ERROR_STOP=1 -d "$uri" -f "$data/${read#grafana_}.sql" >"$out" ||
        status=$?
      ;;
    *) echo "pg_scale.sh: no read $read" >&2; exit 2 ;;
  esac
  rm -f "$out"
  # compare's 1 is a regression found, detect's never comes without --recent.
  [[ $read == compare ]] && ((status == 1)) && status=0
  exit "$status"
fi

days=${1:?usage: bench/pg_scale.sh DAYS [READ...]}
shift
reads=("$@")
((${#reads[@]})) || reads=(history detect compare verify_since grafana_label grafana_bench
  grafana_metric grafana_panel0 grafana_panel1 grafana_panel2 grafana_panel3 verify)
server=${BENCHLEDGER_BENCH_PG:?set BENCHLEDGER_BENCH_PG to the URI of a PostgreSQL server (tools/pg-local)}
data="${TMPDIR:-/tmp}/benchledger-bench/fleet-$days"
database="fleet_${days}d"
uri="${server%/*}/$database"
records_a_day=41000

if [[ ! -e $data/done ]]; then
  echo "pg_scale.sh: writing $days days of a fleet's records in $data ..." >&2
  mkdir -p "$data"
  nice python3 bench/make_fleet_records.py "$data/fleet.ndjson" --days "$days"
  touch "$data/done"
fi

# The dashboard's queries, one file each (label.sql, bench.sql, metric.sql: its variables;
# panel0.sql ...: its panels' queries).
python3 - "$root/ci/grafana/benchledger.json" "$data" "$label" "$benches" "$time_filter" <<'EOF'
import json, sys
path, data, label, benches, time_filter = sys.argv[1:]
board = json.load(open(path))
queries = {v["name"]: v["query"] for v in board["templating"]["list"]}
for i, panel in enumerate(board["panels"]):
    for target in panel.get("targets", []):
        queries[f"panel{i}"] = target["rawSql"]
for name, sql in queries.items():
    for variable, value in (("$__timeFilter(time)", time_filter), ("$label", f"'{label}'"),
                            ("$bench", benches), ("$metric", "time")):
        sql = sql.replace(variable, value)
    with open(f"{data}/{name}.sql", "w") as out:
        out.write(sql + "\n")
EOF

exists=$(psql -X -A -t -d "$server" -c "SELECT 1 FROM pg_database WHERE datname = '$database'")
if [[ $exists != 1 ]]; then
  loading="${database}_loading"
  psql -X -q -d "$server" -c "DROP DATABASE IF EXISTS $loading" -c "CREATE DATABASE $loading"
  echo "pg_scale.sh: importing into $loading ($(date -u +%T)) ..." >&2
  start=$(date +%s)
  nice "$benchledger" ledger import "$data/fleet.ndjson" --ledger "${server%/*}/$loading"
  echo "pg_scale.sh: imported in $(($(date +%s) - start)) s" >&2
  psql -X -q -d "${server%/*}/$loading" -c "VACUUM ANALYZE"
  psql -X -q -d "$server" -c "ALTER DATABASE $loading RENAME TO $database"
  # The head a job saved at the end of the day before the last, as its verify printed it: the
  # hash of that day's last record as the ledger holds it (an import writes each record as
  # benchledger serializes it, which may differ from the file's bytes in a number's digits).
  psql -X -A -t -d "$uri" -c "SELECT pg_catalog.encode(pg_catalog.sha256(pg_catalog.convert_to(
    bytes, 'UTF8')), 'hex') FROM benchledger_records WHERE seq = $(((days - 1) * records_a_day))" \
    >"$data/saved-head"
  psql -X -A -t -d "$uri" -c "SELECT pg_size_pretty(pg_database_size('$database')), \
    pg_database_size('$database'), (SELECT count(*) FROM benchledger_records)"
fi

ledger=${BENCHLEDGER_LEDGER:-$root/ledger/ledger.ndjson}
# The reads in one run, RUNS times each, and the whole verify in a run of its own, once.
quick=() whole=()
for read in "${reads[@]}"; do
  if [[ $read == verify ]]; then whole+=("$read"); else quick+=("$read"); fi
done
measure() {
  local runs=$1 list
  shift
  list=$(IFS=,; echo "$*")
  echo "pg_scale.sh: $list, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  "$benchledger" run --label pg_scale --ledger "$ledger" --warmup 0 --runs "$runs" \
    --name pg_scale --param "read=$list" --param "results=$((days * 40000))" \
    -- "$root/bench/pg_scale.sh" --case "{read}" "$uri" "$data" "{results}"
}
((${#quick[@]} == 0)) || measure "${RUNS:-3}" "${quick[@]}"
((${#whole[@]} == 0)) || measure 1 "${whole[@]}"
echo "pg_scale.sh: load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
