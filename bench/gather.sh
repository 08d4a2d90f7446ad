#!/usr/bin/env bash
# SIGNAL's input gathered first and again, and SIGNAL computed, after a
# heartbeat wrote (issue 24; docs/decisions.md, "SIGNAL once a
# heartbeat"): `BenchmarkNodeGathering` of this tree ("new") side by side
# with the same benchmark built into the tree at BASELINE ("old"),
# alternating, ROUNDS runs each, on the node at NODE, which is read and
# never written (a history bench/stateyear.sh keeps, or a copy of one).
# SUBS names the sub-benchmarks to run, all three unless told.
#
#   NODE=/dev/shm/hist3y bash bench/gather.sh a4e0966d      # ROUNDS=3, RUNS=3
#   NODE=/dev/shm/hist3y SUBS=first bash bench/gather.sh a8732079
#
# Per tree and sub-benchmark, min / median / max over the rounds of the
# CPU seconds of one op (user + system of the process, the collector's
# included; each round's figure the mean of RUNS ops) and of its wall
# seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?BASELINE}
node=${NODE:?NODE: a node directory}
rounds=${ROUNDS:-3}
subs=${SUBS:-first again compute}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

go test -c -o "$out/new.test" ./internal/signal
mkdir "$out/base-src"
git archive "$base" | tar -x -C "$out/base-src"
cp internal/signal/gather_bench_test.go "$out/base-src/internal/signal/"
(cd "$out/base-src" && go test -c -o "$out/old.test" ./internal/signal)
echo "new: $(git rev-parse --short HEAD) (+ working tree), old: $(git rev-parse --short "$base"), node: $node"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
stats() { sort -g | awk '{ v[NR] = $1 } END { printf "%.2f / %.2f / %.2f", v[1], v[int((NR + 1) / 2)], v[NR] }'; }

for r in $(seq "$rounds"); do
  for w in old new; do
    (cd internal/signal && MESHNODE_BENCH_NODE=$node "$out/$w.test" -test.run '^$' \
      -test.bench "^BenchmarkNodeGathering\$/^(${subs// /|})\$" -test.benchtime "${RUNS:-3}x") |
      awk -v o="$out/$w" '/^BenchmarkNodeGathering\// {
        split($1, n, "/"); sub(/-[0-9]+$/, "", n[2])
        printf "%.3f\n", $3 / 1e9 >>(o "." n[2] ".wall"); printf "%.3f\n", $5 >>(o "." n[2] ".cpu") }'
  done
done
echo
echo "| BenchmarkNodeGathering | tree | CPU s per op (min / median / max) | wall s per op |"
echo "|---|---|---|---|"
for b in $subs; do
  for w in old new; do
    echo "| $b | $w | $(stats <"$out/$w.$b.cpu") | $(stats <"$out/$w.$b.wall") |"
  done
done
