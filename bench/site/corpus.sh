#!/usr/bin/env bash
# Benchmark: the cold build of a node caught up with the real mesh
# snapshot (../shared/corpus/mycel-basecamp), meshnode at REV against the
# working tree's, alternating.
#
#   bash bench/site/corpus.sh --against REV [--rounds R]    (default R=5)
#
# bench/meshsim serves the snapshot on loopback and one heartbeat of the
# working tree's meshnode catches a node up with it (as the browser test
# does); both binaries then build that node cold, into a new directory
# each time, R rounds alternating. Prints min/median/max of wall seconds
# and user+system CPU seconds, the pages written and the site's size.
# Figures are recorded in docs/site.md ("What the node republishes").
set -euo pipefail
cd "$(dirname "$0")/../.."
against="" rounds=5
while [[ ${1:-} == --* ]]; do
  case $1 in
    --against) against=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) echo "corpus.sh: unknown flag $1" >&2; exit 2 ;;
  esac
done
corpus=../shared/corpus/mycel-basecamp
[[ -n $against && -d $corpus ]] || { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
work=$(mktemp -d)
meshsim_pid=""
trap '[[ -n $meshsim_pid ]] && kill "$meshsim_pid" 2>/dev/null; git worktree remove --force "$work/old" 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/new" ./cmd/meshnode
go build -o "$work/meshsim" ./bench/meshsim
git worktree add -q --detach "$work/old" "$against"
(cd "$work/old" && go build -o "$work/oldbin" ./cmd/meshnode)
"$work/meshsim" -node "$work/node" -corpus "$corpus" -latency 0 >"$work/meshsim.log" 2>&1 &
meshsim_pid=$!
for _ in $(seq 1 300); do grep -qs ready "$work/meshsim.log" && break; sleep 0.1; done
"$work/new" heartbeat --dir "$work/node" --now 2026-03-15T12:00:00Z >/dev/null 2>&1
kill "$meshsim_pid"; meshsim_pid=""

# build BIN OUT: one cold build; prints "wall cpu".
build() {
  /usr/bin/time -f '%e %U %S' -o "$work/t" "$1" build --dir "$work/node" --out "$2" --now 2026-03-15T12:00:00Z >/dev/null 2>&1
  awk '{printf "%.2f %.2f\n", $1, $2 + $3}' "$work/t"
}
# stats: min / median / max of the numbers on stdin.
stats() { sort -n | awk '{a[NR]=$1} END {printf "%.2f / %.2f / %.2f", a[1], a[int((NR+1)/2)], a[NR]}'; }
for r in $(seq 1 "$rounds"); do
  for v in old new; do
    bin=$work/oldbin; [[ $v == new ]] && bin=$work/new
    read -r wall cpu < <(build "$bin" "$work/out-$v-$r")
    echo "$wall" >>"$work/$v.wall"; echo "$cpu" >>"$work/$v.cpu"
  done
done
for v in old new; do
  out=$work/out-$v-1
  printf '%s: cold %s s (CPU %s s), %d files, %s, load %s\n' "$v" "$(stats <"$work/$v.wall")" "$(stats <"$work/$v.cpu")" \
    "$(find "$out" -type f | wc -l)" "$(du -sh "$out" | cut -f1)" "$(cut -d' ' -f1 /proc/loadavg)"
done
