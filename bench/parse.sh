#!/usr/bin/env bash
# validation.Parse over the files a heartbeat parses for SIGNAL's input
# (docs/decisions.md, "SIGNAL once a heartbeat"): `BenchmarkParse` of this
# tree ("new") side by side with the same benchmark built into the tree at
# BASELINE ("old"), alternating, ROUNDS runs each of OPS files. "own" is
# files as the node writes them; "corpus" the real validation traces of
# ../shared/corpus/mycel-basecamp beside the checkout, skipped without it.
#
#   ROUNDS=10 bash bench/parse.sh a8732079      # OPS=20000
#
# Per tree and sub-benchmark, min / median / max over the rounds of the
# CPU nanoseconds of one file (user + system of the process, the
# collector's included), of its wall nanoseconds and of its allocations.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?BASELINE}
rounds=${ROUNDS:-10}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

go test -c -o "$out/new.test" ./internal/validation
mkdir "$out/base-src"
git archive "$base" | tar -x -C "$out/base-src"
cp internal/validation/parse_bench_test.go "$out/base-src/internal/validation/"
(cd "$out/base-src" && go test -c -o "$out/old.test" ./internal/validation)
echo "new: $(git rev-parse --short HEAD) (+ working tree), old: $(git rev-parse --short "$base")"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
stats() { sort -g | awk '{ v[NR] = $1 } END { printf "%.0f / %.0f / %.0f", v[1], v[int((NR + 1) / 2)], v[NR] }'; }

for r in $(seq "$rounds"); do
  for w in old new; do
    (cd internal/validation && "$out/$w.test" -test.run '^$' -test.bench '^BenchmarkParse$' \
      -test.benchtime "${OPS:-20000}x") |
      awk -v o="$out/$w" '/^BenchmarkParse\// {
        split($1, n, "/"); sub(/-[0-9]+$/, "", n[2])
        for (i = 4; i <= NF; i++) if ($i ~ /^(ns|cpu-ns|allocs)\/op$/) {
          u = $i; sub(/\/op$/, "", u); print $(i - 1) >>(o "." n[2] "." u) } }'
  done
done
echo
echo "| BenchmarkParse | tree | CPU ns per file (min / median / max) | wall ns per file | allocs per file |"
echo "|---|---|---|---|---|"
for b in own corpus; do
  for w in old new; do
    f="$out/$w.$b"
    [ -s "$f.ns" ] || continue
    echo "| $b | $w | $(stats <"$f.cpu-ns") | $(stats <"$f.ns") | $(stats <"$f.allocs") |"
  done
done
