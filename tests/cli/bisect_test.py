#!/usr/bin/env python3
"""`benchledger bisect` finds the commit where a case got slower in a scratch git repository.

Usage: bisect_test.py BENCHLEDGER. Seven commits; a shell-command benchmark gets 30% slower at
the third, the fourth does not build; bisect must name the third, skip the fourth, append every
run it measured to the ledger and leave no worktree behind. The benchmark is judged by its
instruction count (Valgrind): this test is about bisect's search, and on a shared machine even
CPU time moved a 30% step to an inconclusive +15%.
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile

BENCHLEDGER = pathlib.Path(sys.argv[1]).resolve()


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def loop(iterations):
    return f"i=0\nwhile [ $i -lt {iterations} ]; do i=$((i + 1)); done\n"


def main():
    with tempfile.TemporaryDirectory(prefix="benchledger-bisect-test-") as tmp:
        root = pathlib.Path(tmp)
        repo = root / "repo"
        repo.mkdir()
        env = dict(os.environ, GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1",
                   NO_COLOR="1", TMPDIR=str(root), BENCHLEDGER_LEDGER="")

        def git(*args):
            done = subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True,
                                  text=True)
            if done.returncode != 0:
                fail(f"git {args}: {done.stderr}")
            return done.stdout.strip()

        def commit(files, message):
            for name, text in files.items():
                (repo / name).write_text(text)
            git("add", "-A")
            git("commit", "-q", "-m", message)
            return git("rev-parse", "HEAD")

        git("init", "-q", "-b", "main")
        git("config", "user.email", "dev@example.org")
        git("config", "user.name", "Dev")
        config = {"gate": {"build": "sh build.sh",
                           "run": ["--name work --runs 1 --warmup 0 --measure instructions:valgrind"
                                   " -- sh work.sh"],
                           "rounds": 2}}
        commits = [commit({"work.sh": loop(2000), "build.sh": "true\n",
                           "benchledger.json": json.dumps(config) + "\n"}, "c0: the base")]
        commits.append(commit({"README": "one\n"}, "c1: documentation"))
        commits.append(commit({"work.sh": loop(2600)}, "c2: 30% slower"))
        commits.append(commit({"build.sh": "echo 'syntax error' >&2; exit 1\n"},
                              "c3: does not build"))
        commits.append(commit({"build.sh": "true\n"}, "c4: builds again"))
        commits.append(commit({"README": "two\n"}, "c5: documentation"))
        commits.append(commit({"README": "three\n"}, "c6: documentation"))

        ledger = root / "ledger.ndjson"
        done = subprocess.run([str(BENCHLEDGER), "bisect", commits[0], "main", "--case", "work*",
                               "--metric", "instructions", "--ledger", str(ledger), "--out",
                               str(root / "out")],
                              cwd=repo, env=env, capture_output=True, text=True)
        print(done.stdout)
        print(done.stderr, file=sys.stderr)
        if done.returncode != 0:
            fail(f"bisect exited {done.returncode}")
        if f"first bad commit: {commits[2]}" not in done.stdout:
            fail(f"bisect did not name c2 ({commits[2]})")
        lines = [line for line in done.stdout.splitlines() if not line.startswith("first bad")]
        marks = {line.split()[0]: line.split()[1].rstrip(":") for line in lines}
        if marks.get(commits[3][:12]) != "skip":
            fail(f"c3, which does not build, was not skipped: {marks}")
        if marks.get(commits[6][:12]) != "bad" or marks.get(commits[2][:12]) != "bad":
            fail(f"c6 and c2 were not both judged bad: {marks}")
        if marks.get(commits[1][:12]) != "good":
            fail(f"c1 was not judged good: {marks}")

        # Every measured commit left two runs: GOOD's and its own, at the commits they name.
        records = [json.loads(line) for line in ledger.read_text().splitlines() if line]
        runs = [r for r in records if r["type"] == "run"]
        measured = [c for c, m in marks.items() if m != "skip"]
        if len(runs) != 2 * len(measured):
            fail(f"{len(runs)} runs in the ledger for {len(measured)} measured commits")
        for run in runs:
            want = commits[0] if run["label"] == "bisect-good" else None
            if want and run["git"]["commit"] != want:
                fail(f"a bisect-good run records commit {run['git']['commit']}")
        tested = sorted(r["git"]["commit"][:12] for r in runs if r["label"] == "bisect")
        if tested != sorted(measured):
            fail(f"the bisect runs record {tested}, the commits measured were {measured}")
        verify = subprocess.run([str(BENCHLEDGER), "ledger", "verify", "--ledger", str(ledger)],
                                env=env, capture_output=True, text=True)
        if verify.returncode != 0:
            fail(f"the ledger does not verify: {verify.stderr}")

        # Nothing is left: no worktree in git's list, no bisect in the user's checkout.
        if len(git("worktree", "list").splitlines()) != 1:
            fail(f"worktrees left behind: {git('worktree', 'list')}")
        if git("rev-parse", "HEAD") != commits[6] or (repo / ".git" / "BISECT_LOG").exists():
            fail("the user's checkout was moved or holds a bisect")

        # BAD that did not regress: nothing to bisect, exit 2.
        nothing = subprocess.run([str(BENCHLEDGER), "bisect", commits[0], commits[1], "--case",
                                  "work*", "--metric", "instructions", "--ledger", str(ledger), "--out",
                                  str(root / "out")],
                                 cwd=repo, env=env, capture_output=True, text=True)
        if nothing.returncode != 2 or "there is no regression to bisect" not in nothing.stderr:
            fail(f"a BAD without a regression: exit {nothing.returncode}\n{nothing.stderr}")


if __name__ == "__main__":
    main()
