#!/usr/bin/python3
"""Writes a ledger of runs (NDJSON records for `benchledger ledger import`) whose one case has a
known history: the evaluation of docs/history.md.

Usage: series_ledger.py OUTPUT.ndjson [--runs N] [--cases C] [--seed S] [--values VALUES.json]

Each run measures C cases (`history/eval{"case":k}`) with 10 samples. The run-level centre is
100 ns with run-to-run noise of 1.5% (gaussian), a step of +8% from run 120 and one of -6% from
run 250 (scaled to the series' length), and single-run outliers of +35% at runs 60, 180 and 300;
within a run, samples scatter 2% around the centre. Commits are made up, one per run. With
--values, the run centres of case 0 are also written as JSON with the truth, for the Otava
comparison (otava_series.py).
"""
import argparse
import json
import random

parser = argparse.ArgumentParser()
parser.add_argument("output")
parser.add_argument("--runs", type=int, default=365)
parser.add_argument("--cases", type=int, default=1)
parser.add_argument("--seed", type=int, default=20261124)
parser.add_argument("--values")
args = parser.parse_args()
rng = random.Random(args.seed)

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def ulid(ms):
    text = ""
    for _ in range(10):
        text = CROCKFORD[ms % 32] + text
        ms //= 32
    return text + "".join(rng.choice(CROCKFORD) for _ in range(16))


def rfc3339(ms):
    import datetime

    t = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond:06d}Z"


ENV = {
    "host": "eval", "cpu": {"model": "eval", "vendor": "eval", "arch": "x86_64", "logical": 2,
                            "physical": 2, "sockets": 1, "online": 2, "affinity": 2, "quota": None,
                            "mhz": None, "governor": None, "turbo": None, "smt": False,
                            "cache_bytes": {"l1d": None, "l2": None, "l3": None}},
    "memory": {"total_bytes": None, "limit_bytes": None},
    "os": {"name": "Debian GNU/Linux", "version": "12", "kernel": "6.1"},
    "virtualization": None, "container": {"kind": None, "docker_version": None},
    "clock": {"source": "tsc", "read_ns": None},
    "runtimes": {"compiler": None, "build_type": None, "node": None, "python": None,
                 "postgres_client": None, "postgres_server": None},
    "load_avg": None, "fingerprint": "e" * 64,
}

scale = args.runs / 365
steps = [(int(120 * scale), 0.08), (int(250 * scale), -0.06)]
outliers = [int(60 * scale), int(180 * scale), int(300 * scale)]
start_ms = 1_780_000_000_000  # 2026-05-28
centres = []
with open(args.output, "w") as out:
    for run in range(args.runs):
        ms = start_ms + run * 86_400_000  # one run a day
        run_id = ulid(ms)
        commit = "%040x" % rng.getrandbits(160)
        record = {"schema": "benchledger/1", "type": "run", "id": run_id, "time": rfc3339(ms),
                  "prev": "0" * 64, "label": "nightly", "project": "eval",
                  "git": {"commit": commit, "branch": "main", "dirty": False}, "env": ENV,
                  "warnings": [], "command": ["series_ledger.py"], "source": "native"}
        out.write(json.dumps(record, separators=(",", ":")) + "\n")
        for case in range(args.cases):
            level = 100.0
            for at, change in steps:
                if run >= at:
                    level *= 1 + change
            centre = level * (1 + rng.gauss(0, 0.015))
            if run in outliers:
                centre *= 1.35
            if case == 0:
                centres.append(centre)
            samples = sorted(centre * (1 + rng.gauss(0, 0.02)) for _ in range(10))
            mean = sum(samples) / len(samples)
            median = (samples[4] + samples[5]) / 2
            sd = (sum((s - mean) ** 2 for s in samples) / 9) ** 0.5
            metric = {"unit": "ns", "better": "lower", "samples": samples, "value": median,
                      "summary": {"n": 10, "mean": mean, "median": median, "stddev": sd,
                                  "min": samples[0], "max": samples[-1]}}
            result = {"schema": "benchledger/1", "type": "result", "id": ulid(ms + 1 + case),
                      "time": rfc3339(ms + 1 + case), "prev": "0" * 64, "run": run_id,
                      "bench": "history/eval", "params": {"case": case},
                      "metrics": {"time": metric}, "primary": "time", "ops": 1, "errors": 0}
            out.write(json.dumps(result, separators=(",", ":")) + "\n")

if args.values:
    medians = []
    with open(args.output) as f:
        for line in f:
            r = json.loads(line)
            if r["type"] == "result" and r["params"]["case"] == 0:
                medians.append(r["metrics"]["time"]["value"])
    with open(args.values, "w") as f:
        json.dump({"values": medians, "steps": [at for at, _ in steps], "outliers": outliers}, f)
