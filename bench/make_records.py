#!/usr/bin/env python3
"""Writes a large NDJSON file of valid benchledger/1 records for the memory and time benchmarks
(tools/self-bench-memory): RUNS runs, each followed by RESULTS results spread over CASES cases
(bench "gen/case_<k / 10>", params {"n": k % 10}), SAMPLES samples a result.

The records are chained from 64 zeros, so the file is at once an import file
(`benchledger ledger import FILE`) and a ledger of its own (`--ledger FILE`). Values are drawn
with a fixed seed; in every run after the first, one case in ten is 10% slower than in the first.

    bench/make_records.py OUT --runs 1 --results 1000000
    bench/make_records.py OUT --runs 2 --results 1000000 --cases 100000 --samples 5
"""
import argparse
import hashlib
import random
import sys

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
# 2026-11-24T00:00:00Z in milliseconds: ULIDs and times advance from here, one ms a record.
START_MS = 1795478400000


def ulid(ms, rng):
    out = []
    for shift in range(45, -5, -5):
        out.append(CROCKFORD[(ms >> shift) & 31])
    out.extend(rng.choice(CROCKFORD) for _ in range(16))
    return "".join(out)


def rfc3339(ms):
    seconds, milli = divmod(ms - START_MS, 1000)
    days, rest = divmod(seconds, 86400)
    hour, rest = divmod(rest, 3600)
    minute, second = divmod(rest, 60)
    # 2026-11-24 is day 0; the benchmarks stay well inside one month (30 days of milliseconds).
    return f"2026-11-{24 + days:02d}T{hour:02d}:{minute:02d}:{second:02d}.{milli:03d}000Z"


RUN_ENV = (
    '"env":{"host":"gen","cpu":{"model":"generated","vendor":"none","arch":"x86_64","logical":2,'
    '"physical":2,"sockets":1,"online":2,"affinity":2,"quota":null,"mhz":2000.0,"governor":null,'
    '"turbo":null,"smt":false,"cache_bytes":{"l1d":49152,"l2":2097152,"l3":110100480}},'
    '"memory":{"total_bytes":25274793984,"limit_bytes":null},"os":{"name":"Debian GNU/Linux",'
    '"version":"12","kernel":"6.1"},"virtualization":null,"container":{"kind":null,'
    '"docker_version":null},"clock":{"source":"tsc","read_ns":48.0},"runtimes":{"compiler":null,'
    '"build_type":null,"node":null,"python":null,"postgres_client":null,"postgres_server":null},'
    '"load_avg":null,"fingerprint":"' + "a" * 64 + '"}'
)


def metric(samples):
    ordered = sorted(samples)
    n = len(ordered)
    median = ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2
    mean = sum(ordered) / n
    stddev = (sum((x - mean) ** 2 for x in ordered) / (n - 1)) ** 0.5 if n > 1 else 0.0
    listed = ",".join(repr(x) for x in samples)
    return (
        f'{{"unit":"ns","better":"lower","samples":[{listed}],"value":{median!r},'
        f'"summary":{{"n":{n},"mean":{mean!r},"median":{median!r},"stddev":{stddev!r},'
        f'"min":{ordered[0]!r},"max":{ordered[-1]!r}}}}}'
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="the NDJSON file to write ('-' for stdout)")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--results", type=int, default=999, help="results a run")
    parser.add_argument("--cases", type=int, default=0, help="distinct cases (default: results)")
    parser.add_argument("--samples", type=int, default=1, help="samples a result")
    parser.add_argument("--label", default="gen", help="runs are labelled LABEL-0, LABEL-1, ...")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.runs < 1 or args.results < 0 or args.samples < 1 or args.cases < 0:
        parser.error("--runs and --samples must be >= 1, --results and --cases >= 0")
    cases = args.cases or max(args.results, 1)

    rng = random.Random(args.seed)
    out = sys.stdout if args.out == "-" else open(args.out, "w", encoding="utf-8", newline="\n")
    prev = "0" * 64
    ms = START_MS

    def emit(line):
        nonlocal prev
        out.write(line)
        out.write("\n")
        prev = hashlib.sha256(line.encode()).hexdigest()

    for run_index in range(args.runs):
        run_id = ulid(ms, rng)
        emit(
            f'{{"schema":"benchledger/1","type":"run","id":"{run_id}","time":"{rfc3339(ms)}",'
            f'"prev":"{prev}","label":"{args.label}-{run_index}","project":"gen",'
            f'"git":{{"commit":"{run_index:040x}","branch":"main","dirty":false}},{RUN_ENV},'
            f'"warnings":[],"command":["bench/make_records.py"],"source":"generated"}}'
        )
        ms += 1
        for k in range(args.results):
            case = k % cases
            center = 1000.0 * (1 + case % 997)
            if run_index > 0 and case % 10 == 0:
                center *= 1.1
            samples = [round(center * (1 + 0.02 * rng.random()), 3) for _ in range(args.samples)]
            emit(
                f'{{"schema":"benchledger/1","type":"result","id":"{ulid(ms, rng)}",'
                f'"time":"{rfc3339(ms)}","prev":"{prev}","run":"{run_id}",'
                f'"bench":"gen/case_{case // 10}","params":{{"n":{case % 10}}},'
                f'"metrics":{{"time":{metric(samples)}}},"primary":"time","ops":1000,"errors":0}}'
            )
            ms += 1
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()
