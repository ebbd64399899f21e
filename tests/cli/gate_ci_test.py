#!/usr/bin/env python3
"""The CI templates drop into a user's repository: the shell of the GitHub action and of the
GitLab job, run as each forge runs it, gate a Go and a Python project on the merge base and post
the comparison to the forge's API.

Usage: gate_ci_test.py BENCHLEDGER SOURCE_DIR GO_CACHE. BENCHLEDGER is the built binary, put on
PATH as a user's job would have it installed; GO_CACHE keeps the Go build cache between runs (the
first build of Go's runtime costs about 20 s of CPU). Each project is a bare `origin` repository
whose main branch moved on after the change branched off, and a full clone checked out at the
change's head, as the forge's checkout leaves it. A stub of the forge's REST API on loopback
checks every request (method, path, token, body) and keeps the comments; the comparison the Go
project's gate posts is the example in docs/examples/comparison.md (BENCHLEDGER_UPDATE_GOLDEN=1
rewrites it).
"""
import http.server
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import urllib.parse

import yaml

BENCHLEDGER = pathlib.Path(sys.argv[1]).resolve()
SOURCE = pathlib.Path(sys.argv[2]).resolve()
GO_CACHE = pathlib.Path(sys.argv[3]).resolve()
# The official Go toolchain's place first, else any go (Debian 12's 1.19 builds this project).
GO = pathlib.Path("/usr/local/go/bin/go") if os.path.exists("/usr/local/go/bin/go") else \
    pathlib.Path(shutil.which("go") or "go")
MARKER = "<!-- benchledger-gate -->"
GITHUB_TOKEN, GITLAB_TOKEN = "ghs_stub_token", "glpat-stub-token"


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def sh(args, cwd, env, check=True):
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    if check and done.returncode != 0:
        fail(f"{args} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done


class Forge(http.server.ThreadingHTTPServer):
    """The comments API of GitHub (issues/N/comments) and GitLab (merge_requests/N/notes): it
    keeps each thread's comments and records every request, refusing a wrong token."""

    def __init__(self):
        super().__init__(("127.0.0.1", 0), ForgeHandler)
        self.requests = []
        self.threads = {}  # the comment list's path -> [{"id", "body"}]
        self.next_id = 100

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server_address[1]}"


class ForgeHandler(http.server.BaseHTTPRequestHandler):
    LIST = re.compile(r"^/(?:repos/[^/]+/[^/]+/issues/\d+/comments|"
                      r"api/v4/projects/\d+/merge_requests/\d+/notes)$")
    GITHUB_ONE = re.compile(r"^(/repos/[^/]+/[^/]+/issues)/comments/(\d+)$")
    GITLAB_ONE = re.compile(r"^(/api/v4/projects/\d+/merge_requests/\d+/notes)/(\d+)$")

    def log_message(self, *args):
        pass

    def answer(self, status, payload):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def handle_any(self):
        forge = self.server
        url = urllib.parse.urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode() if length else ""
        forge.requests.append({"method": self.command, "path": url.path, "query": url.query,
                               "headers": dict(self.headers), "body": body})
        github = url.path.startswith("/repos/")
        if github:
            authorized = self.headers.get("Authorization") == f"Bearer {GITHUB_TOKEN}"
        else:
            authorized = self.headers.get("PRIVATE-TOKEN") == GITLAB_TOKEN
        if not authorized:
            return self.answer(401, {"message": "Bad credentials"})
        if self.LIST.match(url.path):
            comments = forge.threads.setdefault(url.path, [])
            if self.command == "GET":
                return self.answer(200, comments)
            if self.command == "POST":
                forge.next_id += 1
                comments.append({"id": forge.next_id, "body": json.loads(body)["body"]})
                return self.answer(201, comments[-1])
        one = (self.GITHUB_ONE if github else self.GITLAB_ONE).match(url.path)
        if one and self.command == ("PATCH" if github else "PUT"):
            for path, comments in forge.threads.items():
                for comment in comments:
                    if comment["id"] == int(one.group(2)) and path.startswith(one.group(1)):
                        comment["body"] = json.loads(body)["body"]
                        return self.answer(200, comment)
        return self.answer(404, {"message": "Not Found"})

    do_GET = do_POST = do_PATCH = do_PUT = handle_any


# A Go project: a program the build makes, measured as a command. Its head computes about seven
# times as much: a regression that ten runs a side decide in one round, judged by CPU time, which
# the neighbours' load moves far less than wall time.
GO_FILES = {
    "go.mod": "module example.org/fib\n\ngo 1.19\n",
    "main.go": """// fib prints the n-th Fibonacci number, computed the slow way.
package main

import (
\t"os"
\t"strconv"
)

func fib(n int) int {
\tif n < 2 {
\t\treturn n
\t}
\treturn fib(n-1) + fib(n-2)
}

func main() {
\tn, _ := strconv.Atoi(os.Args[1])
\tos.Stdout.WriteString(strconv.Itoa(fib(n)) + "\\n")
}
""",
    "benchledger.json": json.dumps({"gate": {
        "build": "go build -o build/fib .",
        "run": ["--name fib --runs 10 --warmup 1 -- build/fib 27"],
        "rounds": 1, "metric": "cpu"}}, indent=2) + "\n",
}

# A Python project: two benchmarks of one script; the head adds a third. Every run also burns a
# random 0-100 ms of CPU, so three runs a side can decide neither case it keeps: Mann-Whitney's
# smallest p at 3 against 3 is 0.1, and the spread keeps the interval wider than +-5% even on a
# quiet machine. The gate is undecided and passes.
PY_BENCH = """import json, random, sys, time

DOC = json.dumps([{"id": i, "tags": ["a", "b"], "score": i / 7} for i in range(2000)])


def parse():
    json.loads(DOC)


def render():
    json.dumps(json.loads(DOC), indent=2)


{"parse": parse, "render": render}[sys.argv[1]]()
noise = time.process_time() + random.uniform(0, 0.1)
while time.process_time() < noise:
    pass
"""
PY_RUNS = ["--name parse --runs 3 --warmup 0 -- python3 bench.py parse",
           "--name render --runs 3 --warmup 0 -- python3 bench.py render"]
PY_CHANGE = {
    "bench.py": PY_BENCH.replace('"render": render}', '"render": render, "dump": dump}')
    .replace("\n\n{", "\n\ndef dump():\n    json.dumps([DOC] * 50)\n\n\n{"),
    "benchledger.json": json.dumps({"gate": {
        "run": PY_RUNS + ["--name dump --runs 3 --warmup 0 -- python3 bench.py dump"],
        "rounds": 1}}, indent=2) + "\n",
}
PY_FILES = {
    "bench.py": PY_BENCH,
    "benchledger.json": json.dumps({"gate": {
        "run": PY_RUNS, "rounds": 1}}, indent=2) + "\n",
}


class Project:
    """A user's repository: `origin`, bare, and the CI's checkout of the change's head."""

    def __init__(self, root, name, files, change, env):
        self.root, self.env = root / name, env
        self.origin, self.checkout = self.root / "origin.git", self.root / "checkout"
        work = self.root / "work"
        sh(["git", "init", "-q", "--bare", "-b", "main", str(self.origin)], root, env)
        sh(["git", "clone", "-q", str(self.origin), str(work)], root, env)
        self.commit(work, files, "the project and its gate")
        self.merge_base = self.rev(work, "HEAD")
        sh(["git", "checkout", "-q", "-b", "change"], work, env)
        self.commit(work, change, "the change under review")
        self.head = self.rev(work, "HEAD")
        # Meanwhile others merge into main: not the change's doing, so never its base.
        sh(["git", "checkout", "-q", "main"], work, env)
        self.commit(work, {"NEWS": "someone else's change\n"}, "another change on main")
        self.target = self.rev(work, "HEAD")
        sh(["git", "push", "-q", "origin", "main", "change"], work, env)
        sh(["git", "clone", "-q", str(self.origin), str(self.checkout)], root, env)
        sh(["git", "checkout", "-q", "--detach", self.head], self.checkout, env)

    def commit(self, work, files, message):
        for name, text in files.items():
            path = work / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        sh(["git", "add", "-A"], work, self.env)
        sh(["git", "commit", "-q", "-m", message], work, self.env)

    def rev(self, work, name):
        return sh(["git", "rev-parse", name], work, self.env).stdout.strip()


def evaluate(value, context):
    """A template's `${{ a.b.c }}` expressions, which the templates keep to plain names."""
    def lookup(match):
        node = context
        for part in match.group(1).strip().split("."):
            if not isinstance(node, dict) or part not in node:
                fail(f"the template's expression {match.group(0)} is not a plain name this test "
                     "knows")
            node = node[part]
        return str(node)
    return re.sub(r"\$\{\{(.*?)\}\}", lookup, str(value))


def run_github(project, forge, scratch, with_inputs):
    """The action's steps, as a runner runs a composite action's `shell: bash` steps."""
    action = yaml.safe_load((SOURCE / "ci/github/action.yml").read_text())
    github = {"token": GITHUB_TOKEN, "repository": "octo/app",
              "event": {"pull_request": {"number": 7, "base": {"sha": project.target},
                                         "head": {"sha": project.head,
                                                  "repo": {"full_name": "octo/app"}}}}}
    context = {"github": github}
    context["inputs"] = {name: evaluate(spec.get("default", ""), context)
                         for name, spec in action["inputs"].items()}
    unknown = set(with_inputs) - set(context["inputs"])
    if unknown:
        fail(f"the action has no inputs {sorted(unknown)}")
    context["inputs"].update(with_inputs)
    context["steps"] = {}
    output = scratch / "github_output"
    runner = dict(project.env, GITHUB_ACTION_PATH=str(SOURCE / "ci/github"),
                  GITHUB_REPOSITORY="octo/app", GITHUB_API_URL=forge.url,
                  GITHUB_OUTPUT=str(output), RUNNER_TEMP=str(scratch))
    done, artifact, failed_job = None, None, False
    for step in action["runs"]["steps"]:
        if "uses" in step:
            if step["uses"] != "actions/upload-artifact@v4" or step.get("if") != "always()":
                fail(f"unexpected step {step}")
            artifact = project.checkout / evaluate(step["with"]["path"], context)
            continue
        if step.get("if") == "steps.gate.outputs.status != '0'":
            if context["steps"]["gate"]["outputs"]["status"] == "0":
                continue
        env = dict(runner, **{k: evaluate(v, context) for k, v in step.get("env", {}).items()})
        output.write_text("")
        step_done = sh(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c",
                        evaluate(step["run"], context)], project.checkout, env, check=False)
        outputs = dict(line.split("=", 1) for line in output.read_text().splitlines())
        if step.get("id"):
            context["steps"][step["id"]] = {"outputs": outputs}
        if step.get("id") == "gate":
            done = step_done
        elif step_done.returncode != 0:
            failed_job = True
    if done is None or done.returncode != 0:
        fail(f"the gate step itself failed: {done and done.stderr}")
    status = int(context["steps"]["gate"]["outputs"]["status"])
    return done, status, failed_job, artifact


def run_gitlab(project, forge, variables):
    """The job's script, as a runner runs it (sh -e), with the job's variables and the
    predefined ones of a merge request's pipeline."""
    template = yaml.safe_load((SOURCE / "ci/gitlab/benchledger-gate.yml").read_text())
    job = template["benchledger-gate"]
    if "image" in job:
        fail(f"the template chooses the image ({job['image']}): that is the user's job's choice")
    job_variables = {k: str(v) for k, v in job["variables"].items()}
    unknown = set(variables) - set(job_variables)
    if unknown:
        fail(f"the job has no variables {sorted(unknown)}")
    job_variables.update(variables)
    env = dict(project.env, **job_variables, CI_PIPELINE_SOURCE="merge_request_event",
               CI_PROJECT_DIR=str(project.checkout), CI_API_V4_URL=f"{forge.url}/api/v4",
               CI_PROJECT_ID="42", CI_MERGE_REQUEST_IID="7",
               CI_MERGE_REQUEST_TARGET_BRANCH_NAME="main", CI_COMMIT_SHA=project.head,
               GITLAB_TOKEN=GITLAB_TOKEN)
    done = sh(["sh", "-e", "-c", "\n".join(job["script"])], project.checkout, env, check=False)
    def expand(path):
        return project.checkout / re.sub(r"\$(\w+)", lambda m: job_variables[m.group(1)], path)
    artifacts = job["artifacts"]
    if artifacts.get("when") != "always":
        fail("the job keeps its artifacts only when it passes")
    return done, [expand(p) for p in artifacts["paths"]], expand(artifacts["reports"]["junit"])


def expect_comment(forge, out, requests, method, path, header, token):
    """The requests of one posting: the list of comments, then one create or update."""
    comparison = (out / "comparison.md").read_text()
    if [r["method"] for r in requests] != ["GET", method]:
        fail(f"expected GET then {method}: {[(r['method'], r['path']) for r in requests]}")
    for request in requests:
        if request["headers"].get(header) != token:
            fail(f"{request['method']} {request['path']} has no {header} with the token: "
                 f"{request['headers']}")
    if requests[1]["path"] != path:
        fail(f"{method} went to {requests[1]['path']}, expected {path}")
    body = json.loads(requests[1]["body"])["body"]
    if body != f"{MARKER}\n{comparison}":
        fail(f"the comment is not the marker and comparison.md:\n{body[:400]}")


def ledger_base_commit(out):
    records = [json.loads(line) for line in (out / "ledger.ndjson").read_text().splitlines()]
    runs = {r["label"]: r for r in records if r["type"] == "run"}
    return runs["base"]["git"]["commit"], runs["head"]["git"]["commit"]


def verdicts(out):
    return {c["bench"]: c["verdict"]
            for c in json.loads((out / "comparison.json").read_text())["cases"]}


def expect_gate(project, out, done, status, expected):
    if status != expected:
        table = (out / "comparison.txt").read_text() if (out / "comparison.txt").exists() else ""
        fail(f"expected the gate's exit {expected}, got {status}:\n{done.stderr}\n{table}")
    base, head = ledger_base_commit(out)
    if (base, head) != (project.merge_base, project.head):
        fail(f"gated {base[:12]}..{head[:12]}; expected the merge base "
             f"{project.merge_base[:12]} (not main's tip {project.target[:12]}) and the head "
             f"{project.head[:12]}")


def expect_example(out):
    """docs/examples/comparison.md is what the gate writes, up to what changes between runs:
    numbers, ids and commits, and the warnings about the machine it ran on (quoted or folded
    lines that say warning, wherever the layout puts them)."""
    actual = (out / "comparison.md").read_text()
    golden = SOURCE / "docs/examples/comparison.md"
    if os.environ.get("BENCHLEDGER_UPDATE_GOLDEN") == "1":
        golden.write_text(actual)
        print(f"rewrote {golden}")
        return

    def shape(text):
        lines, folded = [], False
        for line in text.splitlines():
            folded = folded or line.startswith("<details")
            if not (folded or line.startswith(">") or re.search(r"(?i)\bwarning", line)):
                lines.append(line)
            folded = folded and "</details>" not in line
        return [re.sub(r"\b[0-9A-Z]{26}\b|\b[0-9a-f]{7,40}\b|[0-9][0-9.,]*", "#", line)
                for line in lines]
    expected, got = shape(golden.read_text()), shape(actual)
    for number, (e, a) in enumerate(zip(expected, got), 1):
        if e != a:
            fail(f"{golden} (BENCHLEDGER_UPDATE_GOLDEN=1 rewrites it) differs from what the gate "
                 f"wrote at line {number} of the shapes:\n  expected: {e}\n  actual:   {a}")
    if len(expected) != len(got):
        fail(f"{golden} has {len(expected)} lines of shape, the gate wrote {len(got)}:\n{actual}")


def fetched_gate_script(root, env):
    """A copy of benchledger's ci/ at a commit that is no branch's tip: the tip's gate.sh
    fails, so only a fetch of the commit itself gates."""
    repo = root / "benchledger-source"
    shutil.copytree(SOURCE / "ci", repo / "ci")
    sh(["git", "init", "-q", "-b", "main", str(repo)], root, env)
    sh(["git", "add", "-A"], repo, env)
    sh(["git", "commit", "-q", "-m", "ci"], repo, env)
    commit = sh(["git", "rev-parse", "HEAD"], repo, env).stdout.strip()
    (repo / "ci/gate.sh").write_text("#!/bin/sh\necho 'the branch tip, not the commit' >&2\n"
                                     "exit 97\n")
    sh(["git", "commit", "-q", "-am", "a later commit"], repo, env)
    return repo, commit


def main():
    for tool, package in (("git", "git"), ("curl", "curl"), (str(GO), "Go at /usr/local/go")):
        if shutil.which(tool) is None:
            fail(f"{tool} is not installed ({package})")
    with tempfile.TemporaryDirectory(prefix="gate-ci-test-") as scratch_name:
        scratch = pathlib.Path(scratch_name)
        bin_dir = scratch / "bin"
        bin_dir.mkdir()
        (bin_dir / "benchledger").symlink_to(BENCHLEDGER)
        home = scratch / "home"
        home.mkdir()
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("BENCHLEDGER_", "GITHUB_", "GITLAB_", "CI_"))}
        env.update(PATH=f"{bin_dir}:{GO.parent}:{env['PATH']}", HOME=str(home), NO_COLOR="1",
                   TMPDIR=str(scratch), GIT_CONFIG_GLOBAL=str(home / ".gitconfig"),
                   GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="Dev", GIT_COMMITTER_NAME="Dev",
                   GIT_AUTHOR_EMAIL="dev@example.org", GIT_COMMITTER_EMAIL="dev@example.org",
                   GOCACHE=str(GO_CACHE), GOPATH=str(scratch / "gopath"), GOTOOLCHAIN="local",
                   GOFLAGS="-buildvcs=false")
        go = Project(scratch, "go", GO_FILES,
                     {"main.go": GO_FILES["main.go"].replace("fib(n)", "fib(n+4)")}, env)
        python = Project(scratch, "python", PY_FILES,
                         PY_CHANGE, env)
        forge = Forge()
        threading.Thread(target=forge.serve_forever, daemon=True).start()
        try:
            gates(scratch, forge, go, python, env)
        finally:
            forge.shutdown()
            forge.server_close()
    print("gate ci templates: ok")


def gates(scratch, forge, go, python, env):
    gate_args = "--budget 0"
    github_thread = "/repos/octo/app/issues/7/comments"
    gitlab_thread = "/api/v4/projects/42/merge_requests/7/notes"

    # Where the comment goes is never guessed: without the switch the script refuses to start.
    done = sh(["bash", str(SOURCE / "ci/gate.sh")], go.checkout,
              dict(env, BENCHLEDGER_GATE_TARGET="origin/main"), check=False)
    if done.returncode != 2 or "BENCHLEDGER_GATE_COMMENT is not set" not in done.stderr \
            or (go.checkout / "benchledger-gate").exists():
        fail(f"without BENCHLEDGER_GATE_COMMENT the script must refuse to start: {done.stderr}")
    # A package that cannot be had, or a benchledger of another version, stops the job before
    # anything is measured. (A package that downloads is not installed here: apt-get would
    # install it into this machine's /usr. package_deb installs the package into a root of its
    # own.)
    for variables, says in (
            ({"BENCHLEDGER_DEB": f"{forge.url}/releases/v{{version}}/benchledger_{{version}}.deb",
              "BENCHLEDGER_VERSION": "9.9.9"},
             f"cannot download BENCHLEDGER_DEB={forge.url}/releases/v9.9.9/benchledger_9.9.9.deb"),
            ({"BENCHLEDGER_VERSION": "9.9.9"}, "BENCHLEDGER_VERSION=9.9.9, but")):
        done = sh(["bash", str(SOURCE / "ci/gate.sh")], go.checkout,
                  dict(env, BENCHLEDGER_GATE_TARGET="origin/main", BENCHLEDGER_GATE_COMMENT="none",
                       **variables), check=False)
        if done.returncode != 2 or says not in done.stderr or \
                (go.checkout / "benchledger-gate").exists():
            fail(f"{variables}: expected exit 2 saying {says!r}, got {done.returncode}: "
                 f"{done.stderr}")

    # Go on GitHub: the pull request has a comment of someone else's, so the gate's is created.
    forge.threads[github_thread] = [{"id": 1, "body": "looks good"}]
    seen = len(forge.requests)
    done, status, failed_job, artifact = run_github(
        go, forge, scratch, {"args": gate_args, "out": "gate-out", "benchledger-version":
                             sh([str(BENCHLEDGER), "--version"], scratch, env).stdout.split()[1]})
    out = go.checkout / "gate-out"
    expect_gate(go, out, done, status, 1)
    if verdicts(out) != {"fib": "regression"} or not failed_job:
        fail(f"fib is no regression, or the job passed: {verdicts(out)}, {failed_job}")
    if artifact != out or not (artifact / "comparison.md").is_file():
        fail(f"the artifact {artifact} is not the gate's --out {out}")
    expect_comment(forge, out, forge.requests[seen:], "POST", github_thread, "Authorization",
                   f"Bearer {GITHUB_TOKEN}")
    expect_example(out)

    # Go on GitLab, gate.sh fetched at a commit: the merge request's note exists and is updated.
    source_repo, commit = fetched_gate_script(scratch, env)
    forge.threads[gitlab_thread] = [{"id": 5, "body": f"{MARKER}\nan earlier push's comparison"}]
    seen = len(forge.requests)
    done, paths, junit = run_gitlab(go, forge, {
        "BENCHLEDGER_REPOSITORY": str(source_repo), "BENCHLEDGER_REF": commit,
        "BENCHLEDGER_GATE_ARGS": gate_args, "BENCHLEDGER_GATE_OUT": "gitlab-out"})
    out = go.checkout / "gitlab-out"
    expect_gate(go, out, done, done.returncode, 1)
    if paths != [out] or junit != out / "comparison.xml" or not junit.is_file():
        fail(f"the artifacts {paths}, {junit} do not follow BENCHLEDGER_GATE_OUT ({out})")
    expect_comment(forge, out, forge.requests[seen:], "PUT", f"{gitlab_thread}/5",
                   "PRIVATE-TOKEN", GITLAB_TOKEN)

    # Python on GitHub, where the gate's comment of an earlier push is updated; the head adds a
    # benchmark and decides nothing else, so the gate is undecided and passes, and so does the job.
    forge.threads[github_thread] = [{"id": 9, "body": f"{MARKER}\nan earlier push's comparison"}]
    seen = len(forge.requests)
    done, status, failed_job, artifact = run_github(python, forge, scratch, {"args": gate_args})
    out = python.checkout / "benchledger-gate"
    expect_gate(python, out, done, status, 0)
    expected = {"parse": "inconclusive", "render": "inconclusive", "dump": "new"}
    if verdicts(out) != expected or failed_job:
        fail(f"expected {expected} and a job that passes: {verdicts(out)}, {failed_job}")
    expect_comment(forge, out, forge.requests[seen:], "PATCH", "/repos/octo/app/issues/comments/9",
                   "Authorization", f"Bearer {GITHUB_TOKEN}")

    # Python on GitLab with the project's own copy of gate.sh: a first note.
    forge.threads[gitlab_thread] = []
    seen = len(forge.requests)
    done, paths, junit = run_gitlab(python, forge, {
        "BENCHLEDGER_GATE_SCRIPT": str(SOURCE / "ci/gate.sh"),
        "BENCHLEDGER_GATE_ARGS": gate_args})
    out = python.checkout / "benchledger-gate"
    expect_gate(python, out, done, done.returncode, 0)
    if paths != [out] or not junit.is_file():
        fail(f"the artifacts {paths}, {junit} are not the gate's --out {out}")
    expect_comment(forge, out, forge.requests[seen:], "POST", gitlab_thread, "PRIVATE-TOKEN",
                   GITLAB_TOKEN)


main()
