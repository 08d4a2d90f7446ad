#!/usr/bin/env bash
# The big catch-up and idle heartbeats at scale (issue 24, item 3): the
# real `meshnode heartbeat` process of this tree ("new") side by side with
# the binary built from BASELINE ("old", default 3edd0c6), alternating, on
# loopback (bench/meshsim, whose node is a founder: it scores).
#
#   bash bench/catchup.sh [BASELINE]     # ROUNDS=3, IDLE_PEERS=10000
#
# 1. big: 1,000 peers x 20 traces on 50 hosts, 50 ms per answer, first
#    heartbeat (--now fixed): wall, CPU (user + system), peak RSS, the
#    polling time and requests of its summary, the most requests the
#    hosts answered at once; then whether both binaries
#    left the same ledger, cursors, queue, validations and MANIFEST.md;
#    and the floor: the network time of its requests at 50 hosts x
#    max_conns_per_host (4) at 50 ms each, or its CPU time on every core
#    (nproc), whichever is longer, with each binary's median wall over it.
# 2. idle: IDLE_PEERS peers with one trace each on 50 hosts, 50 ms: after
#    a first heartbeat, one 30 minutes later that finds nothing new: the
#    TCP connections the hosts accepted, and the opens of files under
#    mesh-state/ (strace; a file that is not there is not counted), most
#    per file and in all.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-3edd0c6}
rounds=${ROUNDS:-3}
idle_peers=${IDLE_PEERS:-10000}
rows=" ${ROWS:-big idle} "
out=$(mktemp -d)
sims=()
cleanup() {
  for p in "${sims[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$out"
}
trap cleanup EXIT

go build -o "$out/new" ./cmd/meshnode
go build -o "$out/meshsim" ./bench/meshsim
mkdir "$out/base-src"
git archive "$base" | tar -x -C "$out/base-src"
(cd "$out/base-src" && go build -o "$out/old" ./cmd/meshnode)
echo "new: $(git rev-parse --short HEAD) (+ working tree), old: $(git rev-parse --short "$base")"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"

# sim NAME ARGS...: starts meshsim writing node $out/NAME, waits until ready.
sim() {
  local name=$1; shift
  "$out/meshsim" -node "$out/$name" "$@" >"$out/$name.sim" 2>&1 &
  sims+=($!)
  for _ in $(seq 600); do grep -q ready "$out/$name.sim" 2>/dev/null && return; sleep 0.1; done
  echo "meshsim did not start"; cat "$out/$name.sim"; exit 1
}
stats() { sort -g | awk '{ v[NR] = $1 } END { printf "%s / %s / %s", v[1], v[int((NR + 1) / 2)], v[NR] }'; }
field() { grep -o "\"$1\": [0-9.]*" "$2" | awk '{ print $2 }'; }
t0=2026-03-01T12:00:00Z

if [[ $rows == *" big "* ]]; then
  sim big -peers 1000 -hosts 50 -traces 20 -latency 50ms
  inflight_url=$(awk '/^publish/ { sub("/_meshsim/publish", "/_meshsim/inflight", $2); print $2 }' "$out/big.sim")
  for w in new old; do : >"$out/$w.wall"; : >"$out/$w.cpu"; : >"$out/$w.rss"; : >"$out/$w.poll"; : >"$out/$w.inflight"; done
  for r in $(seq "$rounds"); do
    for w in new old; do
      rm -rf "$out/b-$w"; cp -r "$out/big" "$out/b-$w"
      curl -fsS "$inflight_url" >/dev/null
      /usr/bin/time -f '%e %M %U %S' -o "$out/time" "$out/$w" heartbeat --dir "$out/b-$w" --now "$t0" --summary "$out/sum-$w.json" >/dev/null 2>"$out/log-$w"
      read -r secs kb user sys <"$out/time"
      echo "$secs" >>"$out/$w.wall"; echo "$user + $sys" | bc >>"$out/$w.cpu"; echo $((kb / 1024)) >>"$out/$w.rss"
      field poll_latency_seconds "$out/sum-$w.json" >>"$out/$w.poll"
      curl -fsS "$inflight_url" >>"$out/$w.inflight"
    done
  done
  echo
  echo "| 1,000 x 20 catch-up | wall s | CPU s | peak RSS MB | polling s | most requests in flight | requests | validations |"
  echo "|---|---|---|---|---|---|---|---|"
  for w in new old; do
    echo "| $w | $(stats <"$out/$w.wall") | $(stats <"$out/$w.cpu") | $(stats <"$out/$w.rss") | $(stats <"$out/$w.poll") | $(stats <"$out/$w.inflight") | $(field requests_total "$out/sum-$w.json") | $(field validations_published "$out/sum-$w.json") |"
  done
  same=yes
  for p in mesh-state/ledger mesh-state/polling-cursors mesh-state/queue validations MANIFEST.md; do
    diff -rq "$out/b-new/$p" "$out/b-old/$p" >/dev/null || { same=no; echo "differs: $p"; }
  done
  echo "same ledger, cursors, queue, validations and MANIFEST.md: $same"
  for w in new old; do
    req=$(field requests_total "$out/sum-$w.json")
    cpu=$(stats <"$out/$w.cpu" | awk -F' / ' '{ print $2 }')
    wall=$(stats <"$out/$w.wall" | awk -F' / ' '{ print $2 }')
    echo "$req $cpu $wall $(nproc)" | awk -v w="$w" '{ net = $1 * 0.050 / (50 * 4); cpu = $2 / $4; f = net > cpu ? net : cpu
      printf "floor of %s: network %.1f s (%d requests / 200 connections x 50 ms), CPU %.1f s (%.1f s / %d cores): %.1f s; median wall %.1f s = %.1fx the floor\n", w, net, $1, cpu, $2, $4, f, $3, $3 / f }'
  done
fi

if [[ $rows == *" idle "* ]]; then
  sim idle -peers "$idle_peers" -hosts 50 -traces 1 -latency 50ms
  conns_url=$(awk '/^publish/ { sub("/_meshsim/publish", "/_meshsim/conns", $2); print $2 }' "$out/idle.sim")
  echo
  echo "| $idle_peers idle peers on 50 hosts | wall s | TCP connections | requests | mesh-state opens: most per file, in all, files |"
  echo "|---|---|---|---|---|"
  for w in new old; do
    rm -rf "$out/i-$w"; cp -r "$out/idle" "$out/i-$w"
    "$out/$w" heartbeat --dir "$out/i-$w" --now "$t0" >/dev/null 2>&1
    before=$(curl -fsS "$conns_url")
    /usr/bin/time -f '%e' -o "$out/time" strace -f -qq -e trace=openat -o "$out/strace-$w" \
      "$out/$w" heartbeat --dir "$out/i-$w" --now 2026-03-01T12:30:00Z --summary "$out/isum-$w.json" >/dev/null 2>&1
    after=$(curl -fsS "$conns_url")
    opens=$(grep -v ENOENT "$out/strace-$w" | grep -o '"[^"]*mesh-state/[^"]*\.json"' | grep -v '\.tmp-' | sort | uniq -c | sort -rn)
    echo "| $w | $(cat "$out/time") (under strace) | $((after - before - 1)) | $(field requests_total "$out/isum-$w.json") | $(echo "$opens" | head -1 | awk '{ print $1 }'), $(echo "$opens" | awk '{ s += $1 } END { print s }'), $(echo "$opens" | wc -l) |"
  done
fi
