#!/usr/bin/env bash
# bench/instructions_gate.sh [PAIRS]: does a gate on instruction counts stay quiet under load
# and catch a 1% change, where one on wall time cannot?
#
# The benchmark is a real CPU-bound command (a shell loop of LOOP iterations). With two busy
# loops this script starts beside it (ended after BUDGET seconds at most), it records PAIRS pairs
# of runs of each kind, each pair a base run and a current run in a ledger of its own, both with
# `--measure time,instructions` (RUNS timed runs and one counted run a side):
#   1. A/A   the same loop on both sides: false alarms (target: 0)
#   2. +1%   the current side runs the loop 1% longer: changes caught (target: all)
# and compares every pair twice: on `instructions` (one value a side, the deterministic
# threshold, default 0.5%) and on `wall` (RUNS values a side, Mann-Whitney at the default 5%
# threshold), then prints a Markdown table of the verdicts. Needs benchledger and valgrind on
# PATH (or BENCHLEDGER=PATH). Environment: PAIRS (default 20), RUNS (default 10), LOOP (20000),
# BUDGET (seconds, default 1800).
set -euo pipefail

pairs=${1:-${PAIRS:-20}}
runs=${RUNS:-10}
loop=${LOOP:-20000}
budget=${BUDGET:-1800}
benchledger=${BENCHLEDGER:-$(command -v benchledger || true)}
[[ -x $benchledger ]] || { echo "instructions_gate.sh: no benchledger (put it on PATH or set BENCHLEDGER)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "instructions_gate.sh: no valgrind on PATH (apt-get install valgrind)" >&2; exit 2; }

work=$(mktemp -d)
# shellcheck source=bench/background_load.sh
source "$(dirname "${BASH_SOURCE[0]}")/background_load.sh"
trap 'stop_load; rm -rf "$work"' EXIT
export TMPDIR=$work NO_COLOR=1

printf 'i=0\nwhile [ $i -lt %d ]; do i=$((i + 1)); done\n' "$loop" >"$work/base.sh"
printf 'i=0\nwhile [ $i -lt %d ]; do i=$((i + 1)); done\n' "$((loop * 101 / 100))" >"$work/plus1.sh"

# Two busy loops, always on: the CPU-bound neighbours of a shared runner. `timeout` bounds each
# in time even if this script dies.
for _ in 1 2; do
  timeout "$budget" sh -c 'while :; do :; done' &
  load_pids+=($!)
done

# record LEDGER LABEL SCRIPT: one run of the loop under the name `loop`.
record() {
  "$benchledger" run --ledger "$1" --label "$2" --measure time,instructions --runs "$runs" \
    --warmup 1 --quiet --name loop -- sh "$3" >/dev/null
}

# verdict LEDGER METRIC: the verdict of current against baseline on METRIC.
verdict() {
  local status=0
  "$benchledger" compare baseline current --ledger "$1" --metric "$2" --format json \
    >"$work/compare.json" 2>"$work/stderr" || status=$?
  if ((status > 1)); then
    cat "$work/stderr" >&2
    echo error
    return
  fi
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cases"][0]["verdict"])' \
    "$work/compare.json"
}

declare -A tally
start=$(date +%s)
for kind in aa plus1; do
  script=$work/base.sh
  [[ $kind == plus1 ]] && script=$work/plus1.sh
  for ((i = 0; i < pairs; ++i)); do
    ledger=$work/$kind-$i.ndjson
    record "$ledger" baseline "$work/base.sh"
    record "$ledger" current "$script"
    for metric in instructions wall; do
      v=$(verdict "$ledger" "$metric")
      tally[$kind,$metric,$v]=$((${tally[$kind,$metric,$v]:-0} + 1))
    done
  done
done
seconds=$(($(date +%s) - start))
load=$(cut -d' ' -f1-3 /proc/loadavg)
stop_load

cell() {  # cell KIND METRIC: "regression / improvement / unchanged / inconclusive" counts
  local out="" v
  for v in regression improvement unchanged inconclusive error; do
    local n=${tally[$1,$2,$v]:-0}
    ((n > 0)) && out+="${out:+, }$n $v"
  done
  echo "$out"
}

cat <<TABLE
| $pairs pairs each (loop of $loop iterations, $runs timed runs and 1 counted run a side, 2 busy loops beside) | on \`instructions\` | on \`wall\` |
|---|---|---|
| A/A (target: 0 alarms) | $(cell aa instructions) | $(cell aa wall) |
| +1% in current (target: all caught) | $(cell plus1 instructions) | $(cell plus1 wall) |

$((4 * pairs)) runs in $seconds s; $(nproc) CPUs, load average $load at the end.
TABLE
