#!/usr/bin/env python3
"""A fuzzing campaign of a given CPU time a target (docs/fuzzing.md, "What the runs found").

    tests/fuzz/campaign.py SECONDS OUT [--deadline EPOCH] [--share K/N] [--nice N]

Runs every target of build/fuzz (cmake --preset fuzz && cmake --build --preset fuzz) round-robin
in chunks of 90 s of wall time, the target with the least CPU time so far first, until each has
had SECONDS of CPU time (user + system of the fuzzer and every process it started) or the
deadline passes. Fork mode (-fork=1 -ignore_crashes=1), so that a finding does not end a target's
run early. OUT keeps the state (state.json: CPU time, executions, chunks and findings a target),
each chunk's log, the corpus each target grows (OUT/corpus/NAME, besides the committed one) and
the findings (OUT/findings/NAME-crash-..., -timeout-, -leak-, -slow-unit-). Run it again with the
same OUT to go on. --share K/N takes every N-th target from the K-th (two shares run at once on
two CPUs). A process stopped with SIGSTOP while its chunk runs is timed out by libFuzzer on wall
time: do not pause a campaign that way."""
import argparse, json, os, resource, subprocess, sys, time

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
parser = argparse.ArgumentParser()
parser.add_argument("seconds", type=float)
parser.add_argument("out")
parser.add_argument("--deadline", type=float, default=float("inf"))
parser.add_argument("--share", default="0/1")
parser.add_argument("--nice", type=int, default=10)
args = parser.parse_args()
share, shares = (int(x) for x in args.share.split("/"))
chunk = 90
targets = sorted(os.listdir(f"{root}/tests/fuzz/corpus"))[share::shares]
os.makedirs(f"{args.out}/findings", exist_ok=True)
state_path = f"{args.out}/state-{share}.json"
state = json.load(open(state_path)) if os.path.exists(state_path) else {}
for t in targets:
    state.setdefault(t, {"cpu": 0.0, "execs": 0, "chunks": 0, "crashes": 0})
while time.time() < args.deadline:
    todo = [t for t in targets if state[t]["cpu"] < args.seconds]
    if not todo:
        break
    t = min(todo, key=lambda t: state[t]["cpu"])
    os.makedirs(f"{args.out}/corpus/{t}", exist_ok=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = int(min(chunk, max(10, args.deadline - time.time())))
    log = f"{args.out}/log-{t}-{state[t]['chunks']}.txt"
    with open(log, "w") as out:
        subprocess.run(["nice", "-n", str(args.nice), f"{root}/build/fuzz/bin/{t}_fuzz", "-fork=1",
                        "-ignore_crashes=1", f"-max_total_time={wall}", "-timeout=20",
                        "-print_final_stats=1", f"-dict={root}/tests/fuzz/dict/{t}.dict",
                        f"-artifact_prefix={args.out}/findings/{t}-", f"{args.out}/corpus/{t}",
                        f"{root}/tests/fuzz/corpus/{t}"],
                       stdout=out, stderr=subprocess.STDOUT, cwd=args.out)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    execs = crashes = 0
    for line in open(log, errors="replace"):
        # fork mode's progress lines: "#N: cov: ... oom/timeout/crash: A/B/C ..."
        if line.startswith("#") and "oom/timeout/crash:" in line:
            execs = int(line[1:line.index(":")])
            crashes = sum(int(x) for x in line.split("oom/timeout/crash:")[1].split()[0].split("/"))
    s = state[t]
    s["cpu"] += (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    s["execs"] += execs
    s["chunks"] += 1
    s["crashes"] += crashes
    json.dump(state, open(state_path, "w"), indent=1)
print(json.dumps({t: state[t] for t in targets}, indent=1))
