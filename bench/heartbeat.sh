#!/usr/bin/env bash
# Heartbeat benchmarks against simulated meshes on loopback. Prints wall
# time and peak memory (max RSS) of the real `meshnode heartbeat` process.
#
#   bash bench/heartbeat.sh
#
# 1. catch-up: the real-mesh snapshot (856 traces, 12 peers) from
#    ../shared/corpus/mycel-basecamp, first heartbeat. Target < 1 s. Then
#    the same mesh through bench/sequential.sh, a curl/sha256sum loop.
# 2. no-change: 1,000 peers over 50 hosts, 50 ms added latency each, a
#    heartbeat after a warm-up one. Target < 5 s, peak memory < 150 MB.
#
# bench/latency.sh measures the corpus over TLS and HTTP/2 with 50 ms per
# answer, against the binary before HTTP/2.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$out"' EXIT
go build -o "$out/meshnode" ./cmd/meshnode
go build -o "$out/meshsim" ./bench/meshsim

# measure LABEL NODE: runs one heartbeat under /usr/bin/time and prints a row.
measure() {
  /usr/bin/time -f '%e %M' -o "$out/time" "$out/meshnode" heartbeat --dir "$2" >/dev/null 2>"$out/log" || { cat "$out/log"; exit 1; }
  read -r secs kb <"$out/time"
  awk -v l="$1" -v s="$secs" -v k="$kb" 'BEGIN { printf "| %-40s | %6.2f s | %6.1f MB |\n", l, s, k / 1024 }'
}

start() { # start NODE ARGS...: starts meshsim and waits until it is ready
  local node=$1; shift
  "$out/meshsim" -node "$node" "$@" >"$out/sim.out" 2>&1 &
  for _ in $(seq 100); do grep -q ready "$out/sim.out" 2>/dev/null && return; sleep 0.1; done
  echo "meshsim did not start"; cat "$out/sim.out"; exit 1
}

echo "| heartbeat | wall | peak RSS |"
echo "|---|---|---|"
corpus=../shared/corpus/mycel-basecamp
if [ -d "$corpus" ]; then
  start "$out/corpus-node" -corpus "$corpus" -latency 0
  measure "corpus catch-up (856 traces, 12 peers)" "$out/corpus-node"
  measure "corpus, nothing new" "$out/corpus-node"
  /usr/bin/time -f '%e %M' -o "$out/time" bash bench/sequential.sh "$out/corpus-node" >"$out/seq" 2>/dev/null || true
  read -r secs kb <"$out/time"
  awk -v l="baseline: sequential curl + sha256sum loop ($(cat "$out/seq"))" -v s="$secs" -v k="$kb" 'BEGIN { printf "| %-40s | %6.2f s | %6.1f MB |\n", l, s, k / 1024 }'
  kill %1; wait %1 2>/dev/null || true
else
  echo "corpus not found at $corpus: skipping the catch-up benchmark"
fi
start "$out/synthetic-node" -peers 1000 -hosts 50 -latency 50ms
"$out/meshnode" heartbeat --dir "$out/synthetic-node" >/dev/null 2>&1
measure "no change, 1,000 peers / 50 hosts / 50 ms" "$out/synthetic-node"
