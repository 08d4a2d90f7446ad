#!/usr/bin/env bash
# The time of `meshnode commit` with nothing to commit (a quiet
# heartbeat's commit step, every 30 minutes): this tree's binary ("new")
# side by side with the one built from BASELINE ("old"), alternating
# (old first in odd rounds),
# ROUNDS runs each, min / median / max in milliseconds.
#
#   bash bench/quietcommit.sh [BASELINE]   # ROUNDS=61
#
# The checkout holds the template's .gitignore, 200 ledger files and 200
# ignored copies of peers' traces, all committed but the copies.
set -euo pipefail
cd "$(dirname "$0")/.."
BASELINE=${1:-HEAD}
ROUNDS=${ROUNDS:-61}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o "$work/meshnode-new" ./cmd/meshnode
git archive --format=tar --prefix=old/ "$BASELINE" | tar -x -C "$work"
(cd "$work/old" && go build -o "$work/meshnode-old" ./cmd/meshnode)

repo=$work/repo
mkdir -p "$repo/traces" "$repo/mesh-state/ledger" "$repo/mesh-state/copies"
cp .gitignore "$repo/"
echo '# One' > "$repo/traces/one.md"
echo 'sequence: 1' > "$repo/MANIFEST.md"
for i in $(seq 1 200); do
  echo "{\"n\":$i}" > "$repo/mesh-state/ledger/$i.json"
  echo '{"copies":{}}' > "$repo/mesh-state/copies/p${i}_0000abcd.json"
done
git -C "$repo" init -q -b main
git -C "$repo" add -A
git -C "$repo" -c user.name=bench -c user.email=bench@example.org commit -qm start

for i in $(seq 1 "$ROUNDS"); do
  order="old new"
  if ((i % 2 == 0)); then order="new old"; fi
  for b in $order; do
    s=$(date +%s%N)
    "$work/meshnode-$b" commit --dir "$repo" >/dev/null
    e=$(date +%s%N)
    echo $(((e - s) / 1000)) >> "$work/times-$b"
  done
done
for b in old new; do
  sort -n "$work/times-$b" | awk -v b="$b" '{a[NR] = $1} END {printf "%s: %.1f / %.1f / %.1f ms (min / median / max, %d runs)\n", b, a[1] / 1000, a[int((NR + 1) / 2)] / 1000, a[NR] / 1000, NR}'
done
