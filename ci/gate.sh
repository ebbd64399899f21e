#!/usr/bin/env bash
# ci/gate.sh BASE_REV [HEAD_REV] [-- GATE FLAGS...]: a pull request's benchmark gate, as the
# GitHub action (ci/github/action.yml) and the GitLab template (ci/gitlab/benchledger-gate.yml)
# run it, in the user's repository (the current directory). It installs benchledger from this
# source tree unless BENCHLEDGER_BIN names one, runs `benchledger gate`, posts or updates one
# comment with comparison.md, and exits with the gate's status: 0 pass, 1 fail, 2 error.
#
# Environment (docs/ci-gate.md, "ci/gate.sh"):
#   BENCHLEDGER_GATE_COMMENT  required: where the comment goes. `github`, `gitlab`, or `none`
#                             (no comment: forks, local runs, tests). Nothing is skipped
#                             silently: a comment that cannot be posted is reported on stderr.
#   BENCHLEDGER_BIN           an installed benchledger to use; unset: build and install one
#                             from this source tree into BENCHLEDGER_PREFIX
#   BENCHLEDGER_PREFIX        where to install (default: $RUNNER_TEMP or $TMPDIR or /tmp,
#                             + /benchledger)
#   BENCHLEDGER_APT=1         install the build's dependencies with apt-get first (Debian, Ubuntu)
#   BENCHLEDGER_GATE_OUT      the gate's --out (default: benchledger-gate)
#   github:  GITHUB_TOKEN, GITHUB_REPOSITORY, BENCHLEDGER_GATE_PR (the pull request's number),
#            GITHUB_API_URL (default https://api.github.com)
#   gitlab:  GITLAB_TOKEN (a project access token with the api scope), CI_API_V4_URL,
#            CI_PROJECT_ID, CI_MERGE_REQUEST_IID
set -euo pipefail

say() { echo "ci/gate.sh: $*" >&2; }
usage() {
  say "usage: ci/gate.sh BASE_REV [HEAD_REV] [-- GATE FLAGS...]"
  exit 2
}

[[ $# -ge 1 && $1 != -h && $1 != --help ]] || usage
revisions=("$1")
shift
if [[ $# -gt 0 && $1 != -- ]]; then
  revisions+=("$1")
  shift
fi
[[ $# -eq 0 || $1 == -- ]] || usage
[[ $# -gt 0 ]] && shift
flags=("$@")

comment=${BENCHLEDGER_GATE_COMMENT-}
case $comment in
  github | gitlab | none) ;;
  "")
    say "BENCHLEDGER_GATE_COMMENT is not set: say where the comment goes (github, gitlab) or" \
      "that there is none (none)"
    exit 2
    ;;
  *)
    say "BENCHLEDGER_GATE_COMMENT=$comment: expected github, gitlab or none"
    exit 2
    ;;
esac
out=${BENCHLEDGER_GATE_OUT:-benchledger-gate}
source_dir=$(cd "$(dirname "$0")/.." && pwd)

install_dependencies() {
  local sudo=()
  [[ $(id -u) -eq 0 ]] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends cmake ninja-build g++ pkg-config \
    git ca-certificates curl python3 libfmt-dev nlohmann-json3-dev libcli11-dev libsqlite3-dev \
    libpqxx-dev libpq-dev libssl-dev libsimdjson-dev >&2
}

install_benchledger() {
  local prefix=${BENCHLEDGER_PREFIX:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/benchledger}
  say "building benchledger from $source_dir into $prefix"
  cmake -S "$source_dir" -B "$prefix/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DBENCHLEDGER_BUILD_TESTS=OFF -DBENCHLEDGER_BUILD_BENCH=OFF >&2
  cmake --build "$prefix/build" >&2
  cmake --install "$prefix/build" --prefix "$prefix" >&2
  BENCHLEDGER_BIN=$prefix/bin/benchledger
}

if [[ -z ${BENCHLEDGER_BIN:-} ]]; then
  [[ ${BENCHLEDGER_APT:-0} == 1 ]] && install_dependencies
  install_benchledger
fi
[[ -x $BENCHLEDGER_BIN ]] || { say "BENCHLEDGER_BIN=$BENCHLEDGER_BIN is not executable"; exit 2; }

status=0
"$BENCHLEDGER_BIN" gate "${revisions[@]}" --out "$out" "${flags[@]}" || status=$?

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

post_github() {
  : "${GITHUB_TOKEN:?}" "${GITHUB_REPOSITORY:?}" "${BENCHLEDGER_GATE_PR:?}"
  local api=${GITHUB_API_URL:-https://api.github.com} auth id
  auth=(--header "Authorization: Bearer $GITHUB_TOKEN" --header "Accept: application/vnd.github+json")
  id=$(curl --fail --silent --show-error "${auth[@]}" \
    "$api/repos/$GITHUB_REPOSITORY/issues/$BENCHLEDGER_GATE_PR/comments?per_page=100" | marked_id)
  if [[ -n $id ]]; then
    comment_json | curl --fail --silent --show-error "${auth[@]}" --request PATCH \
      --data @- "$api/repos/$GITHUB_REPOSITORY/issues/comments/$id" >/dev/null
  else
    comment_json | curl --fail --silent --show-error "${auth[@]}" --request POST \
      --data @- "$api/repos/$GITHUB_REPOSITORY/issues/$BENCHLEDGER_GATE_PR/comments" >/dev/null
  fi
}

post_gitlab() {
  : "${GITLAB_TOKEN:?}" "${CI_API_V4_URL:?}" "${CI_PROJECT_ID:?}" "${CI_MERGE_REQUEST_IID:?}"
  local notes=$CI_API_V4_URL/projects/$CI_PROJECT_ID/merge_requests/$CI_MERGE_REQUEST_IID/notes
  local auth=(--header "PRIVATE-TOKEN: $GITLAB_TOKEN" --header "Content-Type: application/json")
  local id
  id=$(curl --fail --silent --show-error "${auth[@]}" "$notes?per_page=100" | marked_id)
  if [[ -n $id ]]; then
    comment_json | curl --fail --silent --show-error "${auth[@]}" --request PUT --data @- \
      "$notes/$id" >/dev/null
  else
    comment_json | curl --fail --silent --show-error "${auth[@]}" --request POST --data @- \
      "$notes" >/dev/null
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
