#!/usr/bin/env bash
# Installs the build tree into a temporary prefix and builds tests/consumer against it with
# find_package(benchledger), then runs the result, a BENCHLEDGER_MAIN program into a ledger of
# its own (checking the run and results it appends), and the installed links.
set -euo pipefail
build=$1
source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
# A consumer is built with the flags the library was (the asan preset's sanitizers must link).
cache="$build/CMakeCache.txt"
cxx_flags=$(sed -n 's/^CMAKE_CXX_FLAGS:STRING=//p' "$cache")
link_flags=$(sed -n 's/^CMAKE_EXE_LINKER_FLAGS:STRING=//p' "$cache")
cmake -S "$source/tests/consumer" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_CXX_FLAGS="$cxx_flags" -DCMAKE_EXE_LINKER_FLAGS="$link_flags" >/dev/null
cmake --build "$work/build" >/dev/null
"$work/build/consumer"
(cd "$work" && "$work/build/consumer_benchmarks" --ledger "$work/ledger.ndjson" --repetitions 3 \
  --warmup 0 --min-time 0.001 --quiet >"$work/summary.txt")
grep -q "consumer/lookup" "$work/summary.txt" || { echo "no summary table" >&2; exit 1; }
/usr/bin/python3 - "$work/ledger.ndjson" <<'PY'
import json, sys
records = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
run, results = records[0], records[1:]
assert run["type"] == "run" and run["source"] == "native", run
assert run["command"][1:3] == ["--ledger", sys.argv[1]], run["command"]
cases = [(r["bench"], r["params"]) for r in results]
assert cases == [("consumer/sum", {"n": 100}), ("consumer/sum", {"n": 1000}),
                 ("consumer/lookup", {})], cases
for r in results:
    assert r["type"] == "result" and r["run"] == run["id"], r
    assert r["primary"] == "time" and len(r["metrics"]["time"]["samples"]) == 3, r
    assert r["errors"] == 0 and r["ops"] > 0, r
assert "latency" in next(r for r in results if r["bench"] == "consumer/lookup")["metrics"]
PY
for link in bench-run bench-compare bench-report bench-ledger bench-gate; do
  test -L "$work/prefix/bin/$link" || { echo "missing installed link $link" >&2; exit 1; }
done
"$work/prefix/bin/benchledger" --version
