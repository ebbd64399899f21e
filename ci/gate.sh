#!/usr/bin/env bash
# ci/gate.sh: a pull request's benchmark gate, in the user's repository (the current directory),
# as the GitHub action (ci/github/action.yml) and the GitLab template
# (ci/gitlab/benchledger-gate.yml) run it. Everything it needs comes from environment variables,
# so that both templates (and a local shell) call it the same way. It finds or installs
# benchledger, runs `benchledger gate` on the merge base of the target and the head, posts or
# updates one comment with comparison.md, and exits with the gate's status: 0 pass, 1 fail,
# 2 error.
#
# Environment (docs/ci-gate.md, "ci/gate.sh"):
#   BENCHLEDGER_GATE_COMMENT  required: where the comment goes. `github`, `gitlab`, or `none`
#                             (no comment: forks, local runs). Nothing is skipped silently: a
#                             comment that cannot be posted is reported on stderr.
#   BENCHLEDGER_GATE_TARGET   what the change merges into (a branch such as origin/main, or a
#                             commit): the base is `git merge-base TARGET HEAD`, so that what
#                             others merged into the target since is not credited to the change
#   BENCHLEDGER_GATE_BASE     instead of TARGET: the base revision itself, used as it is
#   BENCHLEDGER_GATE_HEAD     the revision judged (default HEAD)
#   BENCHLEDGER_GATE_ARGS     more flags for `benchledger gate`, split at white space
#   BENCHLEDGER_GATE_OUT      the gate's --out (default benchledger-gate)
# Which benchledger, the first of these that applies:
#   BENCHLEDGER_BIN           an executable benchledger
#   BENCHLEDGER_DEB           the URL (or path) of the Debian package that `cmake --workflow
#                             --preset package` makes, where {version} stands for
#                             BENCHLEDGER_VERSION; installed with apt-get (sudo when not root)
#   `benchledger` on PATH
#   BENCHLEDGER_SOURCE        a source tree to build and install into BENCHLEDGER_PREFIX: a
#                             directory, or a git URL with BENCHLEDGER_REF (a tag, branch or
#                             commit); default: the source tree this script is part of, if it is
#                             one. BENCHLEDGER_APT=1 (or true) installs the build's dependencies
#                             with apt-get first.
#   BENCHLEDGER_VERSION       when set, the benchledger chosen must say it is this version
# Posting:
#   github:  GITHUB_TOKEN, GITHUB_REPOSITORY, BENCHLEDGER_GATE_PR (the pull request's number),
#            GITHUB_API_URL (default https://api.github.com)
#   gitlab:  GITLAB_TOKEN (a project access token with the api scope), CI_API_V4_URL,
#            CI_PROJECT_ID, CI_MERGE_REQUEST_IID
set -euo pipefail

say() { echo "ci/gate.sh: $*" >&2; }
refuse() {
  say "$*"
  exit 2
}

[[ $# -eq 0 ]] || refuse "takes no arguments (got $*): it reads BENCHLEDGER_GATE_* variables" \
  "(docs/ci-gate.md, \"ci/gate.sh\")"

comment=${BENCHLEDGER_GATE_COMMENT-}
case $comment in
  github | gitlab | none) ;;
  "") refuse "BENCHLEDGER_GATE_COMMENT is not set: say where the comment goes (github, gitlab)" \
    "or that there is none (none)" ;;
  *) refuse "BENCHLEDGER_GATE_COMMENT=$comment: expected github, gitlab or none" ;;
esac
if [[ $comment != none ]]; then
  for tool in curl python3; do
    command -v "$tool" >/dev/null ||
      refuse "BENCHLEDGER_GATE_COMMENT=$comment: posting the comment needs $tool, which the" \
        "job's image does not have"
  done
fi
out=${BENCHLEDGER_GATE_OUT:-benchledger-gate}
head=${BENCHLEDGER_GATE_HEAD:-HEAD}
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
scratch=${RUNNER_TEMP:-${TMPDIR:-/tmp}}

as_root() {
  if [[ $(id -u) -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null; then
    sudo "$@"
  else
    refuse "installing needs root, and there is no sudo: $*"
  fi
}

install_deb() {
  local source=$BENCHLEDGER_DEB deb
  if [[ $source == *"{version}"* ]]; then
    [[ -n ${BENCHLEDGER_VERSION:-} ]] ||
      refuse "BENCHLEDGER_DEB=$source has {version}, but BENCHLEDGER_VERSION is not set"
    source=${source//"{version}"/$BENCHLEDGER_VERSION}
  fi
  deb=$source
  if [[ $source == *://* ]]; then
    deb=$(mktemp -d "$scratch/benchledger-deb.XXXXXX")/benchledger.deb
    say "downloading $source"
    curl --fail --location --silent --show-error --output "$deb" "$source" ||
      refuse "cannot download BENCHLEDGER_DEB=$source (see curl's message above)"
  fi
  [[ -f $deb ]] || refuse "BENCHLEDGER_DEB=$deb is no file"
  [[ $deb == /* ]] || deb=$PWD/$deb  # apt-get takes a package file only by its path
  say "installing $deb with apt-get"
  as_root apt-get update -qq >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >&2 ||
    refuse "apt-get could not install $deb: the package is built for Debian 12 (bookworm);" \
      "run the job in a bookworm image, or build from source (BENCHLEDGER_SOURCE)"
  BENCHLEDGER_BIN=/usr/bin/benchledger
}

# A source tree for BENCHLEDGER_SOURCE: a directory as it is; a git URL at BENCHLEDGER_REF,
# fetched by itself (`git clone --branch` takes no commit, a fetch of the ref does).
source_tree() {
  local source=${BENCHLEDGER_SOURCE:-}
  if [[ -z $source ]]; then
    [[ -f $script_dir/../CMakeLists.txt ]] ||
      refuse "no benchledger to use: set BENCHLEDGER_DEB to the package's URL, put benchledger" \
        "on PATH, or set BENCHLEDGER_SOURCE (and BENCHLEDGER_REF) to build it"
    cd "$script_dir/.." && pwd
    return
  fi
  if [[ -d $source ]]; then
    cd "$source" && pwd
    return
  fi
  [[ -n ${BENCHLEDGER_REF:-} ]] ||
    refuse "BENCHLEDGER_SOURCE=$source is a repository: BENCHLEDGER_REF must say which tag," \
      "branch or commit to build"
  local tree
  tree=$(mktemp -d "$scratch/benchledger-source.XXXXXX")
  say "fetching $BENCHLEDGER_REF of $source"
  git -C "$tree" init -q >&2
  git -C "$tree" fetch -q --depth 1 "$source" "$BENCHLEDGER_REF" >&2 ||
    refuse "cannot fetch $BENCHLEDGER_REF of $source"
  git -C "$tree" checkout -q FETCH_HEAD >&2
  echo "$tree"
}

install_dependencies() {
  as_root apt-get update -qq >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    cmake ninja-build g++ pkg-config git ca-certificates curl python3 libfmt-dev \
    nlohmann-json3-dev libcli11-dev libsqlite3-dev libpqxx-dev libpq-dev libssl-dev \
    libsimdjson-dev >&2
}

build_from_source() {
  local tree prefix=${BENCHLEDGER_PREFIX:-$scratch/benchledger}
  tree=$(source_tree)
  [[ ${BENCHLEDGER_APT:-0} == 1 || ${BENCHLEDGER_APT:-0} == true ]] && install_dependencies
  say "building benchledger from $tree into $prefix"
  cmake -S "$tree" -B "$prefix/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DBENCHLEDGER_BUILD_TESTS=OFF -DBENCHLEDGER_BUILD_BENCH=OFF -DBENCHLEDGER_HELP_FILES=OFF >&2
  cmake --build "$prefix/build" >&2
  cmake --install "$prefix/build" --prefix "$prefix" >&2
  BENCHLEDGER_BIN=$prefix/bin/benchledger
}

if [[ -n ${BENCHLEDGER_BIN:-} ]]; then
  :
elif [[ -n ${BENCHLEDGER_DEB:-} ]]; then
  install_deb
elif command -v benchledger >/dev/null; then
  BENCHLEDGER_BIN=$(command -v benchledger)
else
  build_from_source
fi
[[ -x $BENCHLEDGER_BIN ]] || refuse "BENCHLEDGER_BIN=$BENCHLEDGER_BIN is not executable"
version=$("$BENCHLEDGER_BIN" --version)
say "using $BENCHLEDGER_BIN: $version"
if [[ -n ${BENCHLEDGER_VERSION:-} ]]; then
  read -r _ actual _ <<<"$version"
  [[ $actual == "$BENCHLEDGER_VERSION" ]] ||
    refuse "BENCHLEDGER_VERSION=$BENCHLEDGER_VERSION, but $BENCHLEDGER_BIN is $actual"
fi

if [[ -n ${BENCHLEDGER_GATE_BASE:-} ]]; then
  base=$BENCHLEDGER_GATE_BASE
elif [[ -n ${BENCHLEDGER_GATE_TARGET:-} ]]; then
  base=$(git merge-base "$BENCHLEDGER_GATE_TARGET" "$head") ||
    refuse "no merge base of BENCHLEDGER_GATE_TARGET=$BENCHLEDGER_GATE_TARGET and $head (is" \
      "the history fetched in full? fetch-depth: 0 on GitHub, GIT_DEPTH: 0 on GitLab)"
  say "base: $base, the merge base of $BENCHLEDGER_GATE_TARGET and $head"
else
  refuse "set BENCHLEDGER_GATE_TARGET (what the change merges into) or BENCHLEDGER_GATE_BASE"
fi
read -r -a flags <<<"${BENCHLEDGER_GATE_ARGS:-}"

status=0
"$BENCHLEDGER_BIN" gate "$base" "$head" --out "$out" "${flags[@]}" || status=$?

# Marks the comment, so that the next push updates it instead of adding another.
marker='<!-- benchledger-gate -->'

# The JSON body of a comment: the marker, then comparison.md.
comment_json() {
  python3 -c 'import json, sys
print(json.dumps({"body": sys.argv[1] + "\n" + open(sys.argv[2], encoding="utf-8").read()}))' \
    "$marker" "$out/comparison.md"
}

# The id of the first comment (of a JSON list on stdin) whose body starts with the marker.
marked_id() {
  python3 -c 'import json, sys
ids = [c["id"] for c in json.load(sys.stdin) if c.get("body", "").startswith(sys.argv[1])]
print(ids[0] if ids else "")' "$marker"
}

# Each step returns on failure by itself: the posting runs as a condition, where set -e does
# not apply, and a listing that failed must not add a second comment.
post_github() {
  : "${GITHUB_TOKEN:?}" "${GITHUB_REPOSITORY:?}" "${BENCHLEDGER_GATE_PR:?}"
  local api=${GITHUB_API_URL:-https://api.github.com} auth listing id body
  auth=(--header "Authorization: Bearer $GITHUB_TOKEN" --header "Accept: application/vnd.github+json")
  listing=$(curl --fail --silent --show-error "${auth[@]}" \
    "$api/repos/$GITHUB_REPOSITORY/issues/$BENCHLEDGER_GATE_PR/comments?per_page=100") || return 1
  id=$(marked_id <<<"$listing") || return 1
  body=$(comment_json) || return 1
  if [[ -n $id ]]; then
    curl --fail --silent --show-error "${auth[@]}" --request PATCH --data-binary @- \
      "$api/repos/$GITHUB_REPOSITORY/issues/comments/$id" <<<"$body" >/dev/null
  else
    curl --fail --silent --show-error "${auth[@]}" --request POST --data-binary @- \
      "$api/repos/$GITHUB_REPOSITORY/issues/$BENCHLEDGER_GATE_PR/comments" <<<"$body" >/dev/null
  fi
}

post_gitlab() {
  : "${GITLAB_TOKEN:?}" "${CI_API_V4_URL:?}" "${CI_PROJECT_ID:?}" "${CI_MERGE_REQUEST_IID:?}"
  local notes=$CI_API_V4_URL/projects/$CI_PROJECT_ID/merge_requests/$CI_MERGE_REQUEST_IID/notes
  local auth=(--header "PRIVATE-TOKEN: $GITLAB_TOKEN" --header "Content-Type: application/json")
  local listing id body
  listing=$(curl --fail --silent --show-error "${auth[@]}" "$notes?per_page=100") || return 1
  id=$(marked_id <<<"$listing") || return 1
  body=$(comment_json) || return 1
  if [[ -n $id ]]; then
    curl --fail --silent --show-error "${auth[@]}" --request PUT --data-binary @- "$notes/$id" \
      <<<"$body" >/dev/null
  else
    curl --fail --silent --show-error "${auth[@]}" --request POST --data-binary @- "$notes" \
      <<<"$body" >/dev/null
  fi
}

if [[ $comment == none ]]; then
  say "comment: not posted (BENCHLEDGER_GATE_COMMENT=none)"
elif [[ ! -f $out/comparison.md ]]; then
  # A gate that made no comparison still writes why; none is there only when --out was refused.
  say "comment: not posted (the gate wrote no comparison.md, exit $status)"
elif ("post_$comment"); then
  say "comment: posted to the $comment pull request"
else
  # A comment that fails to post never hides the gate's own outcome.
  say "comment: could not post to $comment (the comparison is in $out/comparison.md)"
fi
say "gate: exit $status (0 pass, 1 fail, 2 error); results in $out"
exit "$status"
