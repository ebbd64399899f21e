#!/usr/bin/env bash
# bench/gate_drift.sh [GATES]: does the gate decide on a loaded shared runner?
#
# In a scratch git repository whose benchmark is a real CPU-bound command (a shell loop), beside
# a background load this script starts (LOAD x the CPU count busy loops, switched on and off every
# LOAD_PERIOD seconds, so that the machine's speed drifts during a gate), it runs GATES gates of
# each kind for each load, metric and design, and counts what they said:
#   kinds    A/A (base = head), +10% (head's loop 10% longer), +30%
#   designs  each a set of gate flags (DESIGNS, below): by default
#              pooled5  the gate before paired rounds: 5 interleaved rounds, pooled samples, no
#                       extra rounds (--design pooled --rounds 5 --budget 0)
#              paired   the default gate: 10 paired rounds, more pairs while undecided
#              paired01 the default gate at alpha 0.01 instead of 0.05 (--alpha 0.01)
#              duet     the default gate with base and head at the same time (--order duet)
# and prints a Markdown table: how many gates failed (exit 1), how many decided the loop a
# `regression`, how many were `undecided` (comparison.json's state), and the median and longest
# gate. Every gate's line goes to OUT/gates.ndjson (kind, load, metric, design, seconds, exit,
# state, verdict, change, and the one-minute load average when it ended), which `benchledger run --import ndjson` can keep in a ledger.
#
# Needs benchledger on PATH, or BENCHLEDGER=PATH. Environment: GATES (default 20), LOADS (default
# "1 2 4": multiples of the CPU count), METRICS (default "wall cpu"), KINDS (default "aa slow10
# slow30"), DESIGNS (default "pooled5 paired duet"), RUNS (runs a side, default 10), LOAD_PERIOD
# (seconds, default 3), LOOP (iterations, default 20000), OUT (default: a temporary directory,
# removed; set it to keep gates.ndjson).
set -euo pipefail

gates=${1:-${GATES:-20}}
read -r -a loads <<<"${LOADS:-1 2 4}"
read -r -a metrics <<<"${METRICS:-wall cpu}"
read -r -a kinds <<<"${KINDS:-aa slow10 slow30}"
read -r -a designs <<<"${DESIGNS:-pooled5 paired duet}"
runs=${RUNS:-10}
period=${LOAD_PERIOD:-3}
loop=${LOOP:-20000}
benchledger=${BENCHLEDGER:-$(command -v benchledger || true)}
[[ -x $benchledger ]] || { echo "gate_drift.sh: no benchledger (put it on PATH or set BENCHLEDGER)" >&2; exit 2; }
benchledger=$(realpath "$benchledger")

design_flags() {
  case $1 in
    pooled5) echo "--design pooled --rounds 5 --budget 0" ;;
    paired) echo "" ;;
    paired01) echo "--alpha 0.01" ;;
    duet) echo "--order duet" ;;
    *) echo "gate_drift.sh: unknown design $1 (known: pooled5 paired paired01 duet)" >&2; exit 2 ;;
  esac
}

work=$(mktemp -d)
out=${OUT:-$work/out}
mkdir -p "$out"
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
body() { printf 'i=0\nwhile [ $i -lt %d ]; do i=$((i + 1)); done\n' "$1"; }
body "$loop" >work.sh
printf '{"gate": {"run": ["--name loop --runs %d --warmup 1 -- sh work.sh"]}}\n' "$runs" >benchledger.json
git add -A && git commit -q -m "base" && git tag base
body "$((loop * 11 / 10))" >work.sh
git commit -q -am "head: 10% more iterations" && git tag slow10
git checkout -q base -- work.sh
body "$((loop * 13 / 10))" >work.sh
git commit -q -am "head: 30% more iterations" && git tag slow30

# LOAD x CPUs busy loops, on and off in turns of `period` seconds: load that changes during a gate,
# as other jobs on a shared runner do.
start_load() {
  local n=$(($1 * $(nproc)))
  for ((k = 0; k < n; ++k)); do
    sh -c "while :; do end=\$((\$(date +%s) + $period)); \
      while [ \$(date +%s) -lt \$end ]; do :; done; sleep $period; done" &
    load_pids+=($!)
  done
}

ledger_line() {
  python3 - "$@" <<'PY'
import json, sys
kind, load, metric, design, seconds, status, path = sys.argv[1:8]
try:
    report = json.load(open(path))
    case = next(c for c in report["cases"] if c["bench"] == "loop")
    state, verdict, change = report.get("state"), case["verdict"], case["change"]
except (OSError, ValueError, StopIteration, KeyError):
    state, verdict, change = "error", "error", None
loadavg = float(open("/proc/loadavg").read().split()[0])
print(json.dumps({"case": f"gate_drift/{kind}", "load": int(load), "metric": metric,
                  "design": design, "seconds": float(seconds), "exit": int(status),
                  "state": state, "verdict": verdict, "change": change, "loadavg": loadavg}))
PY
}

started=$(date +%s)
for load in "${loads[@]}"; do
  start_load "$load"
  for metric in "${metrics[@]}"; do
    for design in "${designs[@]}"; do
      read -r -a flags <<<"$(design_flags "$design")"
      for kind in "${kinds[@]}"; do
        head=base
        [ "$kind" = aa ] || head=$kind
        for ((i = 0; i < gates; ++i)); do
          status=0
          t0=$(date +%s.%N)
          "$benchledger" gate base "$head" --metric "$metric" "${flags[@]}" --out "$work/gate" \
            >/dev/null 2>"$work/stderr" || status=$?
          t1=$(date +%s.%N)
          [ "$status" -le 1 ] || cat "$work/stderr" >&2
          ledger_line "$kind" "$load" "$metric" "$design" "$(awk "BEGIN {print $t1 - $t0}")" "$status" \
            "$work/gate/comparison.json" >>"$out/gates.ndjson"
        done
      done
    done
  done
  stop_load
done
seconds=$(($(date +%s) - started))

python3 - "$out/gates.ndjson" "$gates" "$runs" "$seconds" <<'PY'
import collections, json, statistics, sys
path, gates, runs, seconds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
rows = collections.OrderedDict()
for line in open(path):
    g = json.loads(line)
    rows.setdefault((g["load"], g["metric"], g["design"], g["case"]), []).append(g)
print(f"| load × CPUs | metric | design | kind | failed | regression | undecided | errors "
      f"| median s | max s | load average |")
print("|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|")
for (load, metric, design, case), gs in rows.items():
    times = [g["seconds"] for g in gs]
    print(f"| {load} | {metric} | {design} | {case.split('/')[1]} "
          f"| {sum(g['exit'] == 1 for g in gs)} of {len(gs)} "
          f"| {sum(g['verdict'] == 'regression' for g in gs)} "
          f"| {sum(g['state'] == 'undecided' for g in gs)} "
          f"| {sum(g['exit'] > 1 for g in gs)} "
          f"| {statistics.median(times):.1f} | {max(times):.1f} "
          f"| {min(g['loadavg'] for g in gs):.1f}–{max(g['loadavg'] for g in gs):.1f} |")
print(f"\n{runs} runs a side; {seconds} s in all.")
PY
