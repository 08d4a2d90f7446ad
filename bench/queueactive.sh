#!/usr/bin/env bash
# What the queue's read of its items at work (queue.File.Active, once a
# heartbeat) costs at 10,000 peers, one item each, in this tree ("new")
# side by side with BASELINE ("old", default a4e0966d), alternating:
# BenchmarkActiveManyPeers, "warm" (a File that read the queue before, as
# in `meshnode watch`) and "cold" (a new File, as in one `meshnode
# heartbeat` process), 20 reads a round. The benchmark's file is copied
# into the baseline's tree, so both read the same queue.
#
#   bash bench/queueactive.sh [BASELINE]    # ROUNDS=7 MESHNODE_BENCH_PEERS=10000
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-a4e0966d}
rounds=${ROUNDS:-7}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/base-src"
git archive "$base" | tar -x -C "$out/base-src"
cp internal/queue/active_bench_test.go "$out/base-src/internal/queue/"
(cd "$out/base-src" && go test -c -o "$out/old" ./internal/queue/)
go test -c -o "$out/new" ./internal/queue/
for r in $(seq 1 "$rounds"); do
	for v in old new; do
		(cd internal/queue && "$out/$v" -test.run '^$' -test.bench ActiveManyPeers -test.benchtime 20x) |
			awk -v v="$v" '/^Benchmark/ { split($1, n, "/"); sub(/-[0-9]+$/, "", n[2]); print n[2], v, $3 / 1e6 }'
	done
done | sort -k1,1 -k2,2 -k3,3n | awk '
	{ k = $1 " " $2; x[k, ++n[k]] = $3 }
	END {
		print "read binary min median max (ms)"
		for (k in n) {
			c = n[k]; m = (c % 2) ? x[k, (c + 1) / 2] : (x[k, c / 2] + x[k, c / 2 + 1]) / 2
			printf "%s %.1f %.1f %.1f\n", k, x[k, 1], m, x[k, c]
		}
	}'
