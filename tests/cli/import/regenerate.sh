#!/bin/sh
# Regenerates the committed import fixtures under tests/cli/import/fixtures/ with the real tools:
#   tests/cli/import/regenerate.sh [FORMAT...]     (default: every format below)
# For each format it runs the tool once (base) and writes the slowed copy with
# inject_slowdown.py (one benchmark 20% slower), which the end-to-end tests in
# tests/cli/run_import_fixture_test.cpp import and compare. Tools: catch2 is Debian's catch2 with
# g++; asv and pyperf are pinned in tools/python-requirements.txt (tools/setup puts them in
# .venv/); mitata comes from npm (Debian's nodejs and npm), pinned by the package-lock.json in
# its fixture folder, and so are vitest and tinybench.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
fixtures=$here/fixtures
python=$root/.venv/bin/python
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

catch2() {
  out=$fixtures/catch2
  # Built and run in the work folder: the XML names the source and the executable, and the
  # checkout's path has no place in a fixture.
  cp "$out/bench.cpp" "$work/bench.cpp"
  (cd "$work" && g++ -O2 -std=c++17 -o catch2-bench bench.cpp)
  (cd "$work" && ./catch2-bench -r xml --benchmark-samples 20 > "$out/base.xml")
  "$python" "$here/inject_slowdown.py" catch2 "$out/base.xml" "$out/slowed.xml" "sum 1024"
}

asv() {
  out=$fixtures/asv
  cp -r "$out/project" "$work/asv"
  cd "$work/asv"
  git init -q . && git add -A
  git -c user.name=fixture -c user.email=fixture@example.com commit -qm fixture
  # asv keeps its machine description in ~/.asv-machine.json: a throwaway HOME keeps it there.
  # The machine's name is the host's, as asv's own default.
  HOME=$work "$root/.venv/bin/asv" machine --yes > /dev/null
  HOME=$work "$root/.venv/bin/asv" run --python=same --record-samples -a repeat=20 \
    -a warmup_time=0 --set-commit-hash "$(git rev-parse HEAD)" > /dev/null
  mkdir -p "$out/results/fixture"
  cp results/benchmarks.json "$out/results/benchmarks.json"
  cp results/*/*-existing-*.json "$out/results/fixture/base.json"
  cd "$root"
  "$python" "$here/inject_slowdown.py" asv "$out/results/fixture/base.json" \
    "$out/results/fixture/slowed.json" "bench_tiny.time_sum"
}

pyperf() {
  out=$fixtures/pyperf
  # 20 processes of 5 values: 100 samples a benchmark.
  (cd "$work" && "$python" "$out/bench.py" --processes 20 --values 5 --warmups 1 -q \
    -o "$work/pyperf.json")
  cp "$work/pyperf.json" "$out/base.json"
  "$python" "$here/inject_slowdown.py" pyperf "$out/base.json" "$out/slowed.json" "sort_1000"
}

mitata() {
  out=$fixtures/mitata
  # mitata as package-lock.json pins it, into the git-ignored node_modules/ beside it.
  (cd "$out" && npm ci --no-audit --no-fund > /dev/null)
  (cd "$out" && node bench.mjs > "$work/mitata.json")
  # context.noop is mitata's measurement of an empty function, a million samples (over 20 MB)
  # that no importer reads: left out of the committed file, which is otherwise mitata's own.
  "$python" -c 'import json, sys; d = json.load(open(sys.argv[1])); d["context"].pop("noop", None); json.dump(d, open(sys.argv[2], "w"))' \
    "$work/mitata.json" "$out/base.json"
  "$python" "$here/inject_slowdown.py" mitata "$out/base.json" "$out/slowed.json" "sort 50000"
}

# vitest and tinybench (npm, pinned by the package-lock.json in each fixture folder).
vitest() {
  out=$fixtures/vitest
  # Run in a copy in the work folder: vitest writes each file's absolute path, and the
  # checkout's path has no place in a fixture.
  mkdir -p "$work/vitest"
  cp -r "$out/package.json" "$out/package-lock.json" "$out/bench" "$work/vitest/"
  (cd "$work/vitest" && npm ci --no-audit --no-fund > /dev/null)
  (cd "$work/vitest" && ./node_modules/.bin/vitest bench --run bench/sort.bench.js \
    bench/sum.bench.js --outputJson "$out/base.json" > /dev/null)
  # A benchmark that throws: vitest still exits 0 and writes it, without statistics.
  (cd "$work/vitest" && ./node_modules/.bin/vitest bench --run bench/fails.bench.js \
    --outputJson "$out/failed.json" > /dev/null)
  "$python" "$here/inject_slowdown.py" vitest "$out/base.json" "$out/slowed.json" \
    "bench/sort.bench.js > sort > size=10000"
}

tinybench() {
  out=$fixtures/tinybench
  # tinybench as package-lock.json pins it, into the git-ignored node_modules/ beside it.
  (cd "$out" && npm ci --no-audit --no-fund > /dev/null)
  (cd "$out" && node bench.mjs > base.json)
  (cd "$out" && node bench.mjs failing > failed.json)
  (cd "$out" && node bench.mjs statistics > statistics.json)
  "$python" "$here/inject_slowdown.py" tinybench "$out/base.json" "$out/slowed.json" \
    "sort size=10000"
}

pgbench() {
  # The real pgbench output the unit tests read (made by pgbench 15 against the throwaway
  # server of tools/test) is the base; only the slowed copy is written here.
  mkdir -p "$fixtures/pgbench"
  "$python" "$here/inject_slowdown.py" pgbench "$root/tests/unit/import/pgbench/tpcb_output.txt" \
    "$fixtures/pgbench/slowed.txt" \
    "UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;"
}

# The quick harnesses, which the tests also run live (tests/cli/run_import_harness_test.cpp): their
# committed outputs are what the two-output comparisons import, so that the verdict each test
# expects does not depend on how loaded the machine running the tests is. Each has about a
# hundred samples a benchmark.
google_benchmark() {
  out=$fixtures/google-benchmark
  g++ -O2 -std=c++17 -o "$work/gbench" "$root/tests/cli/run_gbench_fixture.cpp" -lbenchmark -lpthread
  (cd "$work" && ./gbench --benchmark_filter='BM_Empty|BM_SumItems' --benchmark_repetitions=120 \
    --benchmark_min_time=0.002 --benchmark_out_format=json --benchmark_out="$out/base.json" \
    > /dev/null)
  "$python" "$here/inject_slowdown.py" google-benchmark "$out/base.json" "$out/slowed.json" \
    "BM_SumItems/64"
}

hyperfine() {
  out=$fixtures/hyperfine
  /usr/bin/hyperfine -N --runs 100 --export-json "$out/base.json" 'sleep 0.01' 'sleep 0.02' \
    > /dev/null
  "$python" "$here/inject_slowdown.py" hyperfine "$out/base.json" "$out/slowed.json" "sleep 0.02"
}

pytest_benchmark() {
  out=$fixtures/pytest-benchmark
  cp "$out/test_tiny.py" "$work/test_tiny.py"
  (cd "$work" && "$python" -m pytest -q -p no:cacheprovider --benchmark-json="$out/base.json" \
    --benchmark-save-data --benchmark-min-rounds=100 --benchmark-max-time=0.000001 test_tiny.py \
    > /dev/null)
  "$python" "$here/inject_slowdown.py" pytest-benchmark "$out/base.json" "$out/slowed.json" \
    "test_tiny.py::test_sum[512]"
}

go_test() {
  out=$fixtures/go-test
  cp -r "$out/pkg" "$work/go"
  for events in txt json; do
    flag=$([ "$events" = json ] && echo -json || true)
    # $flag is empty or one word.
    # shellcheck disable=SC2086
    (cd "$work/go" && GOCACHE="$work/go/.gocache" GOPATH="$work/go/.gopath" GOFLAGS=-mod=mod \
      go test $flag -run '^$' -bench . -benchtime 5000x -count 100 . > "$out/base.$events")
    "$python" "$here/inject_slowdown.py" go-test "$out/base.$events" "$out/slowed.$events" \
      "BenchmarkSum/size=64"
  done
}

# Rust criterion and JMH. criterion: the crate in fixtures/criterion/project/ (criterion pinned by
# its Cargo.lock; cargo-criterion 1.1.0 installed into project/.cargo-tools/), with CARGO_HOME
# and target/ git-ignored inside it. JMH: the Maven project in fixtures/jmh/project/ (versions
# pinned in its pom.xml), its repository git-ignored in project/.m2/; Java 17 from Debian.
cargo_bin=$(command -v cargo || echo "$HOME/.cargo/bin/cargo")

criterion() {
  out=$fixtures/criterion
  project=$out/project
  rm -rf "$project/target/criterion"
  (cd "$project" && CARGO_HOME=$project/.cargo-home "$cargo_bin" bench --locked --bench tiny \
    > /dev/null)
  # Of each benchmark's folders, `new` is the run's (criterion copies it to `base` for the next).
  rm -rf "$out/base" "$out/slowed"
  (cd "$project/target/criterion" && find . -path '*/new/*.json' -exec sh -c \
    'mkdir -p "$0/$(dirname "$1")" && cp "$1" "$0/$1"' "$out/base" {} \;)
  "$python" "$here/inject_slowdown.py" criterion "$out/base" "$out/slowed" "sum/iter/1024"
  # cargo-criterion's messages, made from a copy of the crate in the work folder: they name
  # their report folder, and the checkout's path has no place in a fixture.
  CARGO_HOME=$project/.cargo-home "$cargo_bin" install cargo-criterion --version 1.1.0 --locked \
    --root "$project/.cargo-tools" > /dev/null 2>&1
  mkdir "$work/criterion"
  cp -r "$project/Cargo.toml" "$project/Cargo.lock" "$project/src" "$project/benches" \
    "$work/criterion/"
  (cd "$work/criterion" && CARGO_HOME=$project/.cargo-home PATH=$project/.cargo-tools/bin:$PATH \
    "$cargo_bin" criterion --locked --bench tiny --message-format=json > "$out/messages.ndjson")
  "$python" "$here/inject_slowdown.py" criterion "$out/messages.ndjson" \
    "$out/messages-slowed.ndjson" "sum/iter/1024"
}

jmh() {
  out=$fixtures/jmh
  project=$out/project
  (cd "$project" && mvn -q -B -Dmaven.repo.local="$project/.m2" compile \
    dependency:build-classpath -Dmdep.outputFile="$project/target/classpath.txt" > /dev/null)
  # 2 forks of 10 iterations of 100 ms: 20 samples a benchmark; -prof gc adds the allocation
  # metrics.
  (cd "$work" && java -cp "$project/target/classes:$(cat "$project/target/classpath.txt")" \
    org.openjdk.jmh.Main -f 2 -wi 2 -i 10 -w 100ms -r 100ms -prof gc -rf json \
    -rff "$work/jmh.json" > /dev/null)
  cp "$work/jmh.json" "$out/base.json"
  "$python" "$here/inject_slowdown.py" jmh "$out/base.json" "$out/slowed.json" \
    "bench.Tiny.sum size=1024"
}

[ $# -gt 0 ] || set -- catch2 asv pyperf mitata pgbench google_benchmark hyperfine \
  pytest_benchmark go_test criterion jmh vitest tinybench
for format in "$@"; do "$format"; done
