#!/usr/bin/env bash
# The cost of mesh-2026-4's pools (issue 25): SIGNAL's Compute in this tree
# ("new") side by side with the tree at BASELINE ("old", default e94f3e6,
# before the pools were kept), alternating, ROUNDS runs each.
#
#   bash bench/pools.sh [BASELINE]     # ROUNDS=3, SIM_DAYS=30, NEW_DAYS=90
#
# 1. `BenchmarkCompute/mesh-50x200-20days` (10,000 traces over 20 days,
#    one run of each case a round): both trees from nothing, and this tree
#    with the pools of the 19 days before kept (the first heartbeat of a
#    day: one pool computed) and with every pool kept (a later one: none).
# 2. bench/assignsim -agents 2000 -validators 20 over each of SIM_DAYS
#    days, once per tree: the whole simulation's wall time (each simulated
#    day computes standing and statuses twice and the assignments once),
#    and its own timings of Compute over the final files, -rounds 3
#    alternating within the run. The simulations' per-day lines must be
#    the same for both trees: the script stops when they differ.
# 3. The same over each of NEW_DAYS days with this tree alone, -rounds 1:
#    the baseline's simulation grows with the square of the days (30 took
#    506 s under load 23), and its Compute is this tree's "from nothing".
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-e94f3e6}
rounds=${ROUNDS:-3}
days=${SIM_DAYS:-30}
new_days=${NEW_DAYS:-90}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

go test -c -o "$out/new.test" ./internal/signal
go build -o "$out/new.sim" ./bench/assignsim
mkdir "$out/base-src"
git archive "$base" | tar -x -C "$out/base-src"
(cd "$out/base-src" && go test -c -o "$out/old.test" ./internal/signal && go build -o "$out/old.sim" ./bench/assignsim)
echo "new: $(git rev-parse --short HEAD) (+ working tree), old: $(git rev-parse --short "$base")"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
stats() { sort -g | awk '{ v[NR] = $1 } END { printf "%.2f / %.2f / %.2f s", v[1], v[int((NR + 1) / 2)], v[NR] }'; }

# bench TREE CASE: one run of BenchmarkCompute/CASE, its seconds per op.
bench() {
  (cd internal/signal && "$out/$1.test" -test.run '^$' -test.bench "^BenchmarkCompute/$2\$" -test.benchtime 1x) |
    awk '/^BenchmarkCompute/ { printf "%.3f\n", $3 / 1e9 }'
}
cases="mesh-50x200-20days-mesh-2026-3 mesh-50x200-20days-mesh-2026-4"
for r in $(seq "$rounds"); do
  for c in $cases; do
    bench old "$c" >>"$out/old.$c"
    bench new "$c" >>"$out/new.$c"
  done
  for c in mesh-50x200-20days-mesh-2026-4-newday mesh-50x200-20days-mesh-2026-4-kept; do
    bench new "$c" >>"$out/new.$c"
  done
done
echo "BenchmarkCompute, min / median / max of $rounds, alternating:"
for f in "$out"/old.mesh-* "$out"/new.mesh-*; do
  n=$(basename "$f")
  echo "  ${n%%.*} ${n#*.}: $(stats <"$f")"
done

for d in $days; do
  for w in old new; do
    start=$(date +%s.%N)
    "$out/$w.sim" -agents 2000 -days "$d" -validators 20 -rounds 3 >"$out/$w.sim.$d"
    end=$(date +%s.%N)
    echo "assignsim -agents 2000 -days $d -validators 20, $w: $(echo "$end - $start" | bc) s in all; load average $(cut -d' ' -f1 /proc/loadavg)"
    grep 'Compute over' "$out/$w.sim.$d" | sed 's/^/  /'
  done
  if ! diff <(grep -v 'Compute over' "$out/old.sim.$d") <(grep -v 'Compute over' "$out/new.sim.$d") >/dev/null; then
    echo "the simulations over $d days differ"; exit 1
  fi
done

for d in $new_days; do
  start=$(date +%s.%N)
  "$out/new.sim" -agents 2000 -days "$d" -validators 20 -rounds 1 >"$out/new.sim.$d"
  end=$(date +%s.%N)
  echo "assignsim -agents 2000 -days $d -validators 20 -rounds 1, new alone: $(echo "$end - $start" | bc) s in all; load average $(cut -d' ' -f1 /proc/loadavg)"
  grep 'Compute over' "$out/new.sim.$d" | sed 's/^/  /'
done
