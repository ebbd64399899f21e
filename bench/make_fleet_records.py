#!/usr/bin/env python3
"""Writes the NDJSON records of a fleet's ledger for the reads-at-scale benchmarks
(docs/postgres.md, "A fleet"): DAYS days ending at END, each day RUNNERS runners each running
RUNS_A_DAY runs of CASES / RUNNERS cases, so that every case appears in RUNS_A_DAY runs a day.
Runner r (host `runner-r`, label `fleet-r`) runs cases r * CASES / RUNNERS onwards, bench
`fleet/suite_<case / 10>` with params {"n": case % 10}, SAMPLES samples a result. The runs of
a day are spread evenly over it, the runners taking turns.

With the defaults (2,000 cases, 50 runners, 20 runs a day each, 40 results a run), a day is
1,000 runs and 40,000 results, and 1,100 days are 44,000,000 results. One case in ten gets 10%
slower halfway through, and one in a hundred on the last day, so that `detect` has changes to
find. The records are chained from 64 zeros, so the file is at once an import file (`benchledger
ledger import FILE`, the append path) and a ledger of its own; the record shapes are
make_records.py's.

    bench/make_fleet_records.py OUT --days 25     # 1,000,000 results
"""
import argparse
import datetime
import hashlib
import random
import sys

from make_records import RUN_ENV, metric, ulid

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def rfc3339(ms):
    moment = EPOCH + datetime.timedelta(milliseconds=ms)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}000Z"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="the NDJSON file to write ('-' for stdout)")
    parser.add_argument("--days", type=int, required=True)
    parser.add_argument("--end", default="2026-11-28", help="the day after the last (UTC)")
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--runners", type=int, default=50)
    parser.add_argument("--runs-a-day", type=int, default=20, help="runs of each runner a day")
    parser.add_argument("--samples", type=int, default=10, help="samples a result")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.days < 1 or args.runners < 1 or args.cases % args.runners or args.runs_a_day < 1:
        parser.error("--days, --runners and --runs-a-day must be >= 1, --cases a multiple of "
                     "--runners")
    per_runner = args.cases // args.runners
    runs_a_day = args.runners * args.runs_a_day
    end = datetime.datetime.fromisoformat(args.end).replace(tzinfo=datetime.timezone.utc)
    first_ms = int((end - EPOCH).total_seconds() * 1000) - args.days * 86_400_000
    spacing_ms = 86_400_000 // runs_a_day

    rng = random.Random(args.seed)
    out = sys.stdout if args.out == "-" else open(args.out, "w", encoding="utf-8", newline="\n")
    prev = "0" * 64

    def emit(line):
        nonlocal prev
        out.write(line)
        out.write("\n")
        prev = hashlib.sha256(line.encode()).hexdigest()

    envs = [RUN_ENV.replace('"host":"gen"', f'"host":"runner-{r:02d}"') for r in range(args.runners)]
    for day in range(args.days):
        for slot in range(runs_a_day):
            ms = first_ms + day * 86_400_000 + slot * spacing_ms
            runner = slot % args.runners
            run_number = day * args.runs_a_day + slot // args.runners
            run_id = ulid(ms, rng)
            emit(
                f'{{"schema":"benchledger/1","type":"run","id":"{run_id}","time":"{rfc3339(ms)}",'
                f'"prev":"{prev}","label":"fleet-{runner:02d}","project":"fleet",'
                f'"git":{{"commit":"{run_number:040x}","branch":"main","dirty":false}},'
                f'{envs[runner]},"warnings":[],"command":["bench/make_fleet_records.py"],'
                f'"source":"generated"}}'
            )
            for k in range(per_runner):
                ms += 1
                case = runner * per_runner + k
                center = 1000.0 * (1 + case % 997)
                if case % 10 == 0 and day >= args.days // 2:
                    center *= 1.1
                if case % 100 == 1 and day == args.days - 1:
                    center *= 1.2
                samples = [round(center * (1 + 0.02 * rng.random()), 3)
                           for _ in range(args.samples)]
                emit(
                    f'{{"schema":"benchledger/1","type":"result","id":"{ulid(ms, rng)}",'
                    f'"time":"{rfc3339(ms)}","prev":"{prev}","run":"{run_id}",'
                    f'"bench":"fleet/suite_{case // 10:03d}","params":{{"n":{case % 10}}},'
                    f'"metrics":{{"time":{metric(samples)}}},"primary":"time","ops":1000,'
                    f'"errors":0}}'
                )
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()
