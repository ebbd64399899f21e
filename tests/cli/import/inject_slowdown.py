#!/usr/bin/env python3
"""Writes a copy of a harness's output with one benchmark made FACTOR times slower.

usage: inject_slowdown.py FORMAT IN OUT BENCH [FACTOR]   (FACTOR defaults to 1.2)

Every time the file states for BENCH (each sample and each statistic) is multiplied by FACTOR,
and each rate divided by it; everything else is copied as it is. The end-to-end import tests
use it to make the second of two outputs of a harness: two live runs of a benchmark on a shared
machine differ by more than a gate's threshold, one run and its slowed copy differ only where
the slowdown was injected. Exits 1 when BENCH is not in the file, so a test cannot pass with
nothing injected.
"""
import csv
import io
import json
import re
import sys


def scale_keys(obj, keys, factor):
    for key in keys:
        if key in obj and isinstance(obj[key], (int, float)) and not isinstance(obj[key], bool):
            obj[key] = obj[key] * factor


def scaled_entries(text, list_key, name_of, bench, scale, indent=2):
    """The JSON document `text` with scale(entry) applied to each entry of doc[list_key] that
    name_of(entry) calls bench, and how many there were."""
    doc = json.loads(text)
    hits = 0
    for entry in doc[list_key]:
        if name_of(entry) == bench:
            hits += 1
            scale(entry)
    return json.dumps(doc, indent=indent), hits


def google_benchmark(text, bench, factor):
    def scale(entry):
        if entry.get("aggregate_unit") == "percentage":
            return
        scale_keys(entry, ["real_time", "cpu_time"], factor)
        scale_keys(entry, ["items_per_second", "bytes_per_second"], 1 / factor)
    return scaled_entries(text, "benchmarks", lambda e: e.get("run_name", e["name"]), bench, scale)


def hyperfine(text, bench, factor):
    def scale(entry):
        scale_keys(entry, ["mean", "stddev", "median", "user", "system", "min", "max"], factor)
        entry["times"] = [t * factor for t in entry["times"]]
    return scaled_entries(text, "results", lambda e: e["command"], bench, scale)


def pytest_benchmark(text, bench, factor):
    def scale(entry):
        stats = entry["stats"]
        scale_keys(stats, ["min", "max", "mean", "stddev", "median", "iqr", "q1", "q3",
                           "iqr_outliers", "total", "ld15iqr", "hd15iqr"], factor)
        scale_keys(stats, ["ops"], 1 / factor)
        if "data" in stats:
            stats["data"] = [v * factor for v in stats["data"]]
    return scaled_entries(text, "benchmarks", lambda e: e["fullname"], bench, scale, indent=4)


GO_LINE = re.compile(r"^(Benchmark\S+\s+\d+\s+)(.*)$")


def go_line(line, bench, factor):
    match = GO_LINE.match(line)
    name = match.group(1).split()[0] if match else ""
    # BENCH with or without go's -GOMAXPROCS suffix.
    if not match or (name != bench and not re.fullmatch(re.escape(bench) + r"-\d+", name)):
        return line, 0
    fields = match.group(2).split()
    out = []
    for value, unit in zip(fields[0::2], fields[1::2]):
        if unit == "ns/op":
            value = "%.2f" % (float(value) * factor)
        elif unit == "MB/s":
            value = "%.2f" % (float(value) / factor)
        out.append(value + " " + unit)
    return match.group(1) + "\t".join(out), 1


def go_test(text, bench, factor):
    hits = 0
    if text.lstrip().startswith("{"):
        # go test -json splits a benchmark's name and its numbers over two output events: join
        # each benchmark line back, scale it, and write it as one event.
        lines = []
        pending = None
        for raw in text.splitlines():
            event = json.loads(raw)
            if event.get("Action") == "output" and pending is not None:
                pending["Output"] += event["Output"]
                if pending["Output"].endswith("\n"):
                    scaled, hit = go_line(pending["Output"].rstrip("\n"), bench, factor)
                    hits += hit
                    pending["Output"] = scaled + "\n"
                    lines.append(json.dumps(pending))
                    pending = None
                continue
            if event.get("Action") == "output" and event["Output"].startswith("Benchmark") \
                    and not event["Output"].endswith("\n"):
                pending = event
                continue
            if event.get("Action") == "output" and event["Output"].startswith("Benchmark"):
                scaled, hit = go_line(event["Output"].rstrip("\n"), bench, factor)
                hits += hit
                event["Output"] = scaled + "\n"
            lines.append(json.dumps(event))
        return "\n".join(lines) + "\n", hits
    out = []
    for line in text.splitlines():
        scaled, hit = go_line(line, bench, factor)
        hits += hit
        out.append(scaled)
    return "\n".join(out) + "\n", hits


def pyperf(text, bench, factor):
    doc = json.loads(text)
    hits = 0
    common = doc.get("metadata", {})
    for entry in doc["benchmarks"]:
        name = entry.get("metadata", {}).get("name", common.get("name"))
        if name != bench:
            continue
        hits += 1
        for run in entry["runs"]:
            if "values" in run:
                run["values"] = [v * factor for v in run["values"]]
            if "warmups" in run:
                run["warmups"] = [[loops, v * factor] for loops, v in run["warmups"]]
    return json.dumps(doc), hits


CATCH2_ESTIMATE = re.compile(r'<(mean|standardDeviation) value="([^"]+)" lowerBound="([^"]+)" '
                            r'upperBound="([^"]+)"')


def catch2(text, bench, factor):
    """Catch2's -r xml: the mean and standard deviation estimates of <BenchmarkResults name=BENCH>."""
    hits = 0
    out = []
    inside = False
    for line in text.splitlines(keepends=True):
        if "<BenchmarkResults " in line:
            inside = f'name="{bench}"' in line
            hits += inside
        elif "</BenchmarkResults>" in line:
            inside = False
        elif inside:
            line = CATCH2_ESTIMATE.sub(
                lambda m: '<%s value="%g" lowerBound="%g" upperBound="%g"' % (
                    m.group(1), *(float(m.group(k)) * factor for k in (2, 3, 4))), line)
        out.append(line)
    return "".join(out), hits


def asv(text, bench, factor):
    """asv results version 2: the result, its samples and its interval and quartiles."""
    doc = json.loads(text)
    if bench not in doc["results"]:
        return text, 0
    columns = doc["result_columns"]
    row = doc["results"][bench]

    def scaled(value):
        if isinstance(value, list):
            return [scaled(v) for v in value]
        return value * factor if isinstance(value, (int, float)) else value
    for column in ("result", "samples", "stats_ci_99_a", "stats_ci_99_b", "stats_q_25",
                   "stats_q_75"):
        if column in columns and columns.index(column) < len(row):
            row[columns.index(column)] = scaled(row[columns.index(column)])
    return json.dumps(doc), 1


def mitata(text, bench, factor):
    """mitata's JSON: the stats of the run named BENCH (a benchmark's alias with its args)."""
    doc = json.loads(text)
    hits = 0
    for entry in doc["benchmarks"]:
        for run in entry["runs"]:
            if run["name"] != bench:
                continue
            hits += 1
            stats = run["stats"]
            scale_keys(stats, ["min", "max", "p25", "p50", "p75", "p99", "p999", "avg"], factor)
            stats["samples"] = [v * factor for v in stats["samples"]]
    return json.dumps(doc), hits


def pgbench(text, bench, factor):
    """pgbench's output with --report-per-command: the latency of the statement whose text is
    BENCH."""
    out, hits = [], 0
    for line in text.splitlines(keepends=True):
        fields = line.split(None, 2)
        if len(fields) == 3 and fields[2].rstrip("\n") == bench:
            hits += 1
            line = line.replace(fields[0], "%.3f" % (float(fields[0]) * factor), 1)
        out.append(line)
    return "".join(out), hits


def ndjson(text, bench, factor, name_field="name", value_field="ms"):
    out, hits = [], 0
    for line in text.splitlines():
        if line.strip():
            record = json.loads(line)
            if record[name_field] == bench:
                record[value_field] *= factor
                hits += 1
            line = json.dumps(record)
        out.append(line)
    return "\n".join(out) + "\n", hits


def csv_log(text, bench, factor, name_field="name", value_field="ms"):
    rows = list(csv.DictReader(io.StringIO(text)))
    hits = 0
    for row in rows:
        if row[name_field] == bench:
            row[value_field] = repr(float(row[value_field]) * factor)
            hits += 1
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0].keys()), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue(), hits


# Rust criterion and JMH.
CRITERION_ESTIMATES = ("mean", "median", "std_dev", "median_abs_dev", "slope")


def criterion(source, target, bench, factor):
    """criterion's target/criterion folder (copied to TARGET with the `new` folder of the
    benchmark whose full_id is BENCH slowed: sample.json's times and estimates.json), or
    cargo-criterion's --message-format=json output (the benchmark-complete message of id
    BENCH)."""
    import os
    import shutil
    if os.path.isdir(source):
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(source, target)
        hits = 0
        for folder, _, files in sorted(os.walk(target)):
            if os.path.basename(folder) != "new" or "benchmark.json" not in files:
                continue
            with open(os.path.join(folder, "benchmark.json"), encoding="utf-8") as f:
                if json.load(f)["full_id"] != bench:
                    continue
            hits += 1
            with open(os.path.join(folder, "sample.json"), encoding="utf-8") as f:
                sample = json.load(f)
            sample["times"] = [t * factor for t in sample["times"]]
            with open(os.path.join(folder, "sample.json"), "w", encoding="utf-8") as f:
                json.dump(sample, f)
            with open(os.path.join(folder, "estimates.json"), encoding="utf-8") as f:
                estimates = json.load(f)
            for key in CRITERION_ESTIMATES:
                if estimates.get(key):
                    scale_keys(estimates[key], ["point_estimate", "standard_error"], factor)
                    scale_keys(estimates[key]["confidence_interval"],
                               ["lower_bound", "upper_bound"], factor)
            with open(os.path.join(folder, "estimates.json"), "w", encoding="utf-8") as f:
                json.dump(estimates, f)
        return None, hits
    with open(source, encoding="utf-8") as f:
        lines = f.read().splitlines()
    hits = 0
    for i, line in enumerate(lines):
        message = json.loads(line)
        if message.get("reason") != "benchmark-complete" or message["id"] != bench:
            continue
        hits += 1
        message["measured_values"] = [v * factor for v in message["measured_values"]]
        for key in ("typical",) + CRITERION_ESTIMATES:
            if message.get(key):
                scale_keys(message[key], ["estimate", "lower_bound", "upper_bound"], factor)
        lines[i] = json.dumps(message)
    return "\n".join(lines) + "\n", hits


def jmh(text, bench, factor):
    """JMH's -rf json: the primary metric of the entry BENCH names, `benchmark` followed by its
    params as ` key=value` (bench.Tiny.sum size=1024): times multiplied, a throughput divided."""
    name, *pairs = bench.split(" ")
    params = dict(pair.split("=", 1) for pair in pairs)
    doc = json.loads(text)
    hits = 0
    for entry in doc:
        if entry["benchmark"] != name or entry.get("params", {}) != params:
            continue
        hits += 1
        metric = entry["primaryMetric"]
        scale = 1 / factor if entry["mode"] == "thrpt" else factor
        scale_keys(metric, ["score", "scoreError"], scale)
        metric["scoreConfidence"] = [v * scale for v in metric["scoreConfidence"]]
        metric["scorePercentiles"] = {k: v * scale for k, v in metric["scorePercentiles"].items()}
        if "rawData" in metric:
            metric["rawData"] = [[v * scale for v in fork] for fork in metric["rawData"]]
        if "rawDataHistogram" in metric:
            metric["rawDataHistogram"] = [[[[v * scale, n] for v, n in iteration]
                                           for iteration in fork]
                                          for fork in metric["rawDataHistogram"]]
    return json.dumps(doc), hits
# vitest and tinybench.
VITEST_TIMES = ["min", "max", "mean", "period", "median", "p75", "p99", "p995", "p999", "sd",
                "sem", "moe", "totalTime"]


def vitest(text, bench, factor):
    """vitest bench --outputJson: the benchmark whose group's fullName and name, joined by
    " > ", are BENCH (`bench/sort.bench.js > sort > size=1000`)."""
    doc = json.loads(text)
    hits = 0
    for file in doc["files"]:
        for group in file["groups"]:
            for entry in group["benchmarks"]:
                if group["fullName"] + " > " + entry["name"] != bench:
                    continue
                hits += 1
                scale_keys(entry, VITEST_TIMES, factor)
                scale_keys(entry, ["variance"], factor * factor)
                scale_keys(entry, ["hz"], 1 / factor)
                entry["samples"] = [v * factor for v in entry["samples"]]
    return json.dumps(doc, indent=2), hits


TINYBENCH_STATISTICS = ["aad", "mad", "max", "mean", "min", "moe", "p50", "p75", "p99", "p995",
                        "p999", "sd", "sem"]


def tinybench(text, bench, factor):
    """tinybench's tasks as JSON (`bench.tasks.map((t) => ({ name: t.name, result: t.result
    }))`): the latency statistics and samples of the task named BENCH, its throughput divided
    by FACTOR."""
    doc = json.loads(text)
    hits = 0
    for task in doc:
        if task["name"] != bench or "latency" not in task["result"]:
            continue
        hits += 1
        result = task["result"]
        scale_keys(result, ["period", "totalTime"], factor)
        for key, scale in (("latency", factor), ("throughput", 1 / factor)):
            stats = result[key]
            scale_keys(stats, TINYBENCH_STATISTICS, scale)
            scale_keys(stats, ["variance"], scale * scale)
            if "samples" in stats:
                stats["samples"] = [v * scale for v in stats["samples"]]
    return json.dumps(doc), hits


READERS = {
    "google-benchmark": google_benchmark,
    "hyperfine": hyperfine,
    "pytest-benchmark": pytest_benchmark,
    "go-test": go_test,
    "pyperf": pyperf,
    "catch2": catch2,
    "asv": asv,
    "mitata": mitata,
    "pgbench": pgbench,
    "ndjson": ndjson,
    "csv": csv_log,
    "jmh": jmh,
    "vitest": vitest,
    "tinybench": tinybench,
}
# Formats whose output may be a folder: they read SOURCE and write TARGET themselves.
FOLDER_READERS = {"criterion": criterion}


def main():
    if len(sys.argv) not in (5, 6) or sys.argv[1] not in {**READERS, **FOLDER_READERS}:
        sys.exit(__doc__)
    fmt, source, target, bench = sys.argv[1:5]
    factor = float(sys.argv[5]) if len(sys.argv) == 6 else 1.2
    if fmt in FOLDER_READERS:
        scaled, hits = FOLDER_READERS[fmt](source, target, bench, factor)
        if hits == 0:
            print(f"inject_slowdown.py: no benchmark {bench!r} in {source}", file=sys.stderr)
            sys.exit(1)
        if scaled is not None:
            with open(target, "w", encoding="utf-8") as f:
                f.write(scaled)
        return
    with open(source, encoding="utf-8") as f:
        text = f.read()
    scaled, hits = READERS[fmt](text, bench, factor)
    if hits == 0:
        print(f"inject_slowdown.py: no benchmark {bench!r} in {source}", file=sys.stderr)
        sys.exit(1)
    with open(target, "w", encoding="utf-8") as f:
        f.write(scaled)


if __name__ == "__main__":
    main()
