#!/usr/bin/env bash
# What the heartbeat's two sweeps cost when nothing is to be dropped (the
# usual heartbeat): logpin.Pins.Keep over MESHNODE_BENCH_PEERS pinned
# peers (10,000), and relay.Store.KeepAgents over two relays listing as
# many agents, each side by side with the read of the same state that
# every heartbeat already makes (logpin.Load, relay.LoadStore),
# alternating, 10 operations a round (docs/decisions.md, "Reading a
# peer's signed log" and "Relays").
#
#   bash bench/forgetsweep.sh    # ROUNDS=7 MESHNODE_BENCH_PEERS=10000
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-7}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go test -c -o "$out/logpin" ./internal/logpin/
go test -c -o "$out/relay" ./internal/relay/
for r in $(seq 1 "$rounds"); do
	for pkg in logpin relay; do
		for op in load keep; do
			(cd "internal/$pkg" && "$out/$pkg" -test.run '^$' -test.bench "Sweep.*/$op\$" -test.benchtime 10x) |
				awk -v p="$pkg" '/^Benchmark/ { split($1, n, "/"); sub(/-[0-9]+$/, "", n[2]); print p, n[2], $3 / 1e6 }'
		done
	done
done | sort -k1,1 -k2,2 -k3,3n | awk '
	{ k = $1 " " $2; x[k, ++n[k]] = $3 }
	END {
		for (k in n) {
			c = n[k]; m = (c % 2) ? x[k, (c + 1) / 2] : (x[k, c / 2] + x[k, c / 2 + 1]) / 2
			printf "%s %.2f %.2f %.2f\n", k, x[k, 1], m, x[k, c]
		}
	}' | sort | sed '1i state op min median max (ms)'
