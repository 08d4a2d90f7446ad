#!/usr/bin/env bash
# What a development build's identity costs at start (internal/buildid:
# the sha256 of its executable, read once; internal/site names its
# template cache by it when the package starts): `meshnode version`, the
# cheapest command, of this tree's binary ("new") side by side with the
# one built from BASELINE ("old"), alternating, ROUNDS runs each. Both are
# built with -buildvcs=false, as go run and go test build, so both are
# development builds.
#
#   ROUNDS=20 bash bench/devstart.sh main
#
# Per binary, min / median / max: wall seconds, CPU seconds (user +
# system) and peak RSS, from /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: bash bench/devstart.sh BASELINE}
rounds=${ROUNDS:-20}
work=$(mktemp -d "${TMPDIR:-/tmp}/devstart-XXXXXX")
trap 'rm -rf "$work"' EXIT

go build -buildvcs=false -o "$work/new" ./cmd/meshnode
mkdir "$work/base-src"
git archive "$base" | tar -x -C "$work/base-src"
(cd "$work/base-src" && go build -buildvcs=false -o "$work/old" ./cmd/meshnode)
echo "new: $(git rev-parse --short HEAD), old: $(git rev-parse --short "$base"), $(stat -c %s "$work/new") bytes"
for r in $(seq "$rounds"); do
  for bin in old new; do
    /usr/bin/time -f "%e %U %S %M" -o "$work/t" "$work/$bin" version >/dev/null
    echo "$bin $(tail -1 "$work/t")" >>"$work/times"
  done
done
for bin in old new; do
  awk -v bin="$bin" '$1 == bin { w[++n] = $2; cpu[n] = $3 + $4; rss[n] = $5 / 1024 }
    function sorted(a,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t } }
    END { sorted(w); sorted(cpu); sorted(rss); m = int((n + 1) / 2)
      printf "%-4s wall %6.3f %6.3f %6.3f s   cpu %6.3f %6.3f %6.3f s   rss %5.0f %5.0f %5.0f MB\n", bin, w[1], w[m], w[n], cpu[1], cpu[m], cpu[n], rss[1], rss[m], rss[n] }' "$work/times"
done
