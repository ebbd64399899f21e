#!/usr/bin/env python3
"""The built benchledger says which build it is, records that in every run, and compare names it
when two runs were measured by different benchledgers.

Usage: version_test.py BIN_DIR SOURCE_DIR PROJECT_VERSION. The build is from SOURCE_DIR's git
checkout, so its version must name the commit checked out there.
"""
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

BIN, SOURCE, VERSION = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3]


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def sh(args, cwd=None):
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        fail(f"{args} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done.stdout


if shutil.which("git") is None:
    fail("git is not installed: apt-get install git")
head = sh(["git", "-C", str(SOURCE), "rev-parse", "HEAD"]).strip()

# `benchledger 0.1.0 (git v0.1.0-3-g0b0e41e5d2a1-dirty)`, or without a tag the bare commit.
printed = sh([str(BIN / "benchledger"), "--version"]).strip()
match = re.fullmatch(re.escape(f"benchledger {VERSION} (git ") +
                     r"(?:v[0-9][^ ]*-g)?([0-9a-f]{12})(-dirty)?\)", printed)
if not match:
    fail(f"--version printed {printed!r}, not the version and git describe of {SOURCE}")
if not head.startswith(match.group(1)):
    fail(f"--version names commit {match.group(1)}, but {SOURCE} has {head} checked out")
version_text = printed.removeprefix("benchledger ")
# A link names itself as GNU tools do, which is what help2man reads its man page's name from.
for link in ["bench-run", "bench-compare", "bench-report", "bench-ledger", "bench-gate"]:
    expected = f"{link} (benchledger) {version_text}"
    if sh([str(BIN / link), "--version"]).strip() != expected:
        fail(f"{link} --version does not print {expected!r}")

with tempfile.TemporaryDirectory() as scratch:
    scratch = pathlib.Path(scratch)
    ledger = scratch / "ledger.ndjson"
    sh([str(BIN / "bench-run"), "--ledger", str(ledger), "--runs", "2", "--warmup", "0",
        "--format", "json", "--", "true"], cwd=scratch)
    records = [json.loads(line) for line in ledger.read_text(encoding="utf-8").splitlines()]
    run = records[0]
    if run["env"]["runtimes"].get("benchledger") != version_text:
        fail(f"the run records {run['env']['runtimes']!r}, not benchledger {version_text!r}")

    # The same run as if an older benchledger had measured it: an NDJSON file as the base.
    run["env"]["runtimes"]["benchledger"] = "0.0.9"
    older = scratch / "older.ndjson"
    older.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records),
                     encoding="utf-8")
    done = subprocess.run([str(BIN / "bench-compare"), str(older), "latest", "--ledger",
                           str(ledger), "--format", "json"], capture_output=True, text=True)
    if done.returncode not in (0, 1):
        fail(f"compare exited {done.returncode}:\n{done.stderr}")
    differences = json.loads(done.stdout)["environment_differences"]
    expected = f'runtimes.benchledger: "0.0.9" -> {json.dumps(version_text)}'
    if differences != [expected]:
        fail(f"compare names {differences!r}, not [{expected!r}]")
print(printed)
