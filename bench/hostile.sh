#!/usr/bin/env bash
# What hostile peers cost one real `meshnode heartbeat` process: wall time,
# peak memory (max RSS) and the ledger's size after each of two heartbeats,
# CPU time (user + system), for each kind of hostile peer bench/hostile serves (docs/security.md,
# "Measured bounds"). Targets: peak RSS < 300 MB, ledger < 20 MB.
#
#   bash bench/hostile.sh              # every kind
#   bash bench/hostile.sh legacy large # only these kinds
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$out"' EXIT
go build -o "$out/meshnode" ./cmd/meshnode
go build -o "$out/hostile" ./bench/hostile

# measure LABEL NODE: runs one heartbeat under /usr/bin/time and prints a row.
measure() {
  /usr/bin/time -f '%e %M %U %S' -o "$out/time" "$out/meshnode" heartbeat --dir "$2" >/dev/null 2>"$out/log" || { cat "$out/log"; exit 1; }
  read -r secs kb usr sys <"$out/time"
  # The ledger: mesh-state/ledger.json, or one file per peer under mesh-state/ledger/.
  ledger=$( (du -cb "$2"/mesh-state/ledger* 2>/dev/null || true) | tail -1 | cut -f1)
  awk -v l="$1" -v s="$secs" -v c="$(echo "$usr + $sys" | bc)" -v k="$kb" -v b="${ledger:-0}" \
    'BEGIN { printf "| %-44s | %6.2f s | %6.2f s | %6.1f MB | %6.2f MB |\n", l, s, c, k / 1024, b / 1048576 }'
}

# scored NODE: for a node with standing (drip), how many validations it
# has published so far, below the row.
scored() {
  [ -f "$1/FOUNDERS.md" ] || return 0
  echo "|   validations published so far: $(find "$1/validations" -name '*.md' 2>/dev/null | wc -l) | | | | |"
}

run() { # run LABEL KIND PEERS: serves the peers, then two heartbeats
  if [ $# -gt 3 ] && [[ " ${*:4} " != *" $2 "* ]]; then return; fi
  local node="$out/$2-node"
  local sim="$out/$2.out"
  "$out/hostile" -node "$node" -kind "$2" -peers "$3" >"$sim" 2>&1 &
  local pid=$!
  for _ in $(seq 600); do grep -q ready "$sim" 2>/dev/null && break; sleep 0.1; done
  grep -q ready "$sim" || { echo "hostile did not start"; cat "$sim"; exit 1; }
  measure "$1, first heartbeat" "$node"
  scored "$node"
  measure "$1, second heartbeat" "$node"
  scored "$node"
  kill "$pid"; wait "$pid" 2>/dev/null || true
}

echo "| hostile peers | wall | CPU | peak RSS | ledger |"
echo "|---|---|---|---|---|"
run "20 legacy manifests of 4 MiB (43k rows each)" legacy 20 "$@"
run "1 peer, 5,000 mismatching files" liar 1 "$@"
run "1 peer, 200 distinct files of 1 MiB" large 1 "$@"
run "1 peer, 6,000 traces, manifest unchanged" many 1 "$@"
run "1 peer gossiping 3,000 agents" gossip 1 "$@"
run "8 peers, 40 distinct files of 1 MiB each" crowd 8 "$@"
run "100 peers, 1,000 rows without a file each" sybil 100 "$@"
run "64 peers answering with 9.5 MB of headers" headers 64 "$@"
run "1 peer, 60 files dripping a byte every 2 s, beside a good peer, deadline 60 s" drip 1 "$@"

# flood: what four peers with 6,500 tiny traces each make a founder publish,
# heartbeat after heartbeat, and whether the site still builds.
if [ $# -eq 0 ] || [[ " $* " == *" flood "* ]]; then
  node="$out/flood-node"
  "$out/hostile" -node "$node" -kind flood -peers 4 >"$out/flood.out" 2>&1 &
  pid=$!
  for _ in $(seq 600); do grep -q ready "$out/flood.out" 2>/dev/null && break; sleep 0.1; done
  echo
  echo "| 4 peers, 6,500 tiny traces each, founder | validations published | MANIFEST.md | held back | meshnode build |"
  echo "|---|---|---|---|---|"
  for i in 1 2 3; do
    "$out/meshnode" heartbeat --dir "$node" --summary "$out/sum.json" >/dev/null 2>"$out/log" || { cat "$out/log"; exit 1; }
    rc=0; "$out/meshnode" build --dir "$node" --out "$out/site" >/dev/null 2>&1 || rc=$?
    pub=$(grep -o '"validations_published": *[0-9]*' "$out/sum.json" | grep -o '[0-9]*$')
    held=$(grep -o '"count": *[0-9]*' "$out/sum.json" | grep -o '[0-9]*$' | paste -sd+ | bc)
    echo "| heartbeat $i | $pub | $(wc -c <"$node/MANIFEST.md") bytes | ${held:-0} | rc $rc |"
  done
  kill "$pid"; wait "$pid" 2>/dev/null || true
fi
