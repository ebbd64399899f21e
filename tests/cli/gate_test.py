#!/usr/bin/env python3
"""`benchledger gate` gates a user's own git repository end to end through the installed binary.

Usage: gate_test.py BUILD_DIR SOURCE_DIR SCENARIO. Each scenario installs the build into a
scratch prefix, creates a scratch git repository with a base and a head commit, runs the
installed `bench-gate` in it and checks its exit status and what it wrote to --out.
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

BUILD, SOURCE = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2]).resolve()
SCENARIO = sys.argv[3]


def fail(message):
    print(f"FAIL [{SCENARIO}]: {message}", file=sys.stderr)
    sys.exit(1)


def need(tool, package):
    if shutil.which(tool) is None:
        fail(f"{tool} is not installed: apt-get install {package}")


def sh(args, cwd, env=None, check=True):
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    if check and done.returncode != 0:
        fail(f"{args} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done


class Scratch:
    """A prefix with the installed package and a user's repository beside it."""

    def __init__(self, root):
        self.root = root
        self.prefix = root / "prefix"
        self.repo = root / "repo"
        self.out = root / "out"
        sh(["cmake", "--install", str(BUILD), "--prefix", str(self.prefix)], root)
        self.gate = self.prefix / "bin" / "bench-gate"
        if not self.gate.is_symlink():
            fail("the installed package has no bench-gate link")
        self.repo.mkdir()
        # No HOME configuration may leak in: the repository says who commits.
        self.env = dict(os.environ, GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1",
                        NO_COLOR="1", TMPDIR=str(root))
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.email", "dev@example.org")
        self.git("config", "user.name", "Dev")

    def git(self, *args):
        return sh(["git", *args], self.repo, self.env)

    def commit(self, files, message):
        for name, text in files.items():
            path = self.repo / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)

    def run_gate(self, *flags, base="HEAD~1", head=None):
        args = [str(self.gate), base] + ([head] if head else []) + ["--out", str(self.out), *flags]
        return sh(args, self.repo, self.env, check=False)

    def comparison(self):
        return json.loads((self.out / "comparison.json").read_text())


def expect_status(done, status):
    if done.returncode != status:
        fail(f"expected exit {status}, got {done.returncode}\nstdout:\n{done.stdout}\n"
             f"stderr:\n{done.stderr}")


def verdicts(report):
    return {(c["bench"], c["metric"]): c["verdict"] for c in report["cases"]}


def work_config(name="work", runs=12, measure="time"):
    gate = {"run": [f"--name {name} --runs {runs} --warmup 1 --measure {measure} -- sh work.sh"],
            "rounds": 4}
    return json.dumps({"gate": gate}, indent=2) + "\n"


def expect_outputs(s):
    for name in ("comparison.md", "comparison.json", "comparison.xml", "comparison.txt",
                 "gate.log"):
        if not (s.out / name).is_file():
            fail(f"--out has no {name}: {sorted(p.name for p in s.out.iterdir())}")
    if len((s.out / "comparison.md").read_text()) >= 65536:
        fail("comparison.md is not under 65,536 characters")


def ledger_runs(path):
    records = [json.loads(line) for line in path.read_text().splitlines() if line]
    runs = [r for r in records if r["type"] == "run"]
    results = [r for r in records if r["type"] == "result"]
    return runs, results


def loop(iterations):
    return f"i=0\nwhile [ $i -lt {iterations} ]; do i=$((i + 1)); done\n"


def commit_slower_head(s):
    # Judged by its instruction count (one counted run a round, under Valgrind), with wall time
    # recorded beside it: on a shared machine even a CPU-bound loop's CPU time once measured a
    # 30% step as an inconclusive +15%, and these scenarios are about what the gate does with a
    # regression, not about finding one in noise.
    s.commit({"work.sh": loop(2000),
              "benchledger.json": work_config(runs=20, measure="time,instructions:valgrind")},
             "base")
    s.commit({"work.sh": loop(2400)}, "head: 20% slower")


def expect_regression(s, done):
    expect_status(done, 1)
    expect_outputs(s)
    if verdicts(s.comparison()).get(("work", "instructions")) != "regression":
        fail(f"expected work/instructions to be a regression: {verdicts(s.comparison())}")


def round_order(log):
    """The sides in the order gate.log says they ran."""
    return [line.split()[4] for line in log.splitlines()
            if line.startswith("== round ") and " of " in line]


def scenario_slower(s):
    commit_slower_head(s)
    expect_regression(s, s.run_gate("--metric", "instructions"))
    if "regression" not in (s.out / "comparison.md").read_text():
        fail("comparison.md does not name the regression")
    if "<failure" not in (s.out / "comparison.xml").read_text():
        fail("the JUnit XML has no failure")
    # One run a side, each pooling the rounds: 20 timed runs of the command in 4 rounds, and 4
    # counted ones.
    runs, results = ledger_runs(s.out / "ledger.ndjson")
    if sorted(r.get("label") for r in runs) != ["base", "head"]:
        fail(f"expected one run labelled base and one head: {[r.get('label') for r in runs]}")
    for result in results:
        samples = result["metrics"]["wall"]["samples"]
        if len(samples) != 20:
            fail(f"expected 20 pooled samples in {result['bench']}, got {len(samples)}")
    base_commit = s.git("rev-parse", "HEAD~1").stdout.strip()
    base_run = next(r for r in runs if r["label"] == "base")
    if base_run["git"]["commit"] != base_commit or base_run["git"]["dirty"]:
        fail(f"the base run records {base_run['git']}, not the clean commit {base_commit}")
    # Each round is a pair, base and head in an order drawn from the seed gate.log names.
    log = (s.out / "gate.log").read_text()
    order = round_order(log)
    if len(order) < 4 or any(sorted(order[i:i + 2]) != ["base", "head"]
                             for i in range(0, len(order), 2)):
        fail(f"the rounds are not pairs of base and head: {order}")
    seeds = re.findall(r"^== each pair in random order, seed (\d+) ", log, re.M)
    if len(seeds) != 1:
        fail(f"gate.log does not name the pairs' seed once: {seeds}")
    # The worktrees are gone, from disk and from git's list.
    worktrees = s.git("worktree", "list").stdout.strip().splitlines()
    if len(worktrees) != 1:
        fail(f"worktrees left behind: {worktrees}")


def scenario_identical(s):
    s.commit({"work.sh": "sleep 0.2\n", "benchledger.json": work_config()}, "base")
    s.commit({"README": "documentation only\n"}, "head: nothing measured changes")
    kept = s.root / "kept.ndjson"
    # Only a gross change of a 0.2 s sleep is a regression: a loaded machine adds tens of ms.
    done = s.run_gate("--ledger", str(kept), "--threshold", "50", base="main~1", head="main")
    expect_status(done, 0)
    expect_outputs(s)
    if verdicts(s.comparison()).get(("work", "wall")) not in ("unchanged", "inconclusive"):
        fail(f"expected work/wall unchanged: {verdicts(s.comparison())}")
    runs, _ = ledger_runs(kept)
    if len(runs) != 2:
        fail(f"--ledger keeps {len(runs)} runs, expected base and head")
    if (s.out / "ledger.ndjson").exists():
        fail("with --ledger the gate still wrote a ledger of its own to --out")
    # --seed repeats a gate's order of pairs, which gate.log names.
    log = (s.out / "gate.log").read_text()
    seed = re.search(r"^== each pair in random order, seed (\d+) ", log, re.M).group(1)
    done = s.run_gate("--ledger", str(kept), "--threshold", "50", "--seed", seed,
                      base="main~1", head="main")
    expect_status(done, 0)
    again = (s.out / "gate.log").read_text()
    if f"seed {seed} " not in again or round_order(again) != round_order(log):
        fail(f"--seed {seed} did not repeat the order {round_order(log)}: {round_order(again)}")


def scenario_failing(s):
    s.commit({"work.sh": "sleep 0.01\n", "benchledger.json": work_config()}, "base")
    s.commit({"work.sh": "echo 'cannot open the input' >&2; exit 3\n"}, "head: the command fails")
    done = s.run_gate()
    expect_status(done, 1)
    expect_outputs(s)
    if verdicts(s.comparison()).get(("work", "wall")) != "failed":
        fail(f"expected work to be failed: {verdicts(s.comparison())}")


def scenario_renamed(s):
    # The gate measures both sides with HEAD_REV's gate section, so a rename in benchledger.json
    # would rename both sides alike. A benchmark is renamed in the code it lives in: here a
    # `program` in the repository that names one of two benchmarks from a file each revision
    # has (the other, `stay`, keeps the comparison from having no case in common).
    program = ('#!/bin/sh\ncase "$*" in *stay.sh*) name=stay ;; *) name=$(cat name.txt) ;; esac\n'
               f'exec "{s.prefix / "bin" / "benchledger"}" run --name "$name" "$@"\n')
    config = json.dumps({"gate": {"program": "bench.sh", "rounds": 4,
                                  "run": ["--runs 12 --warmup 1 -- sh work.sh",
                                          "--runs 12 --warmup 1 -- sh stay.sh"]}}) + "\n"
    s.commit({"work.sh": "sleep 0.01\n", "stay.sh": "sleep 0.01\n", "bench.sh": program,
              "name.txt": "work\n", "benchledger.json": config}, "base")
    os.chmod(s.repo / "bench.sh", 0o755)
    s.git("add", "bench.sh")
    s.git("commit", "-q", "--amend", "--no-edit")
    s.commit({"name.txt": "renamed\n"}, "head: the benchmark is renamed")
    # `stay` is timed, and this scenario is about the names: a threshold no load reaches (a 16 ms
    # sleep once measured +17.7% here) keeps its timing out of the exit status.
    done = s.run_gate("--threshold", "200")
    expect_status(done, 1)
    found = verdicts(s.comparison())
    if found.get(("work", "wall")) != "missing":
        fail(f"expected work to be missing: {found}")
    done = s.run_gate("--allow-missing", "--threshold", "200")
    expect_status(done, 0)


def scenario_native(s):
    need("cmake", "cmake")
    need("ninja", "ninja-build")
    bench = """#include <numeric>
#include <vector>

#include <benchledger/benchledger.hpp>

BENCHLEDGER_BENCH("app/sum", [](benchledger::State& state) {
  const std::vector<int> input(static_cast<std::size_t>(state.int_param("n")), 1);
  for (auto _ : state) {
    int sum = std::accumulate(input.begin(), input.end(), 0);
    benchledger::do_not_optimize(sum);
  }
}).param("n", {1000});

BENCHLEDGER_MAIN()
"""
    cmake = """cmake_minimum_required(VERSION 3.25)
project(app LANGUAGES CXX)
find_package(benchledger REQUIRED)
add_executable(app_bench bench.cpp)
target_link_libraries(app_bench PRIVATE benchledger::main)
"""
    # The library was built with the build tree's flags (sanitizers in the asan preset).
    cache = (BUILD / "CMakeCache.txt").read_text().splitlines()
    flags = next((l.split("=", 1)[1] for l in cache if l.startswith("CMAKE_CXX_FLAGS:")), "")
    link = next((l.split("=", 1)[1] for l in cache if l.startswith("CMAKE_EXE_LINKER_FLAGS:")), "")
    build = (f"cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "
             f"-DCMAKE_PREFIX_PATH={s.prefix} -DCMAKE_CXX_FLAGS='{flags}' "
             f"-DCMAKE_EXE_LINKER_FLAGS='{link}' >/dev/null && cmake --build build")
    config = {"gate": {"build": build, "program": "build/app_bench",
                       "run": ["--repetitions 6 --warmup 0 --min-time 0.002"], "rounds": 3}}
    s.commit({"bench.cpp": bench, "CMakeLists.txt": cmake,
              "benchledger.json": json.dumps(config, indent=2) + "\n"}, "base")
    s.commit({"NEWS": "nothing measured changes\n"}, "head")
    # Wall time of a microbenchmark on a shared machine: only a gross change is a regression. No
    # extra rounds: the pooled sample count is checked below.
    done = s.run_gate("--threshold", "200", "--budget", "0")
    expect_status(done, 0)
    expect_outputs(s)
    runs, results = ledger_runs(s.out / "ledger.ndjson")
    if {r["source"] for r in runs} != {"native"}:
        fail(f"expected native runs: {[r['source'] for r in runs]}")
    for result in results:
        if result["bench"] != "app/sum" or len(result["metrics"]["time"]["samples"]) != 6:
            fail(f"expected app/sum with 6 pooled repetitions: {result['bench']}, "
                 f"{len(result['metrics']['time'].get('samples', []))}")

    # A head whose case aborts: what it wrote to stderr reaches the comment, as a command's does.
    aborts = bench.replace("#include <numeric>",
                           "#include <cstdio>\n#include <cstdlib>\n#include <numeric>")
    aborts = aborts.replace(
        "  for (auto _ : state) {",
        '  std::fputs("invariant broken: the input is not all ones\\n", stderr);\n'
        "  std::abort();\n  for (auto _ : state) {")
    s.commit({"bench.cpp": aborts}, "head: the case aborts")
    done = s.run_gate("--threshold", "200", "--budget", "0")
    expect_status(done, 1)
    case = next(c for c in s.comparison()["cases"] if c["bench"] == "app/sum")
    if case["verdict"] != "failed" or "invariant broken" not in case.get("stderr", ""):
        fail(f"expected app/sum failed with its stderr: {case}")
    if "invariant broken: the input is not all ones" not in (s.out / "comparison.md").read_text():
        fail("comparison.md does not show what the aborted case wrote to stderr")


def scenario_gbench(s):
    need("g++", "g++")
    if not pathlib.Path("/usr/include/benchmark/benchmark.h").exists():
        fail("google-benchmark is not installed: apt-get install libbenchmark-dev")
    program = """#include <benchmark/benchmark.h>

#include <numeric>
#include <vector>

static void BM_Sum(benchmark::State& state) {
  std::vector<int> values(256, 1);
  for (auto _ : state) {
    int sum = std::accumulate(values.begin(), values.end(), 0);
    benchmark::DoNotOptimize(sum);
  }
}
BENCHMARK(BM_Sum);
BENCHMARK_MAIN();
"""
    config = {"gate": {
        "build": "mkdir -p build && g++ -O2 -o build/gb gb.cpp -lbenchmark -lpthread",
        "prepare": "build/gb --benchmark_repetitions=3 --benchmark_min_time=0.005 "
                   "--benchmark_out=build/gb.json --benchmark_out_format=json >/dev/null",
        "run": ["--import google-benchmark build/gb.json"],
        "rounds": 3}}
    s.commit({"gb.cpp": program, "benchledger.json": json.dumps(config, indent=2) + "\n"}, "base")
    s.commit({"NEWS": "nothing measured changes\n"}, "head")
    # CPU time: on a shared machine a microbenchmark's real time is mostly other tenants' load.
    # No extra rounds: the pooled sample count is checked below.
    done = s.run_gate("--threshold", "50", "--metric", "cpu_time", "--budget", "0")
    expect_status(done, 0)
    expect_outputs(s)
    runs, results = ledger_runs(s.out / "ledger.ndjson")
    if {r["source"] for r in runs} != {"google-benchmark"}:
        fail(f"expected imported runs: {[r['source'] for r in runs]}")
    names = {r["bench"] for r in results}
    if names != {"BM_Sum"}:
        fail(f"expected BM_Sum from the import: {names}")
    for result in results:
        # Three rounds of three repetitions each, pooled.
        if len(result["metrics"]["time"]["samples"]) != 9:
            fail(f"expected 9 pooled samples: {len(result['metrics']['time']['samples'])}")


def scenario_config_errors(s):
    s.commit({"work.sh": "sleep 0.01\n", "benchledger.json": "{}\n"}, "base")
    s.commit({"benchledger.json": json.dumps({"gate": {"run": ["--ledger x.ndjson -- true"]}})},
             "head: the gate section sets what is the gate's")
    done = s.run_gate()
    expect_status(done, 2)
    if 'gate.run[0]' not in done.stderr or "--ledger" not in done.stderr:
        fail(f"the error does not name gate.run[0] and --ledger: {done.stderr}")
    s.commit({"benchledger.json": json.dumps({"gate": {"build": "exit 7", "run": ["-- true"]}})},
             "head: the build fails")
    done = s.run_gate()
    expect_status(done, 2)
    if "build of base" not in done.stderr or "exit status 7" not in done.stderr:
        fail(f"the error does not say which build failed how: {done.stderr}")
    done = s.run_gate(base="no-such-branch")
    expect_status(done, 2)
    if 'unknown revision "no-such-branch"' not in done.stderr:
        fail(f"the error does not name the revision: {done.stderr}")


def scenario_stopped(s):
    # Ctrl-C (SIGINT) or a CI runner's cancel (SIGTERM) in the middle of a build: the build is
    # stopped with the gate, and no worktree is left behind, on disk or in `git worktree list`.
    import signal
    import time
    pid_file = s.root / "build.pid"
    build = f"echo $$ > {pid_file} && exec sleep 300"
    s.commit({"work.sh": "sleep 0.01\n",
              "benchledger.json": json.dumps({"gate": {"build": build,
                                                        "run": ["--runs 2 -- sh work.sh"]}})},
             "base")
    s.commit({"README": "head\n"}, "head")
    for stop in (signal.SIGTERM, signal.SIGINT):
        pid_file.unlink(missing_ok=True)
        gate = subprocess.Popen([str(s.gate), "HEAD~1", "--out", str(s.out)], cwd=s.repo,
                                env=s.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        # Bounded waits, not timings: the build starts when the worktrees are made.
        for _ in range(600):
            if pid_file.is_file() and pid_file.read_text().strip():
                break
            if gate.poll() is not None:
                fail(f"the gate ended before its build started:\n{gate.communicate()}")
            time.sleep(0.1)
        else:
            fail("the build did not start within a minute")
        build_pid = int(pid_file.read_text())
        gate.send_signal(stop)
        try:
            out, err = gate.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            gate.kill()
            fail(f"the gate did not stop on {stop.name}")
        if gate.returncode != -stop:
            fail(f"expected the gate to end by {stop.name}, got {gate.returncode}:\n{err}")
        if f"stopped by signal {int(stop)} ({stop.name})" not in err:
            fail(f"the gate does not say it was stopped by {stop.name}:\n{err}")
        worktrees = s.git("worktree", "list").stdout.strip().splitlines()
        if len(worktrees) != 1:
            fail(f"{stop.name}: worktrees left behind: {worktrees}")
        left = sorted(p.name for p in s.root.glob("benchledger-gate-*"))
        if left:
            fail(f"{stop.name}: temporary directories left behind: {left}")
        for _ in range(100):  # the build's sleep is gone (or a zombie nobody reaped yet)
            try:
                state = pathlib.Path(f"/proc/{build_pid}/stat").read_text().rsplit(")", 1)[1]
            except FileNotFoundError:
                break
            if state.split()[0] in ("Z", "X"):
                break
            time.sleep(0.1)
        else:
            os.kill(build_pid, signal.SIGKILL)
            fail(f"{stop.name}: the build (pid {build_pid}) outlived the gate")


def scenario_undecided(s):
    """A case the gate cannot decide within its budget: never titled passed; its exit status is
    gate.undecided's (from benchledger.json) unless --undecided says otherwise."""
    # Every run of the command alternates between a long and a short sleep, whichever side runs
    # it: pairs whose ratios swing by a factor of six, which no interval narrows to 12% and which
    # four pairs cannot make significant (the signed-rank test needs six).
    work = ('c="$TMPDIR/count"; n=$(cat "$c" 2>/dev/null || echo 0); echo $((n + 1)) >"$c"\n'
            'if [ $((n % 2)) -eq 0 ]; then sleep 0.3; else sleep 0.05; fi\n')
    config = {"gate": {"run": ["--name work --runs 3 --warmup 0 -- sh work.sh"], "rounds": 3,
                       "budget": 1, "undecided": "fail", "threshold": 12, "metric": "wall"}}
    s.commit({"work.sh": work, "benchledger.json": json.dumps(config) + "\n"}, "base")
    s.commit({"README": "documentation only\n"}, "head: nothing measured changes")
    done = s.run_gate()
    expect_status(done, 1)
    expect_outputs(s)
    report = s.comparison()
    if report["state"] != "undecided" or verdicts(report) != {("work", "wall"): "inconclusive"}:
        fail(f"expected an undecided gate with work/wall inconclusive: {report['state']}, "
             f"{verdicts(report)}")
    if report["options"]["threshold"] != 12:
        fail(f"gate.threshold of benchledger.json was not applied: {report['options']}")
    if not any("the budget of 1 s" in w for w in report["warnings"]):
        fail(f"no warning says that the budget ended: {report['warnings']}")
    title = (s.out / "comparison.md").read_text().splitlines()[0]
    if title != "### benchledger compare: **gate undecided**: 1 case could not be decided (failed)":
        fail(f"comparison.md's title: {title}")
    summary = (s.out / "comparison.txt").read_text().splitlines()[-1]
    if not summary.startswith("gate: UNDECIDED (1 case could not be decided; fails"):
        fail(f"comparison.txt's last line: {summary}")
    if "gate: undecided:" not in done.stderr:
        fail(f"the gate's closing line does not say undecided: {done.stderr}")
    # The flag wins over the file, and a budget of 0 adds no round.
    done = s.run_gate("--undecided", "pass", "--budget", "0")
    expect_status(done, 0)
    for name in ("comparison.md", "comparison.txt"):
        text = (s.out / name).read_text()
        if "gate passed" in text or "gate: pass" in text:
            fail(f"an undecided gate says passed in {name}:\n{text}")
    if "(not failed)" not in (s.out / "comparison.md").read_text():
        fail("comparison.md does not say that the undecided gate does not fail")
    if "== round 4 " in (s.out / "gate.log").read_text():
        fail("--budget 0 still measured a round past the 3 planned")
def scenario_duet(s):
    """A duet runs base and head at the same time, each on CPUs of its own, and swaps the CPUs
    every round: each run logs its side, when it ran and the CPUs it may use."""
    runs_log = s.root / "runs.log"
    # The runs sleep, 2 s a side in each round, so that the two sides' rounds overlap however long
    # each side's `benchledger run` takes to start on a loaded machine: this scenario is about
    # when and where they run, not what they measure.
    work = ('s=$(date +%s.%N); sleep 1; e=$(date +%s.%N)\n'
            'echo "$(cat side) $s $e $(grep Cpus_allowed_list /proc/self/status | cut -f2)" '
            f'>>"{runs_log}"\n')
    config = {"gate": {"run": ["--name work --runs 4 --warmup 0 -- sh work.sh"], "rounds": 2,
                       "duet": True, "metric": "wall"}}
    s.commit({"work.sh": work, "side": "base\n", "benchledger.json": json.dumps(config) + "\n"},
             "base")
    s.commit({"side": "head\n"}, "head: the same work")
    done = s.run_gate("--budget", "0")
    if done.returncode not in (0, 1):
        expect_status(done, 0)
    expect_outputs(s)
    # The halves of this process's CPUs; base has the first in the first round, head the second,
    # and they swap in the second round.
    cpus = sorted(os.sched_getaffinity(0))
    halves = [",".join(map(str, cpus[:len(cpus) // 2])), ",".join(map(str, cpus[len(cpus) // 2:]))]
    runs = [line.split() for line in runs_log.read_text().splitlines()]
    # Each run of a round, by the side and the CPUs it ran on (the entry's 4 runs a side are 2 a
    # round): [start of the first, end of the last].
    spans = {}
    for side, start, end, allowed in runs:
        key = (side, ",".join(map(str, cpus_of(allowed))))
        low, high = spans.get(key, (float(start), float(end)))
        spans[key] = (min(low, float(start)), max(high, float(end)))
    if len(runs) != 8 or set(spans) != {("base", halves[0]), ("base", halves[1]),
                                         ("head", halves[0]), ("head", halves[1])}:
        fail(f"expected 4 runs a side, each side on each half of the CPUs: {runs}")
    for base_half, head_half in ((halves[0], halves[1]), (halves[1], halves[0])):
        base, head = spans[("base", base_half)], spans[("head", head_half)]
        if not (base[0] < head[1] and head[0] < base[1]):
            fail(f"base on CPUs {base_half} and head on CPUs {head_half} ran one after the other, "
                 f"not at once: {runs}")
    gate_log = (s.out / "gate.log").read_text()
    for side, first, second in (("base", 0, 1), ("head", 1, 0)):
        for round_number, half in ((1, halves[first]), (2, halves[second])):
            said = f"round {round_number}: {side} on CPUs {half}"
            logged = re.compile(rf"^== round {round_number} of {side} \([0-9a-f]+\) on CPUs "
                                rf"{half}, gate\.run\[0\]: ", re.M)
            if said not in done.stderr or not logged.search(gate_log):
                fail(f"the gate did not say, or gate.log does not name, {side}'s CPUs ({half}) "
                     f"in round {round_number}:\n{done.stderr}\n{gate_log}")


def cpus_of(listed):
    """The CPUs of a Cpus_allowed_list value ("0-1,3")."""
    cpus = []
    for part in listed.split(","):
        low, _, high = part.partition("-")
        cpus += range(int(low), int(high or low) + 1)
    return cpus


def tiny_config():
    # Three runs a side in one round: no rank test on three against three reaches p < 0.05, so
    # no timing can make these gates fail, and one takes seconds.
    return json.dumps({"gate": {"run": ["--name work --runs 3 --warmup 0 -- sh work.sh"]}}) + "\n"


def commit_tiny(s):
    s.commit({"work.sh": ":\n", "benchledger.json": tiny_config()}, "base")
    s.commit({"README": "head\n"}, "head: nothing measured changes")


def benchledger(s, *args):
    return sh([str(s.prefix / "bin" / "benchledger"), *args], s.repo, s.env, check=False)


def expect_verified(s, ledger, records):
    done = benchledger(s, "ledger", "verify", "--ledger", str(ledger))
    expect_status(done, 0)
    if f": {records} records," not in done.stdout:
        fail(f"expected {records} records in {ledger}: {done.stdout}")


def earlier_runs(s, ledger):
    """Two runs of another benchmark, labelled as a gate labels its own, made by `run`."""
    for label in ("base", "head"):
        done = benchledger(s, "run", "--ledger", str(ledger), "--label", label, "--name", "older",
                           "--runs", "2", "--warmup", "0", "-q", "--", "true")
        expect_status(done, 0)
    return ledger.read_bytes()


def scenario_appends(s):
    """A gate whose --out holds a ledger (here the repository's own) appends to it."""
    commit_tiny(s)
    s.out = s.repo / "ledger"
    ledger = s.out / "ledger.ndjson"
    before = earlier_runs(s, ledger)
    expect_verified(s, ledger, 4)
    for gate, records in ((1, 8), (2, 12)):
        # One round and no extra ones: three runs a side, which no test can find different.
        done = s.run_gate("--rounds", "1", "--budget", "0")
        expect_status(done, 0)
        expect_outputs(s)
        expect_verified(s, ledger, records)
        if not ledger.read_bytes().startswith(before):
            fail(f"gate {gate} changed the records that were in {ledger} before it")
        runs, _ = ledger_runs(ledger)
        if [r["label"] for r in runs] != ["base", "head"] * (gate + 1):
            fail(f"after gate {gate}: {[(r['label'], r['id']) for r in runs]}")
        # The comparison is of this gate's two runs, the last appended, not of the newest runs
        # with those labels before it, nor of the earlier `older` benchmark.
        report = s.comparison()
        if (report["base"]["id"], report["current"]["id"]) != (runs[-2]["id"], runs[-1]["id"]):
            fail(f"gate {gate} compared {report['base']['id']} and {report['current']['id']}, "
                 f"not its runs {runs[-2]['id']} and {runs[-1]['id']}")
        if {c["bench"] for c in report["cases"]} != {"work"}:
            fail(f"gate {gate} compared more than its own runs: {verdicts(report)}")


def scenario_concurrent(s):
    """Two gates at once with one --out keep all four runs."""
    commit_tiny(s)
    args = [str(s.gate), "HEAD~1", "--out", str(s.out), "--rounds", "1"]
    gates = [subprocess.Popen(args, cwd=s.repo, env=s.env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for gate in gates:
        out, err = gate.communicate()
        # The verdict is not this test's subject: one round of a millisecond's work, timed while
        # the other gate builds, can be judged a regression (exit 1). Only an error is a failure.
        if gate.returncode not in (0, 1):
            fail(f"a concurrent gate exited {gate.returncode}:\n{out}\n{err}")
    ledger = s.out / "ledger.ndjson"
    runs, results = ledger_runs(ledger)
    expect_verified(s, ledger, len(runs) + len(results))
    if sorted(r["label"] for r in runs) != ["base", "base", "head", "head"]:
        fail(f"expected both gates' base and head runs: {[(r['label'], r['id']) for r in runs]}")
    if len({r["id"] for r in runs}) != 4:
        fail(f"expected four distinct runs: {[r['id'] for r in runs]}")


def scenario_out_refused(s):
    """What is in --out and no ledger, or a ledger where the gate writes its files, is refused
    before anything is measured, and left byte for byte as it was."""
    commit_tiny(s)
    ledger = s.out / "ledger.ndjson"
    earlier_runs(s, ledger)
    valid = ledger.read_bytes()
    lines = valid.split(b"\n")
    tampered = b"\n".join([lines[0].replace(b'"label":"base"', b'"label":"bass"'), *lines[1:]])
    if tampered == valid:
        fail("the first record has no label to tamper with")
    for name, content, says in (
            ("ledger.ndjson", tampered, "it is not a valid ledger"),
            ("ledger.ndjson", b"not a ledger\n", "it is not a valid ledger"),
            ("gate.log", valid, "it is an NDJSON ledger")):
        for old in s.out.iterdir():
            old.unlink()
        (s.out / name).write_bytes(content)
        done = s.run_gate("--rounds", "1")
        expect_status(done, 2)
        if str(s.out / name) not in done.stderr or says not in done.stderr:
            fail(f"the refusal of {name} does not name it and say why: {done.stderr}")
        if (s.out / name).read_bytes() != content:
            fail(f"the refused gate changed {name}")
        log = s.out / "gate.log"
        if log.exists() and "== round" in log.read_text(errors="replace"):
            fail(f"the gate measured before it refused {name}")
    # bisect keeps bisect.log in its --out the same way.
    (s.out / "bisect.log").write_bytes(valid)
    done = benchledger(s, "bisect", "HEAD~1", "HEAD", "--case", "work", "--out", str(s.out),
                       "--ledger", str(s.root / "bisect.ndjson"))
    expect_status(done, 2)
    if str(s.out / "bisect.log") not in done.stderr or (s.out / "bisect.log").read_bytes() != valid:
        fail(f"bisect did not refuse its --out's ledger named bisect.log: {done.stderr}")



# Whose configuration judges: the head's benchledger.json cannot pass its own slowdown. Two runs a
# side in one round are judged by the threshold alone (too few for a test), and a sleep five times
# longer is far beyond 5% and far within 1000% however loaded the machine is.
def judged_config(*entries, thresholds=None):
    config = {"gate": {"run": list(entries), "rounds": 1}}
    if thresholds:
        config["thresholds"] = thresholds
    return json.dumps(config, indent=2) + "\n"


WORK_ENTRY = "--name work --runs 2 --warmup 0 -- sh work.sh"


def comment_rows(s):
    """comparison.md's configuration rows and the verdict cell of its first case row."""
    md = (s.out / "comparison.md").read_text()
    header = "| verdict | case |"
    if header not in md:
        fail(f"comparison.md has no table of cases:\n{md}")
    if "**Gate configuration**" not in md or md.index("**Gate configuration**") > md.index(header):
        fail(f"comparison.md does not open with the gate configuration:\n{md}")
    table = md[md.index(header):].splitlines()
    return md, table[2]


def scenario_threshold_raised(s):
    """The head raises its own threshold: its regression passes as `accepted by this change`,
    first in every format, with both settings."""
    s.commit({"work.sh": "sleep 0.05\n", "benchledger.json": judged_config(WORK_ENTRY)}, "base")
    s.commit({"work.sh": "sleep 0.25\n",
              "benchledger.json": judged_config(WORK_ENTRY, thresholds={"work": 1000})},
             "head: five times slower, and a threshold that lets it through")
    done = s.run_gate("--budget", "0")
    expect_status(done, 0)
    expect_outputs(s)
    report = s.comparison()
    first = report["cases"][0]
    if (first["bench"], first["verdict"], first["judged"]) != (
            "work", "accepted by this change", "regression"):
        fail(f"expected work accepted by this change (a regression by base's): {first}")
    if first["loosened"] != [{"key": "threshold", "base": "5%", "head": "1000%"}]:
        fail(f"the case does not carry both thresholds: {first['loosened']}")
    if report["configuration"] != [{"key": "thresholds.work", "base": "none", "head": "1000%"}]:
        fail(f"comparison.json's configuration: {report['configuration']}")
    if report["options"]["threshold"] != 5:
        fail(f"the base's threshold does not judge: {report['options']}")
    md, first_row = comment_rows(s)
    if not md.startswith("### benchledger compare: gate passed (1 case accepted by this change)"):
        fail(f"the comment's title does not say that the change accepted a case:\n{md}")
    if "| `thresholds.work` | none | `1000%` |" not in md:
        fail(f"the comment does not name the raised threshold:\n{md}")
    if "accepted by this change" not in first_row or "| `work` |" not in first_row:
        fail(f"the comment's first row: {first_row}")
    if "regression by the base's configuration; threshold 5% -\\> 1000%" not in md:
        fail(f"the comment does not say why work passes:\n{md}")
    txt = (s.out / "comparison.txt").read_text()
    if not txt.startswith("configuration: the head's benchledger.json differs") or \
            "accepted by this change" not in txt:
        fail(f"comparison.txt:\n{txt}")
    xml = (s.out / "comparison.xml").read_text()
    case = xml[xml.index("<testcase"):]
    if 'name="work wall"' not in case.split("\n")[0] or "accepted by this change" not in case:
        fail(f"comparison.xml's first test case:\n{case}")


def scenario_run_true(s):
    """The head points its gate.run at `true`: base's entry still measures both sides."""
    s.commit({"work.sh": "sleep 0.05\n", "benchledger.json": judged_config(WORK_ENTRY)}, "base")
    pointed = "--name work --runs 2 --warmup 0 -- true"
    s.commit({"work.sh": "sleep 0.25\n", "benchledger.json": judged_config(pointed)},
             "head: five times slower, measured by `true`")
    done = s.run_gate("--budget", "0")
    expect_status(done, 1)
    report = s.comparison()
    if verdicts(report) != {("work", "wall"): "regression"}:
        fail(f"expected base's entry to find the regression: {verdicts(report)}")
    if [c for c in report["configuration"] if c["key"] == "gate.run"] != [
            {"key": "gate.run", "base": WORK_ENTRY, "head": "none"},
            {"key": "gate.run", "base": "none", "head": pointed}]:
        fail(f"comparison.json's configuration: {report['configuration']}")
    if not any("which base's entries measure: its results of it are left out" in w
               for w in report["warnings"]):
        fail(f"no warning says the head's entry was left out of work: {report['warnings']}")
    md, _ = comment_rows(s)
    if f"| `gate.run` | none | `{pointed}` |" not in md:
        fail(f"the comment does not name the head's entry:\n{md}")
    # Each side's own rounds: base's entry ran on both, the head's on the head alone.
    log = (s.out / "gate.log").read_text()
    rounds = [line for line in log.splitlines() if line.startswith("== round ")]
    if len(rounds) != 3 or sum(" of head " in line for line in rounds) != 2:
        fail(f"expected base's entry on both sides and the head's on head: {rounds}")


def scenario_fewer_runs(s):
    """The head drops a run entry: still measured while the head can run it, missing once it
    cannot (the head removed the benchmark), which --allow-missing accepts."""
    stay = "--name stay --runs 2 --warmup 0 -- sh stay.sh"
    # `stay` keeps the comparison from having no case in common; it is timed on a shared machine,
    # and a threshold no load reaches, the same on both sides, keeps it out of the exit status.
    calm = {"stay": 1000}
    s.commit({"work.sh": "sleep 0.05\n", "stay.sh": "sleep 0.05\n",
              "benchledger.json": judged_config(WORK_ENTRY, stay, thresholds=calm)}, "base")
    s.commit({"work.sh": "sleep 0.25\n", "benchledger.json": judged_config(stay, thresholds=calm)},
             "head: five times slower, and no longer measured")
    done = s.run_gate("--budget", "0")
    expect_status(done, 1)
    report = s.comparison()
    if verdicts(report).get(("work", "wall")) != "regression":
        fail(f"expected base's dropped entry to find the regression: {verdicts(report)}")
    md, _ = comment_rows(s)
    if f"| `gate.run` | `{WORK_ENTRY}` | none |" not in md:
        fail(f"the comment does not name the dropped entry:\n{md}")
    s.git("rm", "-q", "work.sh")
    s.git("commit", "-q", "-m", "head: the benchmark is gone")
    done = s.run_gate("--budget", "0", base="HEAD~2")
    expect_status(done, 1)
    report = s.comparison()
    if verdicts(report) != {("work", "wall"): "missing", ("stay", "wall"): "unchanged"}:
        fail(f"expected work missing once the head cannot run it: {verdicts(report)}")
    if not any("no longer has, failed on head for work" in w for w in report["warnings"]):
        fail(f"no warning says why work is missing: {report['warnings']}")
    done = s.run_gate("--budget", "0", "--allow-missing", base="HEAD~2")
    expect_status(done, 0)


# ---- What a gate that fails shows: every failure reaches the comment.

def quick_config(run="--name work --runs 3 --warmup 0 -- sh work.sh", **gate):
    """One round (and no extra ones: quick_gate): these scenarios are about what the gate says,
    not what it finds."""
    return json.dumps({"gate": {"run": [run], "rounds": 1, **gate}}) + "\n"


def quick_gate(s, *flags, **revisions):
    return s.run_gate("--budget", "0", *flags, **revisions)


def scenario_crash_output(s):
    """A benchmark that crashes shows the last lines of its stderr, bounded and with secrets
    redacted, in every output and in gate.log."""
    crash = ('i=0; while [ $i -lt 100 ]; do i=$((i + 1)); echo "noise $i" >&2; done\n'
             'echo "panic: index out of range [5] with length 3 (password=hunter2)" >&2\n'
             'exit 2\n')
    s.commit({"work.sh": ":\n", "benchledger.json": quick_config()}, "base")
    s.commit({"work.sh": crash}, "head: the benchmark panics")
    done = quick_gate(s)
    expect_status(done, 1)
    expect_outputs(s)
    # The rule hides the whole word after `password=`, its closing parenthesis too.
    panic = "panic: index out of range [5] with length 3 (password=***"
    texts = {name: (s.out / name).read_text()
             for name in ("comparison.md", "comparison.txt", "comparison.xml", "gate.log")}
    case = next(c for c in s.comparison()["cases"] if c["bench"] == "work")
    texts["comparison.json"] = case.get("stderr", "")
    if case["verdict"] != "failed":
        fail(f"expected work to be failed: {case}")
    for name, text in texts.items():
        if panic not in text:
            fail(f"{name} does not show the panic with its password redacted:\n{text}")
        if "hunter2" in text:
            fail(f"{name} shows the password")
    # Bounded: the last 20 lines, the panic and the 19 before it.
    lines = case["stderr"].splitlines()
    if len(lines) != 20 or lines[0] != "noise 82" or lines[-1] != panic:
        fail(f"expected the last 20 lines of stderr, noise 82 to the panic: {lines}")
    if "```text\nnoise 82" not in texts["comparison.md"]:
        fail(f"comparison.md does not quote the stderr in a code block:\n{texts['comparison.md']}")
    if "work failed (error: every run failed" not in texts["gate.log"]:
        fail(f"gate.log does not say which case failed how:\n{texts['gate.log']}")


class CommentStub:
    """The GitHub API as ci/gate.sh uses it, on loopback: it keeps the comment posted."""

    def __init__(self):
        import http.server
        import threading
        stub = self
        self.posted = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                self.answer(200, b"[]")

            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if self.headers.get("Authorization") != "Bearer t0ken":
                    self.answer(401, b"{}")
                    return
                stub.posted.append((self.path, json.loads(body)["body"]))
                self.answer(201, b"{}")

            def answer(self, status, body):
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}"

    def close(self):
        self.server.shutdown()


def scenario_step_failed(s):
    """A failed build or prepare still writes all four outputs (the side, the step, the end of its
    own output), and ci/gate.sh posts them and exits 2."""
    s.commit({"work.sh": ":\n", "build.sh": "echo compiled\n", "prepare.sh": ":\n",
              "benchledger.json": quick_config(build="sh build.sh", prepare="sh prepare.sh")},
             "base")
    s.commit({"build.sh": "echo 'compiling main.c'\necho \"main.c:3: error: expected ';'\" >&2\n"
                          "exit 7\n"}, "head: the build breaks")
    stub = CommentStub()
    env = dict(s.env, BENCHLEDGER_BIN=str(s.prefix / "bin" / "benchledger"),
               BENCHLEDGER_GATE_OUT=str(s.out), BENCHLEDGER_GATE_COMMENT="github",
               GITHUB_API_URL=stub.url, GITHUB_TOKEN="t0ken", GITHUB_REPOSITORY="o/r",
               BENCHLEDGER_GATE_PR="7", BENCHLEDGER_GATE_BASE="HEAD~1",
               BENCHLEDGER_GATE_ARGS="--budget 0")
    try:
        done = sh([str(SOURCE / "ci" / "gate.sh")], s.repo, env, check=False)
    finally:
        stub.close()
    expect_status(done, 2)
    expect_outputs(s)
    error = s.comparison()["error"]
    if (s.comparison()["state"], error["side"], error["step"], error["outcome"]) != \
            ("error", "head", "build", "exit status 7"):
        fail(f"comparison.json does not say that head's build exited 7: {s.comparison()}")
    if error["output"] != "compiling main.c\nmain.c:3: error: expected ';'":
        fail(f"the build's output is not its own (the gate's lines are not its): {error['output']!r}")
    md = (s.out / "comparison.md").read_text()
    for want in ("the build of head failed", "exit status 7", "main.c:3: error: expected ';'"):
        if want not in md:
            fail(f"comparison.md does not say {want!r}:\n{md}")
    for name in ("comparison.md", "comparison.txt", "comparison.xml"):
        text = (s.out / name).read_text()
        if "worktree" in text or "HEAD is now at" in text or "main.c:3" not in text:
            fail(f"{name} quotes the gate's own lines, or not the build's:\n{text}")
    if [path for path, _ in stub.posted] != ["/repos/o/r/issues/7/comments"] or \
            "main.c:3: error" not in stub.posted[0][1]:
        fail(f"ci/gate.sh did not post the failed build's comment: {stub.posted}\n{done.stderr}")
    # A prepare that fails: the same, naming the step.
    s.commit({"build.sh": "echo compiled\n",
              "prepare.sh": "echo 'fixture.json: No such file or directory' >&2; exit 3\n"},
             "head: the build works, its prepare does not")
    done = quick_gate(s, base="HEAD~2")
    expect_status(done, 2)
    expect_outputs(s)
    error = s.comparison()["error"]
    if (error["side"], error["step"], error["output"]) != \
            ("head", "prepare", "fixture.json: No such file or directory"):
        fail(f"comparison.json does not say that head's prepare failed how: {error}")
    if "the prepare of head failed" not in (s.out / "comparison.md").read_text():
        fail("comparison.md does not name the prepare of head")


def scenario_entry_checked(s):
    """gate.run entries are parsed as `run` parses them before anything is checked out, and every
    message names benchledger.json at the revision, never a temporary path."""
    s.commit({"work.sh": ":\n", "benchledger.json": quick_config()}, "base")
    cases = (
        ("--nmae work --runs 3 -- sh work.sh", "--nmae"),
        ("--name work --show-output --runs 3 -- sh work.sh", "--show-output"),
        ("--name work --runs 0 -- sh work.sh", "--runs"),
        ("--name work --label x -- sh work.sh", "--label"),
    )
    for entry, names in cases:
        s.commit({"benchledger.json": quick_config(run=entry)}, f"head: {entry}")
        done = quick_gate(s)
        expect_status(done, 2)
        if 'benchledger.json at HEAD: field "gate.run[0]": ' not in done.stderr or \
                names not in done.stderr:
            fail(f"{entry}: the error does not name benchledger.json at HEAD, gate.run[0] and "
                 f"{names}:\n{done.stderr}")
        if "worktree add" in (s.out / "gate.log").read_text():
            fail(f"{entry}: the gate checked out a revision before refusing its configuration")
        if names not in (s.out / "comparison.md").read_text():
            fail(f"{entry}: comparison.md does not say what was refused")
    # A judging option that only compare checks is checked as early.
    s.commit({"benchledger.json": quick_config(**{"fail-on": ["regresion"]})}, "head: a typo")
    done = quick_gate(s)
    expect_status(done, 2)
    if 'benchledger.json at HEAD: field "gate.fail-on": ' not in done.stderr or \
            "worktree add" in (s.out / "gate.log").read_text():
        fail(f"gate.fail-on was not refused before the checkouts, naming it:\n{done.stderr}")
    s.commit({"benchledger.json": '{"gate": {"run": ["-- true"], "rounds": "many"}}\n'},
             "head: a malformed section")
    done = quick_gate(s, head="main")
    expect_status(done, 2)
    if 'benchledger.json at main: field "gate.rounds"' not in done.stderr or \
            "benchledger-gate-" in done.stderr:
        fail(f"the error does not name benchledger.json at main, or names a path:\n{done.stderr}")


def scenario_killed(s):
    """A gate started after one killed outright (SIGKILL) removes the killed gate's folders and
    worktrees; a live gate's and a kept one's stay."""
    import signal
    import time
    slow, pid_file = s.root / "slow", s.root / "build.pid"
    build = f'if [ -f {slow} ]; then echo $$ > {pid_file}; exec sleep 300; fi'
    s.commit({"work.sh": ":\n", "benchledger.json": quick_config(build=build)}, "base")
    s.commit({"README": "head\n"}, "head")
    done = quick_gate(s, "--keep-worktrees")
    expect_status(done, 0)
    kept = [p for p in s.root.glob("benchledger-gate-*")]
    if len(kept) != 1:
        fail(f"expected one kept folder: {kept}")
    slow.write_text("")
    gate = subprocess.Popen([str(s.gate), "HEAD~1", "--out", str(s.root / "killed")], cwd=s.repo,
                            env=s.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(600):  # bounded waits, not timings
        if pid_file.is_file() and pid_file.read_text().strip():
            break
        if gate.poll() is not None:
            fail("the gate ended before its build started")
        time.sleep(0.1)
    else:
        fail("the build did not start within a minute")
    gate.kill()
    gate.wait()
    os.kill(int(pid_file.read_text()), signal.SIGKILL)
    left = [p for p in s.root.glob("benchledger-gate-*") if p not in kept]
    listed = s.git("worktree", "list").stdout.strip().splitlines()
    if len(left) != 1 or len(listed) != 5:
        fail(f"expected the killed gate's folder and worktrees to be left: {left}, {listed}")
    slow.unlink()
    done = quick_gate(s)
    expect_status(done, 0)
    if f"removed {left[0]}, left by a gate that was killed (pid {gate.pid})" not in done.stderr:
        fail(f"the gate does not say that it removed the killed gate's folder:\n{done.stderr}")
    if left[0].exists() or not kept[0].is_dir():
        fail(f"expected {left[0]} removed and {kept[0]} kept")
    listed = s.git("worktree", "list").stdout.strip().splitlines()
    if len(listed) != 3 or any(str(left[0]) in line for line in listed):
        fail(f"expected the repository and the two kept worktrees: {listed}")


def work_program(added):
    """A C program whose head adds work in one named function (`added_work`)."""
    call = "  value = added_work(value);\n" if added else ""
    return f"""#include <stdint.h>
#include <stdio.h>

__attribute__((noinline)) static uint64_t base_work(uint64_t seed) {{
  for (int i = 0; i < 5000000; ++i) seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return seed;
}}

__attribute__((noinline)) static uint64_t added_work(uint64_t seed) {{
  for (int i = 0; i < 5000000; ++i) seed = (seed ^ (seed >> 7)) * 2862933555777941757ULL + 3;
  return seed;
}}

int main(void) {{
  uint64_t value = base_work(1);
{call}  printf("%llu\\n", (unsigned long long)value);
  return 0;
}}
"""


def scenario_profiled(s):
    """A regression in wall time is explained after the rounds: both sides counted once more under
    callgrind, the head's added function first in the comment, the table and the JSON, the profile
    named by the head's pooled result and kept beside the gate's ledger; --explain profiles a case
    that did not regress, --no-profile counts nothing."""
    need("valgrind", "valgrind")
    need("cc", "gcc")
    config = {"gate": {"build": "cc -O1 -g -o work work.c",
                       "run": ["--name work --runs 12 --warmup 1 -- ./work"],
                       "rounds": 4, "design": "pooled"}}
    s.commit({"work.c": work_program(False),
              "benchledger.json": json.dumps(config, indent=2) + "\n"}, "base")
    s.commit({"work.c": work_program(True)}, "head: added_work")
    done = s.run_gate("--metric", "wall", "--budget", "0")
    expect_status(done, 1)
    expect_outputs(s)
    report = s.comparison()
    if verdicts(report).get(("work", "wall")) != "regression":
        fail(f"expected work/wall to be a regression: {verdicts(report)}")
    cases = report.get("profiles", {}).get("cases", [])
    if len(cases) != 1 or not cases[0].get("functions"):
        fail(f"expected one profiled case in comparison.json: {report.get('profiles')}")
    first = cases[0]["functions"][0]
    if not first["name"].startswith("added_work") or first["share"] < 0.9:
        fail(f"expected added_work first with at least 90% of the change: {first}")
    if not (first["file"] or "").endswith("work.c") or not first["line"]:
        fail(f"expected added_work's file and line: {first}")
    if "counts instructions, not time" not in report["profiles"].get("note", ""):
        fail(f"the JSON's note does not say what a profile leaves out: {report['profiles']}")
    comment = (s.out / "comparison.md").read_text()
    for wanted in ("### Where the regressed cases' instructions went",
                   "<details><summary>work: instructions",
                   "most in added_work", "A profile counts instructions, not time"):
        if wanted not in comment:
            fail(f"comparison.md lacks {wanted!r}:\n{comment}")
    table = (s.out / "comparison.txt").read_text()
    if "where the regressed cases' instructions went" not in table or "added_work" not in table:
        fail(f"comparison.txt lacks the profiles:\n{table}")
    log = (s.out / "gate.log").read_text()
    if len(re.findall(r"^== profiling on (base|head) ", log, re.M)) != 2:
        fail("gate.log does not show one profiling count a side")
    # The head's pooled result names its profile, kept beside the ledger: explain reads it later.
    runs, results = ledger_runs(s.out / "ledger.ndjson")
    if not all(r.get("profile") for r in results):
        fail(f"the pooled results do not name their profiles: {results}")
    expect_verified(s, s.out / "ledger.ndjson", 4)
    explained = benchledger(s, "explain", "base", "head", "--ledger", str(s.out / "ledger.ndjson"),
                            "--format", "json")
    expect_status(explained, 0)
    if not json.loads(explained.stdout)["cases"][0]["functions"][0]["name"].startswith(
            "added_work"):
        fail(f"explain of the gate's runs does not put added_work first: {explained.stdout}")
    # The HTML report's differential flame graph, from callgrind's call graphs: added_work called
    # from main on the head only.
    page = s.root / "report.html"
    done = benchledger(s, "report", "head", "--against", "base", "--ledger",
                       str(s.out / "ledger.ndjson"), "-o", str(page))
    expect_status(done, 0)
    frames = re.findall(r'<g class="flame-frame"><title>([^<]*)</title>', page.read_text())
    if not any(f.startswith("main: ") for f in frames) or not any(
            f.startswith("added_work: base 0, head 35,000,00") for f in frames):
        fail(f"the report's flame graph lacks main or the head's added_work: {frames}")

    # --no-profile counts nothing, the regression still judged; --explain profiles a case that
    # did not regress, and may not be given with --no-profile.
    done = s.run_gate("--metric", "wall", "--budget", "0", "--no-profile")
    expect_status(done, 1)
    if "profiles" in s.comparison() or "== profiling on" in (s.out / "gate.log").read_text():
        fail("--no-profile still profiled")
    expect_status(s.run_gate("--no-profile", "--explain", "work"), 2)
    s.commit({"NEWS": "nothing measured changes\n"}, "head: news")
    done = s.run_gate("--metric", "wall", "--budget", "0", "--threshold", "200",
                      "--explain", "work", "--explain", "nothing*")
    expect_status(done, 0)
    profiles = s.comparison().get("profiles", {})
    if [c["bench"] for c in profiles.get("cases", [])] != ["work"]:
        fail(f"--explain work did not profile work: {profiles}")
    comment = (s.out / "comparison.md").read_text()
    if "of the regressed cases and of those asked for" not in comment:
        fail(f"comparison.md does not say the cases were asked for:\n{comment}")
    if "--explain nothing\\*: matches no case the gate measured" not in comment:
        fail(f"comparison.md does not say that --explain nothing* matched nothing:\n{comment}")


SCENARIOS = {name[len("scenario_"):]: f for name, f in globals().items()
             if name.startswith("scenario_")}

if SCENARIO not in SCENARIOS:
    fail(f"no such scenario (known: {', '.join(SCENARIOS)})")
need("git", "git")
with tempfile.TemporaryDirectory(prefix="gate-test-") as scratch:
    SCENARIOS[SCENARIO](Scratch(pathlib.Path(scratch)))
print(f"gate {SCENARIO}: ok")
