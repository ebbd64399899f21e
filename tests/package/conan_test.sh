#!/usr/bin/env bash
# The Conan recipe works with the real Conan client: `conan create` with the profile that takes
# every dependency from Debian's packages, then a consumer's conanfile.txt project that finds the
# package with find_package(benchledger), builds a BENCHLEDGER_MAIN program and runs it into a
# ledger, whose run says which benchledger (version and commit) measured it.
#
# Usage: conan_test.sh SOURCE_DIR SCRATCH_DIR PROJECT_VERSION. SCRATCH_DIR is emptied first; it
# holds CONAN_HOME, so the user's own Conan cache is never touched.
set -euo pipefail
source=$1
scratch=$2
version=$3
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
conan=$source/.venv/bin/conan
[ -x "$conan" ] || fail "$conan is missing: run tools/setup (it installs tools/python-requirements.txt)"
command -v git >/dev/null || fail "git is not installed: apt-get install git"
rm -rf "$scratch"
mkdir -p "$scratch"
export CONAN_HOME=$scratch/home
# The package is built in a folder of a random name: ccache, when there, shares objects between
# runs only with paths taken relative to the cache.
export CCACHE_BASEDIR=$CONAN_HOME
command -v ccache >/dev/null && export CMAKE_CXX_COMPILER_LAUNCHER=ccache
profile=$source/conan/profiles/debian12

"$conan" profile detect >"$scratch/detect.log" 2>&1 || { cat "$scratch/detect.log" >&2; fail "conan profile detect failed"; }
"$conan" create "$source/conan" --profile:all="$profile" --no-remote >"$scratch/create.log" 2>&1 ||
  { tail -60 "$scratch/create.log" >&2; fail "conan create failed"; }
# Every requirement came from the platform: nothing was fetched or built but benchledger.
grep -q "fmt/9.1.0#platform - Platform" "$scratch/create.log" ||
  { grep -A12 "Requirements" "$scratch/create.log" >&2; fail "fmt did not come from the platform"; }

# The consumer is built from its folder in this repository into the scratch folder (no
# CMakeUserPresets.json written next to its conanfile.txt).
consumer=$source/tests/package/conan_consumer
out=$scratch/consumer
"$conan" install "$consumer" --output-folder="$out" --profile:all="$profile" --no-remote \
  -c tools.cmake.cmaketoolchain:user_presets="" >"$scratch/install.log" 2>&1 ||
  { tail -40 "$scratch/install.log" >&2; fail "conan install of the consumer failed"; }
toolchain=$(find "$out" -name conan_toolchain.cmake)
[ -f "$toolchain" ] || fail "conan install wrote no conan_toolchain.cmake under $out"
cmake -S "$consumer" -B "$out/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_TOOLCHAIN_FILE="$toolchain" >"$scratch/configure.log" 2>&1 ||
  { cat "$scratch/configure.log" >&2; fail "the consumer's find_package(benchledger) failed"; }
cmake --build "$out/build" >"$scratch/build.log" 2>&1 ||
  { cat "$scratch/build.log" >&2; fail "the consumer did not build"; }
grep -q "^benchledger_DIR:PATH=$CONAN_HOME/p/" "$out/build/CMakeCache.txt" ||
  fail "the consumer did not find benchledger in the Conan cache: $(grep benchledger_DIR "$out/build/CMakeCache.txt")"

(cd "$scratch" && "$out/build/consumer_benchmarks" --ledger "$scratch/ledger.ndjson" \
  --repetitions 3 --warmup 0 --min-time 0.001 --quiet) || fail "the consumer's program failed"
describe=$(git -C "$source" describe --tags --match 'v[0-9]*' --always --dirty --abbrev=12)
/usr/bin/python3 - "$scratch/ledger.ndjson" "$version (git $describe)" <<'PY'
import json, sys
records = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
run, results = records[0], records[1:]
assert run["type"] == "run" and run["source"] == "native", run
assert run["env"]["runtimes"]["build_type"] == "Release", run["env"]["runtimes"]
assert run["env"]["runtimes"]["benchledger"] == sys.argv[2], (run["env"]["runtimes"], sys.argv[2])
assert [r["bench"] for r in results] == ["consumer/sum", "consumer/sum", "consumer/lookup"], results
PY
echo "conan create and the consumer: $(grep -c . "$scratch/ledger.ndjson") records by benchledger $version (git $describe)"
