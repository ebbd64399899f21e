#!/usr/bin/env bash
# bench/compare_scale.sh [CASES]: `compare` of two runs of CASES distinct cases (default
# 1,000,000), 5 samples a result, in every output format (table, json, md, csv, junit): its wall
# time and peak resident set (targets at 1,000,000 cases: 2 GB and 20 s in each format).
#
# The two runs are written by bench/make_records.py before anything is measured (into
# ${TMPDIR:-/tmp}/benchledger-bench/compare-scale-CASES/, kept for the next time: delete the
# folder to write them again; about 1.4 GB at 1,000,000 cases, a few minutes). Then each format
# is measured as a child of `benchledger run` (command mode, which records each run's wall time
# and the peak resident set, `max_rss`, from wait4) and the run, labelled compare_scale, is
# appended to this repository's ledger (ledger/ledger.ndjson; the run's environment keeps the
# load average, which the wall time depends on and the peak resident set does not). The
# output goes to a file, as a CI job's does, and is deleted after each run.
#
#   bench/compare_scale.sh                      1,000,000 cases, each format once
#   RUNS=3 bench/compare_scale.sh 100000        100,000 cases, each format 3 times
#   FORMATS=json,csv bench/compare_scale.sh     some formats (comma-separated)
#   BENCHLEDGER_LEDGER=/tmp/x.ndjson bench/compare_scale.sh     another ledger (to try it out)
#   LABEL=compare_scale_debug BENCHLEDGER=build/dev/bin/benchledger bench/compare_scale.sh
#                                               a build that is not Release, under a label of its
#                                               own so that compare_scale stays Release alone
#
# Needs a Release build (build/release/bin/benchledger; cmake --preset release && cmake --build
# --preset release --target benchledger_cli), or BENCHLEDGER=PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
cases=${CASES:-1000000}
[[ ${1:-} == --case ]] && cases=$3
[[ ${1:-} =~ ^[0-9]+$ ]] && cases=$1
formats=${FORMATS:-table,json,md,csv,junit}
runs=${RUNS:-1}
label=${LABEL:-compare_scale}
benchledger=${BENCHLEDGER:-$root/build/release/bin/benchledger}
[[ -x $benchledger ]] || { echo "compare_scale.sh: no $benchledger (build the release preset or set BENCHLEDGER)" >&2; exit 2; }
benchledger=$(realpath "$benchledger")
data="${TMPDIR:-/tmp}/benchledger-bench/compare-scale-$cases"

# One format (--case FORMAT CASES), run by `benchledger run` below.
if [[ ${1:-} == --case ]]; then
  # Exit 1 is the gate failing (one case in ten is 10% slower): the comparison was made.
  # (max_rss from wait4 is the largest of this shell and the children it waited for.)
  status=0
  "$benchledger" compare scale-0 scale-1 --ledger "$data/two-runs.ndjson" --format "$2" \
    >"$data/out.$2" || status=$?
  rm -f "$data/out.$2"
  ((status <= 1)) || exit "$status"
  exit 0
fi

if [[ ! -e $data/done ]]; then
  echo "compare_scale.sh: writing two runs of $cases cases in $data ..." >&2
  mkdir -p "$data"
  python3 bench/make_records.py "$data/two-runs.ndjson" --runs 2 --results "$cases" \
    --cases "$cases" --samples 5 --label scale
  touch "$data/done"
fi

ledger=${BENCHLEDGER_LEDGER:-$root/ledger/ledger.ndjson}
echo "compare_scale.sh: load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
"$benchledger" run --label "$label" --ledger "$ledger" --warmup 0 --runs "$runs" \
  --name compare_scale --param "format=$formats" --param "cases=$cases" \
  -- "$root/bench/compare_scale.sh" --case "{format}" "{cases}"
echo "compare_scale.sh: load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
