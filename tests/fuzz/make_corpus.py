#!/usr/bin/env python3
"""Writes the fuzz targets' seeds (corpus/NAME/seed-*) and dictionaries (dict/NAME.dict) from the
repository's committed real files: the import fixtures of tests/cli/import/fixtures and
tests/unit/import/pgbench, the ledger's own records, the config file's documented example.
Large fixtures are cut to their first entries (a seed's size bounds libFuzzer's inputs and so its
speed). Other files of corpus/NAME (regression inputs) are left alone. Run from anywhere:
    python3 tests/fuzz/make_corpus.py
"""
import json
import re
from pathlib import Path

FUZZ = Path(__file__).resolve().parent
ROOT = FUZZ.parent.parent
FIXTURES = ROOT / "tests/cli/import/fixtures"


def text(path):
    return (ROOT / path).read_text()


def fixture(path):
    return (FIXTURES / path).read_text()


def dumps(value):
    return json.dumps(value, indent=1)


def cut_list(values, keep):
    return values[:keep]


def google_benchmark(path):
    document = json.loads(fixture(path))
    document["benchmarks"] = cut_list(document["benchmarks"], 6)
    return dumps(document)


def jmh(path, keep):
    entries = json.loads(fixture(path))
    out = []
    for entry in entries[:keep]:
        for metric in [entry["primaryMetric"], *entry.get("secondaryMetrics", {}).values()]:
            if "rawData" in metric:
                metric["rawData"] = [run[:3] for run in metric["rawData"][:2]]
            if "rawDataHistogram" in metric:
                metric["rawDataHistogram"] = [
                    [iteration[:2] for iteration in run[:2]] for run in metric["rawDataHistogram"][:2]
                ]
        out.append(entry)
    return dumps(out)


def tinybench(path):
    tasks = json.loads(fixture(path))
    for task in tasks:
        for part in ("latency", "throughput"):
            stats = (task.get("result") or {}).get(part)
            if isinstance(stats, dict) and isinstance(stats.get("samples"), list):
                stats["samples"] = stats["samples"][:20]
    return json.dumps(tasks)


def lines(path, keep, base=FIXTURES):
    return "".join((base / path).read_text().splitlines(keepends=True)[:keep])


def ledger_lines(types, keep_each):
    out, counts = [], {}
    for line in text("ledger/ledger.ndjson").splitlines(keepends=True):
        kind = json.loads(line)["type"]
        if kind in types and counts.get(kind, 0) < keep_each:
            counts[kind] = counts.get(kind, 0) + 1
            out.append(line)
    return out


def config_example():
    header = text("include/benchledger/config.hpp")
    block = re.search(r"// \{\n(.*?)\n// \}\n", header, re.S).group(0)
    without = [re.sub(r"\s+//.*$", "", line[3:]) for line in block.splitlines()]
    return json.dumps(json.loads("\n".join(without)), indent=2)


PGBENCH = ROOT / "tests/unit/import/pgbench"
MAP_NDJSON = "bench=.name,value=.ms,unit=ms,params=.size\n"
MAP_CSV = "bench=.name,value=.ms,unit=ms,params=.size\n"

SEEDS = {
    "google_benchmark": {"base.json": google_benchmark("google-benchmark/base.json")},
    "hyperfine": {"base.json": fixture("hyperfine/base.json")},
    "pytest_benchmark": {"base.json": fixture("pytest-benchmark/base.json")},
    "go_test": {"base.txt": lines("go-test/base.txt", 30), "base.json": lines("go-test/base.json", 40)},
    "pyperf": {"base.json": fixture("pyperf/base.json")},
    "catch2": {"base.xml": fixture("catch2/base.xml")},
    "asv": {"base.json": fixture("asv/results/fixture/base.json") + "\0"
            + fixture("asv/results/benchmarks.json"),
            "no-benchmarks.json": fixture("asv/results/fixture/base.json")},
    "mitata": {"base.json": fixture("mitata/base.json")},
    "cargo_criterion": {"messages.ndjson": fixture("criterion/messages.ndjson")},
    "jmh": {"base.json": jmh("jmh/base.json", 3), "slowed.json": jmh("jmh/slowed.json", 2)},
    "vitest": {"base.json": fixture("vitest/base.json"), "failed.json": fixture("vitest/failed.json")},
    "tinybench": {"base.json": tinybench("tinybench/base.json"),
                  "failed.json": tinybench("tinybench/failed.json"),
                  "statistics.json": fixture("tinybench/statistics.json")},
    "pgbench": {"tpcb.txt": (PGBENCH / "tpcb_output.txt").read_text() + "\0"
                + lines("pgbench_log.8595", 40, PGBENCH),
                "select-only-retries.txt": (PGBENCH / "select_only_retries.txt").read_text(),
                "slowed.txt": fixture("pgbench/slowed.txt")},
    "mapped_ndjson": {"log.ndjson": MAP_NDJSON + "".join(
        json.dumps({"name": name, "ms": ms, "size": size, "round": r}) + "\n"
        for r, (name, ms, size) in enumerate([("sort", 1.5, 8), ("sort", 1.25, 8), ("sum", 0.5, 64)])),
                      "nested.ndjson": "bench=.case.name,value=.t.ms,unit=ms,param.n=.case.n,better=lower\n"
                      '{"case": {"name": "a", "n": 2}, "t": {"ms": 3}}\n'},
    "mapped_csv": {"log.csv": MAP_CSV + "name,ms,size,round\nsort,1.5,8,0\nsort,1.25,8,1\n"
                   '"sum, quoted",0.5,64,2\n'},
    "config": {"example.json": config_example()},
    "selector": {name: name for name in ["latest", "latest~1", "baseline~2", "git:abc123",
                                         "01J9ZK3V1Q6M7N8P9R0S1T2V3W", "git:ABCDEF0123"]},
}
RECORDS = ledger_lines({"run", "result", "note"}, 2)
SEEDS["ndjson_ledger"] = {"ledger.ndjson": "".join(ledger_lines({"run", "result", "note"}, 40)[:12])}
SEEDS["ledger_import"] = SEEDS["ndjson_ledger"]
SEEDS["record_lines"] = {"records.ndjson": "".join(RECORDS)}
SEEDS["record_parser"] = {f"ledger-{i}.json": line.rstrip("\n") for i, line in enumerate(RECORDS)}
SEEDS["import_auto"] = {f"{target}-{name}": content for target in [
    "google_benchmark", "hyperfine", "pytest_benchmark", "go_test", "pyperf", "catch2", "mitata",
    "cargo_criterion", "jmh", "vitest", "tinybench"] for name, content in SEEDS[target].items()}
SEEDS["import_auto"]["asv-base.json"] = fixture("asv/results/fixture/base.json")
SEEDS["import"] = dict(SEEDS["import_auto"])

JSON_TOKENS = ["{", "}", "[", "]", ":", ",", '"', "null", "true", "false", "-0", "1e308",
               "1e400", "-1e-400", "18446744073709551616", "0.5", "\\u0000", "\\ud800"]


def json_words(content):
    words = set()

    def walk(value):
        if isinstance(value, dict):
            for key, inner in value.items():
                words.add(json.dumps(key))
                walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)
        elif isinstance(value, str) and 0 < len(value) <= 24:
            words.add(json.dumps(value))

    for part in content.split("\0"):
        try:
            walk(json.loads(part))
        except ValueError:
            for line in part.splitlines():
                try:
                    walk(json.loads(line))
                except ValueError:
                    pass
    return words


def dictionary(target, seeds):
    words = set()
    if target in ("catch2",):
        for content in seeds.values():
            words |= {"<" + n for n in re.findall(r"<(\w+)", content)}
            words |= {"</" + n + ">" for n in re.findall(r"<(\w+)", content)}
            words |= {" " + n + '="' for n in re.findall(r"(\w+)=\"", content)}
        words |= {"<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "/>", "&amp;", "&#x1F600;", "<![CDATA[", "]]>", "<!--", "-->"}
    elif target in ("go_test", "pgbench", "mapped_csv", "selector"):
        for content in seeds.values():
            words |= set(re.findall(r"[A-Za-z_/.:=~]+[A-Za-z]", content))
        if target == "go_test":
            words |= json_words(seeds["base.json"]) | {"ns/op", "B/op", "allocs/op", "MB/s", "\t"}
        if target == "mapped_csv":
            words |= {'"', '""', ",", "\r\n", "param.", "metric=", "better=higher", "better=lower"}
    else:
        for content in seeds.values():
            words |= json_words(content)
        words |= set(JSON_TOKENS)
        if target.startswith("mapped"):
            words |= {"bench=", "value=", "unit=", "metric=", "better=", "params=", "param.", ".", ","}
    words = sorted(w for w in words if 0 < len(w.encode()) <= 64)
    out = [f"# {target}: the words of its seeds (tests/fuzz/make_corpus.py)"]
    for word in words:
        escaped = "".join(c if 32 <= ord(c) < 127 and c not in '"\\' else
                          ("\\" + c if c in '"\\' else "".join(f"\\x{b:02x}" for b in c.encode()))
                          for c in word)
        out.append(f'"{escaped}"')
    return "\n".join(out) + "\n"


def main():
    for target, seeds in SEEDS.items():
        folder = FUZZ / "corpus" / target
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("seed-*"):
            old.unlink()
        for name, content in seeds.items():
            (folder / f"seed-{name}").write_bytes(content.encode())
        (FUZZ / "dict").mkdir(exist_ok=True)
        (FUZZ / "dict" / f"{target}.dict").write_text(dictionary(target, seeds))


if __name__ == "__main__":
    main()
