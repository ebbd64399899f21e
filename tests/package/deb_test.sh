#!/usr/bin/env bash
# The Debian package CPack makes installs a working benchledger: dpkg-deb's view of the package
# (fields, dependencies from dpkg-shlibdeps, files), dpkg installing it into a throwaway root,
# and the installed binary, man pages and completions used from there.
#
# Usage: deb_test.sh BUILD_DIR PROJECT_VERSION. The package is made from BUILD_DIR, the tree this
# test runs in, by the same install rules and CPack settings as `cmake --build --preset release
# --target package`; only the build type differs (a release build here would cost minutes).
set -euo pipefail
# grep reads its whole input (never -q in a pipe): -q stops at the first match, and the writer
# then dies of SIGPIPE, which pipefail reports as a failure.
build=$1
version=$2
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
for tool in cpack:cmake dpkg-deb:dpkg dpkg:dpkg dpkg-shlibdeps:dpkg-dev help2man:help2man zsh:zsh; do
  command -v "${tool%%:*}" >/dev/null || fail "${tool%%:*} is not installed: apt-get install ${tool#*:}"
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cpack --config "$build/CPackConfig.cmake" -B "$work/out" >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log" >&2; fail "cpack failed"; }
debs=("$work"/out/benchledger_"$version"_*.deb)
[ -f "${debs[0]}" ] || fail "cpack wrote no benchledger_${version}_*.deb: $(ls "$work/out")"
deb=${debs[0]}

# The control fields, as dpkg-deb reads them.
field() { dpkg-deb --field "$deb" "$1"; }
[ "$(field Package)" = benchledger ] || fail "Package is $(field Package)"
[ "$(field Version)" = "$version" ] || fail "Version is $(field Version), not $version"
[ "$(field Architecture)" = "$(dpkg --print-architecture)" ] || fail "Architecture is $(field Architecture)"
dpkg-deb --info "$deb" | grep "^ Description: benchmark results you can trust" >/dev/null ||
  fail "no Description: $(dpkg-deb --info "$deb")"
# Depends comes from dpkg-shlibdeps: the Debian packages of the libraries the binary links.
depends=$(field Depends)
for package in libc6 'libstdc\+\+6' libsqlite3-0 libssl3 libpq5 'libpqxx-[0-9.]+' 'libfmt[0-9]+' \
  'libsimdjson[0-9]+'; do
  grep -Eq "(^|, )$package( |,|$)" <<<"$depends" || fail "Depends lacks $package: $depends"
done
# Every dependency is installed here, so dpkg finds nothing missing for this package.
dpkg --dry-run --force-not-root --install "$deb" >"$work/dry-run.log" 2>&1 ||
  { cat "$work/dry-run.log" >&2; fail "dpkg --dry-run --install refused the package"; }

# The files, as dpkg-deb lists them (links as `name -> target`).
dpkg-deb --contents "$deb" | awk '{ $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +/, ""); print }' \
  >"$work/contents"
expect() { grep -qxF "$1" "$work/contents" || fail "the package has no $1"; }
expect ./usr/bin/benchledger
for command in run compare report ledger gate; do
  expect "./usr/bin/bench-$command -> benchledger"
  expect "./usr/share/man/man1/bench-$command.1.gz"
  expect "./usr/share/bash-completion/completions/bench-$command -> benchledger"
done
expect ./usr/share/man/man1/benchledger.1.gz
expect ./usr/share/bash-completion/completions/benchledger
expect ./usr/share/zsh/vendor-completions/_benchledger
expect ./usr/include/benchledger/benchledger.hpp
expect ./usr/include/benchledger/record.hpp
expect ./usr/lib/libbenchledger.a
expect ./usr/lib/libbenchledger_main.a
expect ./usr/lib/cmake/benchledger/benchledgerConfig.cmake
expect ./usr/lib/cmake/benchledger/benchledgerTargets.cmake
expect ./usr/share/doc/benchledger/README.md
expect ./usr/share/doc/benchledger/docs/install.md

# Installed by dpkg into an empty root (whose own database has no libc6: --force-depends; the
# dry run above checked the dependencies against this machine's).
root=$work/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
dpkg --root="$root" --force-depends --force-not-root --force-script-chrootless --install "$deb" \
  >"$work/install.log" 2>&1 || { cat "$work/install.log" >&2; fail "dpkg --root --install failed"; }
dpkg --root="$root" --status benchledger | grep -x "Status: install ok installed" >/dev/null ||
  fail "dpkg does not list benchledger as installed in $root"

printed=$("$root/usr/bin/bench-run" --version)
[ "$printed" = "$("$build/bin/bench-run" --version)" ] ||
  fail "the installed bench-run --version printed '$printed'"
[[ $printed == "bench-run (benchledger) $version"* ]] || fail "bench-run --version printed '$printed'"
(cd "$work" && "$root/usr/bin/bench-run" --ledger "$work/ledger.ndjson" --runs 2 --warmup 0 \
  -- true >"$work/run.log" 2>&1) || { cat "$work/run.log" >&2; fail "the installed bench-run could not measure \`true\`"; }
"$root/usr/bin/bench-ledger" verify --ledger "$work/ledger.ndjson" >/dev/null ||
  fail "the installed bench-ledger could not verify the ledger it wrote"

# A man page per command, from its --help.
page=$(zcat "$root/usr/share/man/man1/bench-run.1.gz")
grep -q '^\.TH BENCH-RUN "1"' <<<"$page" || fail "bench-run.1 is not the page of bench-run"
grep -q 'ledger' <<<"$page" || fail "bench-run.1 does not describe --ledger"

# The completions complete: bash's function, and zsh's script with compadd standing in for zsh's
# completion system (which needs a terminal).
completions=$root/usr/share/bash-completion/completions
bash_complete() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _benchledger
           printf "%s\n" "${COMPREPLY[@]}"' _ "$completions/benchledger" "$@"
}
[ "$(bash_complete bench-run --le)" = --ledger ] || fail "bash completes 'bench-run --le' to '$(bash_complete bench-run --le)'"
[ "$(bash_complete benchledger ledger ver)" = verify ] || fail "bash completes 'benchledger ledger ver' wrongly"
[ "$(bash_complete benchledger co)" = compare ] || fail "bash completes 'benchledger co' wrongly"
zsh_complete() {
  zsh -f -c 'compadd() { print -l -- "${@:2}" }; service=$2; words=("${@:2}"); CURRENT=$(($# - 1))
             PREFIX=${@[-1]}; source "$1"' _ "$root/usr/share/zsh/vendor-completions/_benchledger" "$@"
}
zsh_complete bench-run --le | grep -x -- --ledger >/dev/null || fail "zsh offers no --ledger after bench-run"
zsh_complete benchledger ledger ver | grep -x verify >/dev/null || fail "zsh offers no verify after benchledger ledger"
echo "$deb: $(du -k "$deb" | cut -f1) KiB; Depends: $depends"
