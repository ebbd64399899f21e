#!/usr/bin/env python3
"""A Go program counted under the real Valgrind: `run --measure instructions:valgrind` of a base
and a head whose only change is work added in one function, then `benchledger explain`, which must
put that function first with at least 90% of the case's change, at its file and line. Valgrind's
callgrind aborts on Go's preemption signal unless benchledger turns asynchronous preemption off
(docs/profiles.md, "Go"), so both runs must also succeed, several times over.
Usage: explain_go_test.py BENCHLEDGER GO_CACHE. GO_CACHE keeps Go's build cache between runs.
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

BENCHLEDGER = pathlib.Path(sys.argv[1]).resolve()
GO_CACHE = pathlib.Path(sys.argv[2]).resolve()
# The official Go toolchain's place first, else any go (Debian 12's 1.19 builds this program).
GO = "/usr/local/go/bin/go" if os.path.exists("/usr/local/go/bin/go") else shutil.which("go")

PROGRAM = """package main

import (
\t"fmt"
\t"os"
)

//go:noinline
func baseWork(seed uint64) uint64 {
\tfor i := 0; i < 2000000; i++ {
\t\tseed = seed*6364136223846793005 + 1442695040888963407
\t}
\treturn seed
}

//go:noinline
func addedWork(seed uint64) uint64 {
\tfor i := 0; i < 1000000; i++ {
\t\tseed = (seed^(seed>>7))*2862933555777941757 + 3
\t}
\treturn seed
}

func main() {
\tv := baseWork(1)
\tif os.Getenv("EXPLAIN_SIDE") == "head" {
\t\tv = addedWork(v)
\t}
\tfmt.Println(v)
}
"""


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def run(args, cwd, env):
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        fail(f"{args} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done


def main():
    if GO is None:
        fail("go is not installed: run the tests through tools/test, which installs it")
    if shutil.which("valgrind") is None:
        fail("valgrind is not installed: run the tests through tools/test, which installs it")
    with tempfile.TemporaryDirectory() as scratch:
        work = pathlib.Path(scratch) / "program"  # go ignores a go.mod directly in /tmp's folders
        work.mkdir()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("BENCHLEDGER_", "GODEBUG"))}
        env.update(GOCACHE=str(GO_CACHE), GOPATH=str(work / "gopath"), GOTOOLCHAIN="local",
                   GOFLAGS="-buildvcs=false", NO_COLOR="1", TMPDIR=scratch)
        (work / "main.go").write_text(PROGRAM)
        (work / "go.mod").write_text("module explainfixture\n\ngo 1.19\n")
        run([GO, "build", "-o", "fixture", "."], work, env)
        ledger = str(work / "ledger.ndjson")
        # Three counts a side: without asynchronous preemption off, callgrind aborted in two to
        # three runs of four here.
        for side in ("base", "head"):
            for _ in range(3):
                run([str(BENCHLEDGER), "run", "--ledger", ledger, "--label", side, "--measure",
                     "instructions:valgrind", "--name", "go", "--quiet", "--",
                     "/usr/bin/env", f"EXPLAIN_SIDE={side}", "./fixture"], work, env)
        done = run([str(BENCHLEDGER), "explain", "base", "head", "--ledger", ledger,
                    "--format", "json"], work, env)
        cases = json.loads(done.stdout)["cases"]
        if len(cases) != 1 or cases[0]["bench"] != "go":
            fail(f"expected the one case go: {done.stdout}")
        top = cases[0]["functions"][0]
        if top["name"] != "main.addedWork" or top["base"] is not None or top["share"] < 0.9:
            fail(f"main.addedWork is not first with >= 90% of the change: {top}")
        if not top["file"].endswith("main.go") or top["line"] <= 0:
            fail(f"main.addedWork has no file and line: {top}")
        for f in cases[0]["functions"]:
            if f["name"] == "main.baseWork" and f["change"] != 0:
                fail(f"main.baseWork did not change, yet: {f}")


main()
