#!/usr/bin/env bash
# What `meshnode score` costs on a node with a long history: the binary of
# this tree ("new") side by side with the one built from BASELINE ("old"),
# alternating, ROUNDS runs each, on a copy of NODE (a node directory a
# history left, bench/stateyear.sh; it is not changed). Two cases: the
# queue as the history left it, nothing waiting; then, after
# bench/scorequeue put RECENT items of traces their peer's file holds and
# SEALED items of traces only a segment holds in the copy's queue, each
# suggested, `score` and `score --pr` (with GITHUB_API_URL at a closed
# port of 127.0.0.1: it runs until its first call to GitHub, which fails,
# so it measures what it reads of the node).
#
#   NODE=/dev/shm/profnode bash bench/scoreload.sh a8732079
#
# NOTED of the items put in the queue have no suggestion and are noted as
# waiting on a failed fetch instead (bench/scorequeue -noted).
# CASES picks among "nothing-waits waiting waiting-pr" (all by default).
# Per binary and case, min / median / max: wall seconds, CPU seconds
# (user + system) and peak RSS, from /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: NODE=DIR bash bench/scoreload.sh BASELINE}
node=${NODE:?NODE must name a node directory}
rounds=${ROUNDS:-3}
work=$(mktemp -d "${WORK:-/dev/shm}/scoreload-XXXXXX")
trap 'rm -rf "$work"' EXIT

go build -o "$work/new" ./cmd/meshnode
mkdir "$work/base-src"
git archive "$base" | tar -x -C "$work/base-src"
(cd "$work/base-src" && go build -o "$work/old" ./cmd/meshnode)
echo "new: $(git rev-parse --short HEAD), old: $(git rev-parse --short "$base")"
mkdir "$work/node"
(cd "$node" && tar --exclude=./.git --exclude='./mesh-state/*.lock' -cf - .) | tar -x -C "$work/node"

# measure CASE ARGS...: ROUNDS runs of each binary, alternating, and the
# min / median / max of each.
measure() {
  local case=$1
  shift
  for r in $(seq "$rounds"); do
    for bin in old new; do
      /usr/bin/time -f "%e %U %S %M" -o "$work/t" "$work/$bin" "$@" --dir "$work/node" >"$work/out.$bin" 2>&1 || true
      # time prefixes a line when the command fails (--pr's call to GitHub).
      echo "$bin $(tail -1 "$work/t")" >>"$work/$case.times"
    done
    cmp -s <(grep -v '^meshnode:' "$work/out.old") <(grep -v '^meshnode:' "$work/out.new") || { echo "$case: the outputs differ"; diff "$work/out.old" "$work/out.new" | head || true; }
  done
  for bin in old new; do
    awk -v bin="$bin" -v c="$case" '$1 == bin { w[++n] = $2; cpu[n] = $3 + $4; rss[n] = $5 / 1024 }
      function sorted(a,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t } }
      END { sorted(w); sorted(cpu); sorted(rss); m = int((n + 1) / 2)
        printf "%-22s %-4s wall %6.2f %6.2f %6.2f s   cpu %6.2f %6.2f %6.2f s   rss %6.0f %6.0f %6.0f MB\n", c, bin, w[1], w[m], w[n], cpu[1], cpu[m], cpu[n], rss[1], rss[m], rss[n] }' "$work/$case.times"
  done
}

cases=" ${CASES:-nothing-waits waiting waiting-pr} "
[[ $cases != *" nothing-waits "* ]] || measure nothing-waits score
go run ./bench/scorequeue -dir "$work/node" -recent "${RECENT:-10}" -sealed "${SEALED:-10}" -noted "${NOTED:-0}"
[[ $cases != *" waiting "* ]] || measure waiting score
[[ $cases != *" waiting-pr "* ]] || GITHUB_TOKEN=x GITHUB_REPOSITORY=o/r GITHUB_API_URL=http://127.0.0.1:9/ measure waiting-pr score --pr
tail -3 "$work/out.new"
