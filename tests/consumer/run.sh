#!/usr/bin/env bash
# Installs the build tree into a temporary prefix and builds tests/consumer against it with
# find_package(benchledger), then runs the result and the installed links.
set -euo pipefail
build=$1
source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$source/tests/consumer" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/build" >/dev/null
"$work/build/consumer"
for link in bench-run bench-compare bench-report bench-ledger; do
  test -L "$work/prefix/bin/$link" || { echo "missing installed link $link" >&2; exit 1; }
done
"$work/prefix/bin/benchledger" --version
