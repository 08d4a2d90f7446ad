#!/usr/bin/env bash
# A heartbeat that finds nothing new after a simulated history
# (bench/stateyear -node: AGENTS agents publishing daily for DAYS days,
# through the real ledger, state and queue code): the real `meshnode
# heartbeat` process of this tree ("new") side by side with the binary
# built from BASELINE ("old"), alternating, ROUNDS runs each, on fresh
# copies of one git checkout of the node.
#
#   bash bench/stateyear.sh [BASELINE]          # AGENTS=1000 DAYS=365 ROUNDS=3
#
# Per binary, min / median / max: wall seconds, CPU seconds (user +
# system), peak RSS; and the bytes on disk a heartbeat opens (mesh-state/,
# MANIFEST.md and the published files), the largest file the node writes,
# our MANIFEST.md's size, and the files the heartbeat changed in the git
# checkout (what it would commit; the lock files are never committed). The checkout is committed after one
# heartbeat of the new binary at T0; the measured ones run at T0 + 30 min.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-11fdbc4}
rounds=${ROUNDS:-3}
agents=${AGENTS:-1000}
days=${DAYS:-365}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

go build -o "$out/new" ./cmd/meshnode
go build -o "$out/stateyear" ./bench/stateyear
mkdir "$out/base-src"
git archive "$base" | tar -x -C "$out/base-src"
(cd "$out/base-src" && go build -o "$out/old" ./cmd/meshnode)
echo "new: $(git rev-parse --short HEAD) (+ working tree), old: $(git rev-parse --short "$base")"

t0=2027-01-01T12:00:00Z
t1=2027-01-01T12:30:00Z
"$out/stateyear" -agents "$agents" -days "$days" -save-every "$days" -dir "$out/year" -node >"$out/year.out"
tail -1 "$out/year.out"
"$out/new" heartbeat --dir "$out/year" --now "$t0" >/dev/null 2>"$out/log" || { tail -5 "$out/log"; exit 1; }
(cd "$out/year" && git init -q && git add -A && git -c user.name=b -c user.email=b@b commit -qm year)

stats() { sort -g | awk '{ v[NR] = $1 } END { printf "%s / %s / %s", v[1], v[int((NR + 1) / 2)], v[NR] }'; }
opened() { du -cb "$1/mesh-state" "$1/MANIFEST.md" "$1"/traces "$1"/validations "$1"/disputes 2>/dev/null | tail -1 | awk '{ printf "%.0f", $1 / 1e6 }'; }
largest() { find "$1" -path "$1/.git" -prune -o -type f -printf '%s %P\n' | sort -n | tail -1 | awk '{ printf "%.0f KB (%s)", $1 / 1024, $2 }'; }

echo
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
echo
echo "| $agents agents x $days days, nothing new | binary | wall s (min / median / max) | CPU s, user + system | peak RSS MB | MB opened | largest file | MANIFEST.md | files changed |"
echo "|---|---|---|---|---|---|---|---|---|"
for w in new old; do : >"$out/$w.wall"; : >"$out/$w.cpu"; : >"$out/$w.rss"; : >"$out/$w.changed"; done
for r in $(seq "$rounds"); do
  for w in new old; do
    rm -rf "$out/run"; cp -a "$out/year" "$out/run"
    /usr/bin/time -f '%e %M %U %S' -o "$out/time" "$out/$w" heartbeat --dir "$out/run" --now "$t1" >/dev/null 2>"$out/log" ||
      { tail -5 "$out/log"; exit 1; }
    read -r secs kb user sys <"$out/time"
    echo "$secs" >>"$out/$w.wall"; echo "$user $sys" | awk '{ print $1 + $2 }' >>"$out/$w.cpu"; echo $((kb / 1024)) >>"$out/$w.rss"
    (cd "$out/run" && git status --porcelain -- . ':(exclude,glob)mesh-state/*.lock' | wc -l) >>"$out/$w.changed"
    echo "$(opened "$out/run") | $(largest "$out/run") | $(stat -c %s "$out/run/MANIFEST.md") B" >"$out/$w.other"
  done
done
for w in new old; do
  echo "| | $w | $(stats <"$out/$w.wall") | $(stats <"$out/$w.cpu") | $(stats <"$out/$w.rss") | $(cat "$out/$w.other") | $(stats <"$out/$w.changed") |"
done
