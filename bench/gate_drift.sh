#!/usr/bin/env bash
# bench/gate_drift.sh [GATES]: does interleaving keep drift out of the gate's verdicts?
#
# In a scratch git repository whose benchmark is a real CPU-bound command (a shell loop), with
# a background load this script starts and stops (two busy loops switched on and off every
# LOAD_PERIOD seconds, ended after BUDGET seconds at most), it runs GATES gates of each kind
# back to back and counts their failures:
#   1. A/A, sequential   base = head, every base round first (the old way): false failures
#   2. A/A, interleaved  base = head, rounds alternating: false failures (target: 0)
#   3. +10%, interleaved head's loop runs 10% more iterations: failures caught (target: all)
# and prints a Markdown table of the counts. Needs benchledger on PATH, or BENCHLEDGER=PATH.
# Environment: GATES (default 20), RUNS (runs a side, default 10), ROUNDS (default 5),
# LOAD_PERIOD (seconds, default 3), BUDGET (seconds, default 1200), LOOP (iterations, 20000),
# GATE_FLAGS (more flags for every gate, e.g. "--metric cpu" to judge CPU time, not wall time).
set -euo pipefail

gates=${1:-${GATES:-20}}
runs=${RUNS:-10}
rounds=${ROUNDS:-5}
period=${LOAD_PERIOD:-3}
budget=${BUDGET:-1200}
loop=${LOOP:-20000}
read -r -a gate_flags <<<"${GATE_FLAGS:-}"
benchledger=${BENCHLEDGER:-$(command -v benchledger || true)}
[[ -x $benchledger ]] || { echo "gate_drift.sh: no benchledger (put it on PATH or set BENCHLEDGER)" >&2; exit 2; }

work=$(mktemp -d)
# shellcheck source=bench/background_load.sh
source "$(dirname "${BASH_SOURCE[0]}")/background_load.sh"
trap 'stop_load; rm -rf "$work"' EXIT

repo=$work/repo
mkdir -p "$repo"
cd "$repo"
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 TMPDIR=$work NO_COLOR=1
git init -q -b main
git config user.email bench@example.org
git config user.name bench
printf 'i=0\nwhile [ $i -lt %d ]; do i=$((i + 1)); done\n' "$loop" >work.sh
printf '{"gate": {"run": ["--name loop --runs %d --warmup 1 -- sh work.sh"], "rounds": %d}}\n' \
  "$runs" "$rounds" >benchledger.json
git add -A && git commit -q -m "base"
printf 'i=0\nwhile [ $i -lt %d ]; do i=$((i + 1)); done\n' "$((loop * 11 / 10))" >work.sh
git commit -q -am "head: 10% more iterations"

# Two busy loops on and off in turns of `period` seconds: load that changes during a gate,
# as other jobs on a shared runner do. `timeout` bounds each in time even if this script dies.
for _ in 1 2; do
  timeout "$budget" sh -c "while :; do end=\$((\$(date +%s) + $period)); \
    while [ \$(date +%s) -lt \$end ]; do :; done; sleep $period; done" &
  load_pids+=($!)
done

# count BASE HEAD ORDER EXPECTED: how many of $gates gates exit 1 (exit 2 is reported). A gate
# whose exit is not EXPECTED (0 or 1) has its case's line of comparison.txt kept, to show after
# the table: the verdict and change of each false alarm or missed slowdown.
count() {
  local base=$1 head=$2 order=$3 expected=$4 failed=0 errors=0 status
  for ((i = 0; i < gates; ++i)); do
    status=0
    "$benchledger" gate "$base" "$head" --order "$order" --out "$work/out" "${gate_flags[@]}" \
      >/dev/null 2>"$work/stderr" || status=$?
    case $status in
      0 | 1) [ "$status" = 1 ] && failed=$((failed + 1))
        if [ "$status" != "$expected" ]; then
          echo "$order $base..$head, gate $((i + 1)): $(grep -m1 '^loop' "$work/out/comparison.txt")" >>"$work/unexpected"
        fi ;;
      *) errors=$((errors + 1)); cat "$work/stderr" >&2 ;;
    esac
  done
  echo "$failed $errors"
}

start=$(date +%s)
read -r aa_seq aa_seq_errors < <(count HEAD HEAD sequential 0)
read -r aa_int aa_int_errors < <(count HEAD HEAD interleaved 0)
read -r slow_int slow_int_errors < <(count HEAD~1 HEAD interleaved 1)
seconds=$(($(date +%s) - start))
stop_load

cat <<TABLE
| gates ($runs runs a side, $rounds rounds, load switching every ${period} s${GATE_FLAGS:+, $GATE_FLAGS}) | failed | errors |
|---|---|---|
| A/A, sequential (every base round first) | $aa_seq of $gates | $aa_seq_errors |
| A/A, interleaved | $aa_int of $gates | $aa_int_errors |
| +10% in head, interleaved | $slow_int of $gates | $slow_int_errors |

$((3 * gates)) gates in $seconds s; $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end.
TABLE
if [ -s "$work/unexpected" ]; then
  echo
  echo "The gates whose verdict was not the expected one, with their case's line of comparison.txt:"
  cat "$work/unexpected"
fi
