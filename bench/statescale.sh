#!/usr/bin/env bash
# A heartbeat's state work at scale (issues 24 and 25): bench/relaysim of
# this tree ("new") side by side with the one built from BASELINE ("old"),
# the runs alternating (new first in odd rounds), with the nodes' state
# kept in memory through the measured day (-state-in-memory) and one load
# and save of it measured apart. It prints, per mode (direct, through two
# relays), the min / median / max over ROUNDS of the CPU seconds of the
# measured day without the state's load and save, and of one load and
# save, and checks that both binaries make the same requests.
#
#   bash bench/statescale.sh [BASELINE]   # AGENTS=10000 ROUNDS=3
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-6951c45}
rounds=${ROUNDS:-3}
agents=${AGENTS:-10000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

go build -o "$out/new" ./bench/relaysim
mkdir "$out/base-src"
git archive "$base" | tar -x -C "$out/base-src"
(cd "$out/base-src" && go build -o "$out/old" ./bench/relaysim)
echo "new: $(git rev-parse --short HEAD) (+ working tree), old: $(git rev-parse --short "$base"); $agents agents, $rounds rounds; load average $(cut -d' ' -f1-3 /proc/loadavg)"

args=(-agents "$agents" -publish 0.1 -days 1 -relays 2 -validators 1000 -state-in-memory)
for r in $(seq "$rounds"); do
  order="new old"
  [ $((r % 2)) -eq 0 ] && order="old new"
  for b in $order; do
    "$out/$b" "${args[@]}" >"$out/$b.$r"
    echo "round $r $b: $(grep -E '^(requests|CPU s)' "$out/$b.$r" | awk '{ printf "%s | ", $0 }')"
  done
done

# stat ROW COLUMN BINARY: min / median / max of a row's column over the rounds.
stat() {
  for r in $(seq "$rounds"); do grep -E "^$1 " "$out/$3.$r" | awk -v c="$2" '{ print $(NF - 2 + c) }'; done |
    sort -g | awk '{ v[NR] = $1 } END { printf "%.2f / %.2f / %.2f", v[1], v[int((NR + 1) / 2)], v[NR] }'
}
for b in old new; do
  for col in 1 2; do
    mode=direct; [ "$col" -eq 2 ] && mode=relays
    echo "$b $mode: CPU s of the day, state in memory $(stat 'CPU s, state in memory' "$col" "$b"); CPU s of a load and save $(stat 'CPU s, a load and save' "$col" "$b")"
  done
done
for r in $(seq "$rounds"); do
  if ! diff <(grep -E '^(requests|body bytes|validations)' "$out/old.$r") <(grep -E '^(requests|body bytes|validations)' "$out/new.$r") >/dev/null; then
    echo "round $r: the requests, bytes or validations differ"; exit 1
  fi
done
echo "requests, bytes and validations: the same in every run"
