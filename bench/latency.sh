#!/usr/bin/env bash
# The corpus catch-up over TLS with 50 ms added to every answer, side by
# side with the binary before HTTP/2 (alternating, fresh node each run),
# min/median/max of ROUNDS runs. Prints wall time of the real
# `meshnode heartbeat` process.
#
#   bash bench/latency.sh              # ROUNDS=3 BASE=692fb11~1 LATENCY=50ms
#
# Variants, one run of each per round, in this order:
#   before   BASE's binary (4 requests per host, a peer's files one at a time), HTTP/2 server
#   h2       this tree's binary, HTTP/2 server (16 streams on one connection)
#   h1       this tree's binary, HTTPS server without HTTP/2 (4 connections)
#   h2+score h2 with the node a founder, so it also scores every trace and
#            writes 849 validations
# The first three fetch and verify only (FOUNDERS.md removed, so the
# standing gate is closed), as BASE's binary does.
# meshsim writes its self-signed certificate; the node trusts it through
# SSL_CERT_FILE, for this process only. Target (issue 11): h2 < 4 s.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-3} base=${BASE:-692fb11~1} latency=${LATENCY:-50ms}
corpus=../shared/corpus/mycel-basecamp
[ -d "$corpus" ] || { echo "corpus not found at $corpus"; exit 1; }
out=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$out"' EXIT
go build -o "$out/meshnode" ./cmd/meshnode
go build -o "$out/meshsim" ./bench/meshsim
mkdir "$out/base"
git archive "$base" | tar -x -C "$out/base"
(cd "$out/base" && go build -o "$out/meshnode-before" ./cmd/meshnode)

start() { # start NAME ARGS...: a meshsim serving the corpus, node in $out/NAME
  local name=$1; shift
  "$out/meshsim" -node "$out/$name" -corpus "$corpus" -latency "$latency" -tls -cert "$out/$name.pem" "$@" >"$out/$name.out" 2>&1 &
  for _ in $(seq 100); do grep -q ready "$out/$name.out" 2>/dev/null && return; sleep 0.1; done
  echo "meshsim did not start"; cat "$out/$name.out"; exit 1
}
start sim-h2
start sim-h1 -http1

run() { # run VARIANT BINARY SIM [score]: one catch-up on a fresh copy of SIM's node
  rm -rf "$out/node"
  cp -r "$out/$3" "$out/node"
  [ "${4:-}" = score ] || rm -f "$out/node/FOUNDERS.md"
  SSL_CERT_FILE="$out/$3.pem" /usr/bin/time -f '%e' -o "$out/time" "$2" heartbeat --dir "$out/node" >"$out/sum" 2>"$out/log" || { cat "$out/log"; exit 1; }
  grep -q "^files: 8[0-9][0-9] new traces" "$out/sum" || { echo "$1: unexpected summary:"; cat "$out/sum"; exit 1; }
  cat "$out/time" >>"$out/$1.times"
}
for _ in $(seq "$rounds"); do
  run before "$out/meshnode-before" sim-h2
  run h2 "$out/meshnode" sim-h2
  run h1 "$out/meshnode" sim-h1
  run h2+score "$out/meshnode" sim-h2 score
done
echo "| corpus catch-up, TLS, $latency per answer | min | median | max |"
echo "|---|---|---|---|"
for v in before h2 h1 h2+score; do
  sort -n "$out/$v.times" | awk -v v="$v" '{ t[NR] = $1 } END { printf "| %s | %.2f s | %.2f s | %.2f s |\n", v, t[1], t[int((NR + 1) / 2)], t[NR] }'
done
