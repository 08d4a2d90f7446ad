#!/usr/bin/env bash
# Scale benchmarks with scoring on (the node is a founder, so it validates):
# the real `meshnode heartbeat` process of this tree ("new") side by side
# with the binary built from BASELINE ("old", default the commit before
# the batched queue and the per-peer state), alternating, on loopback.
#
#   bash bench/scale.sh [BASELINE]      # ROUNDS=3 by default
#   ROWS="quiet grow" bash bench/scale.sh BASELINE   # only some rows
#
# 1. corpus catch-up (856 traces, 12 peers; every pending trace scored by
#    the heuristic, every validation written): wall and peak RSS, and the
#    largest file under mesh-state/ afterwards. Targets < 1.5 s, < 300 KB.
# 2. 1,000 peers x 20 traces on 50 hosts, 50 ms latency, first heartbeat:
#    every trace fetched, verified and scored. Targets < 60 s, < 300 MB.
#    The old binary is stopped after OLD_LIMIT seconds (default 180).
# 3. 1,000 peers, nothing new: files a heartbeat changes in a git
#    checkout of the node, and peers it polled (MANIFEST.md requests), over
#    QUIET_BEATS (default 16) heartbeats 30 minutes apart (--now).
# 4. 20 heartbeats each after one new trace of one of 1,000 peers: growth
#    of the packed git repository per heartbeat. Target < 10 KB.
# 5. a simulated year of 1,000 agents publishing daily (bench/stateyear,
#    this tree only): the largest state file. Target < 10 MB.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-cd8d51e}
rounds=${ROUNDS:-3}
rows=" ${ROWS:-corpus big quiet grow year} "
quiet_beats=${QUIET_BEATS:-16}
old_limit=${OLD_LIMIT:-180}
out=$(mktemp -d)
sims=()
cleanup() {
  for p in "${sims[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$out"
}
trap cleanup EXIT

go build -o "$out/new" ./cmd/meshnode
go build -o "$out/meshsim" ./bench/meshsim
go build -o "$out/stateyear" ./bench/stateyear
mkdir "$out/base-src"
git archive "$base" | tar -x -C "$out/base-src"
(cd "$out/base-src" && go build -o "$out/old" ./cmd/meshnode)
echo "new: $(git rev-parse --short HEAD) (+ working tree), old: $(git rev-parse --short "$base")"

# sim NAME ARGS...: starts meshsim writing node $out/NAME, waits until ready.
sim() {
  local name=$1; shift
  "$out/meshsim" -node "$out/$name" "$@" >"$out/$name.sim" 2>&1 &
  sims+=($!)
  for _ in $(seq 300); do grep -q ready "$out/$name.sim" 2>/dev/null && return; sleep 0.1; done
  echo "meshsim did not start"; cat "$out/$name.sim"; exit 1
}

# nodecopy SRC DST WHICH: a fresh copy of a node for binary WHICH; an old
# binary that predates FOUNDERS.md opens its standing gate in mesh.yaml
# (a later one refuses the key).
open_gate=1
if git show "$base:internal/config/keys.go" 2>/dev/null | grep -q '"standing": "removed'; then open_gate=0; fi
nodecopy() {
  rm -rf "$2"; cp -r "$1" "$2"
  if [ "$3" = old ] && [ "$open_gate" = 1 ]; then printf 'standing:\n  min_validated_traces: 0\n' >>"$2/mesh.yaml"; fi
}

# beat WHICH DIR [NOW]: one heartbeat; writes "wall-secs peak-kb cpu-secs"
# (user + system) to $out/t and its summary to $out/stdout.
beat() {
  local now=()
  [ -n "${3:-}" ] && now=(--now "$3")
  /usr/bin/time -f '%e %M %U %S' -o "$out/time" "$out/$1" heartbeat --dir "$2" "${now[@]}" >"$out/stdout" 2>"$out/log" ||
    { tail -5 "$out/log"; return 1; }
  awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }' "$out/time" >"$out/t"
}

# stats: min/median/max of the numbers on stdin.
stats() { sort -g | awk '{ v[NR] = $1 } END { printf "%s / %s / %s", v[1], v[int((NR + 1) / 2)], v[NR] }'; }

largest() { find "$1/mesh-state" -type f -printf '%s %P\n' | sort -n | tail -1 | awk '{ printf "%.0f KB (%s)", $1 / 1024, $2 }'; }

echo
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
echo
echo "| benchmark | binary | wall s (min / median / max) | CPU s, user + system | peak RSS MB | other |"
echo "|---|---|---|---|---|---|"

row() { [[ $rows == *" $1 "* ]]; }

corpus=../shared/corpus/mycel-basecamp
if ! row corpus; then
  :
elif [ -d "$corpus" ]; then
  sim corpus -corpus "$corpus" -latency 0
  for w in new old; do : >"$out/corpus-$w.wall"; : >"$out/corpus-$w.rss"; : >"$out/corpus-$w.cpu"; done
  for r in $(seq "$rounds"); do
    for w in new old; do
      nodecopy "$out/corpus" "$out/c-$w" "$w"
      beat "$w" "$out/c-$w"
      read -r secs kb cpu <"$out/t"
      echo "$secs" >>"$out/corpus-$w.wall"; echo $((kb / 1024)) >>"$out/corpus-$w.rss"; echo "$cpu" >>"$out/corpus-$w.cpu"
      echo "$(ls "$out/c-$w/validations" | wc -l) validations, largest state file $(largest "$out/c-$w")" >"$out/corpus-$w.other"
    done
  done
  for w in new old; do
    echo "| corpus catch-up, scored (856 traces, 12 peers) | $w | $(stats <"$out/corpus-$w.wall") | $(stats <"$out/corpus-$w.cpu") | $(stats <"$out/corpus-$w.rss") | $(cat "$out/corpus-$w.other") |"
  done
else
  echo "corpus not found at $corpus: skipping the catch-up benchmark" >&2
fi

if row big; then
sim big -peers 1000 -hosts 50 -traces 20 -latency 50ms
: >"$out/big.wall"; : >"$out/big.rss"; : >"$out/big.cpu"
for r in $(seq "$rounds"); do
  nodecopy "$out/big" "$out/b-new" new
  beat new "$out/b-new"
  read -r secs kb cpu <"$out/t"
  echo "$secs" >>"$out/big.wall"; echo $((kb / 1024)) >>"$out/big.rss"; echo "$cpu" >>"$out/big.cpu"
  other="$(ls "$out/b-new/validations" | wc -l) validations, largest state file $(largest "$out/b-new")"
done
echo "| 1,000 peers x 20 traces, 50 hosts, 50 ms | new | $(stats <"$out/big.wall") | $(stats <"$out/big.cpu") | $(stats <"$out/big.rss") | $other |"
nodecopy "$out/big" "$out/b-old" old
if /usr/bin/time -f '%e %M' -o "$out/t" timeout "$old_limit" "$out/old" heartbeat --dir "$out/b-old" >/dev/null 2>&1; then
  read -r secs kb <"$out/t"
  echo "| 1,000 peers x 20 traces, 50 hosts, 50 ms | old | $secs (one run) | | $((kb / 1024)) | $(ls "$out/b-old/validations" | wc -l) validations |"
else
  echo "| 1,000 peers x 20 traces, 50 hosts, 50 ms | old | > $old_limit (stopped; one run) | | | $(ls "$out/b-old/validations" 2>/dev/null | wc -l) validations written by then |"
fi
fi

# gitnode WHICH SIM: a git checkout of a fresh node of SIM after a first
# heartbeat at T0, committed and packed.
t0=2026-03-01T12:00:00Z
at() { date -u -d "$t0 + $1 minutes" +%Y-%m-%dT%H:%M:%SZ; }
gitnode() {
  nodecopy "$out/$2" "$out/g-$1" "$1"
  beat "$1" "$out/g-$1" "$t0"
  (cd "$out/g-$1" && git init -q && git add -A && git -c user.name=b -c user.email=b@b commit -qm first && git repack -adq)
}
commit() { (cd "$1" && git add -A && git -c user.name=b -c user.email=b@b commit -qm beat --allow-empty); }
# packed DIR [FULL]: the pack's size in KB after an incremental repack, or
# with FULL after a full one (git gc --aggressive, as a server does).
packed() {
  if [ -n "${2:-}" ]; then (cd "$1" && git gc -q --aggressive --prune=now); else (cd "$1" && git repack -adq); fi
  (cd "$1" && git count-objects -v | awk '/size-pack/ { print $2 }')
}

if row quiet; then
for w in new old; do
  sim "quiet-$w" -peers 1000 -hosts 50 -traces 1 -latency 50ms
  gitnode "$w" "quiet-$w"
  files=() walls=() polled=()
  for k in $(seq "$quiet_beats"); do
    beat "$w" "$out/g-$w" "$(at $((30 * k)))"
    read -r secs kb <"$out/t"
    walls+=("$secs")
    polled+=("$(awk '/^peers:/ { print $2 }' "$out/stdout")")
    files+=("$(cd "$out/g-$w" && git status --porcelain | wc -l)")
    commit "$out/g-$w"
  done
  echo "| 1,000 peers, nothing new ($quiet_beats heartbeats 30 min apart) | $w | $(printf '%s\n' "${walls[@]}" | stats) | | | files changed per heartbeat: ${files[*]}; peers polled: ${polled[*]} |"
done
fi

if row grow; then
for w in new old; do
  sim "grow-$w" -peers 1000 -hosts 50 -traces 1 -latency 0
  gitnode "$w" "grow-$w"
  publish=$(awk '/^publish/ { print $2 }' "$out/grow-$w.sim")
  cp -r "$out/g-$w" "$out/g-$w-full"
  before=$(packed "$out/g-$w")
  full_before=$(packed "$out/g-$w-full" full)
  rm -rf "$out/g-$w-full"
  files=()
  for k in $(seq 20); do
    curl -fsS "$publish" >/dev/null
    beat "$w" "$out/g-$w" "$(at $((30 * k)))"
    files+=("$(cd "$out/g-$w" && git status --porcelain | wc -l)")
    commit "$out/g-$w"
  done
  after=$(packed "$out/g-$w")
  full_after=$(packed "$out/g-$w" full)
  echo "| 20 heartbeats, one new trace each, 1,000 peers | $w | | | | git grows $(( (after - before) / 20 )) KB per heartbeat repacked incrementally ($before to $after KB), $(( (full_after - full_before) / 20 )) KB after a full gc ($full_before to $full_after KB); files changed per heartbeat: ${files[*]} |"
done
fi

row year || exit 0
/usr/bin/time -f '%e %M' -o "$out/t" "$out/stateyear" -agents 1000 -days 365 -save-every 73 -dir "$out/year" >"$out/year.out"
read -r secs kb <"$out/t"
echo "| a simulated year, 1,000 agents publishing daily (bench/stateyear) | new | $secs (one run) | | $((kb / 1024)) | $(tail -1 "$out/year.out") |"
