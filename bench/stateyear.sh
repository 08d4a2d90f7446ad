#!/usr/bin/env bash
# A heartbeat that finds nothing new after a simulated history
# (bench/stateyear -node: AGENTS agents publishing daily for DAYS days,
# through the real ledger, state and queue code): the real `meshnode
# heartbeat` process of this tree ("new") side by side with the binary
# built from BASELINE ("old"), alternating, ROUNDS runs each, on fresh
# copies of a git checkout of the node. The new binary runs on the history
# as this tree keeps it (the ledger compacted into segments at every
# save), the old one on the same records as nodes before segments kept
# them (stateyear -compact=false; OLD_COMPACT=true for a baseline that
# has segments), written by the baseline's own stateyear, so each binary
# starts from the files its code writes.
#
#   bash bench/stateyear.sh [BASELINE]          # AGENTS=1000 DAYS=365 ROUNDS=3 SAVE_EVERY=30
#   AGENTS=10000 DAYS=30 bash bench/stateyear.sh -   # this tree alone, no baseline
#
# Per binary, min / median / max: wall seconds, CPU seconds (user +
# system), peak RSS, the MB the heartbeat read (rchar of /proc/PID/io:
# every byte its process and its git commands read through read(2)); and
# the bytes on disk of the history (mesh-state/, MANIFEST.md and the
# published files), the largest file the node writes, our MANIFEST.md's
# size, the files the heartbeat changed in the git checkout (what it
# would commit; the lock files are never committed) and the bytes git
# stores for that commit (compressed objects). Each checkout is committed
# after a heartbeat of its binary at T0 and, in the checkout, one at T0 +
# 15 min (the first heartbeat that finds nothing new in a git checkout
# keeps the derived state: docs/decisions.md, "A quiet heartbeat"); the
# measured ones run at T0 + 30 min.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-e94f3e6}
rounds=${ROUNDS:-3}
agents=${AGENTS:-1000}
days=${DAYS:-365}
every=${SAVE_EVERY:-30} # days between the simulation's saves: what a save rewrites is shown for each
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

go build -o "$out/new" ./cmd/meshnode
go build -o "$out/stateyear" ./bench/stateyear
bins="new old"
if [ "$base" = - ]; then
  bins=new
  echo "new: $(git rev-parse --short HEAD) (+ working tree), no baseline"
else
  mkdir "$out/base-src"
  git archive "$base" | tar -x -C "$out/base-src"
  (cd "$out/base-src" && go build -o "$out/old" ./cmd/meshnode && go build -o "$out/stateyear-old" ./bench/stateyear)
  echo "new: $(git rev-parse --short HEAD) (+ working tree), old: $(git rev-parse --short "$base")"
fi

# The simulation starts on 2026-01-01; the heartbeats run at noon of its
# last day (2027-01-01 for 365 days).
at() { date -u -d "2026-01-01T12:$1:00Z + $days days" +%Y-%m-%dT%H:%M:%SZ; }
t0=$(at 00)
t0b=$(at 15)
t1=$(at 30)
commit() { (cd "$1" && git add -A -- . ':(exclude,glob)mesh-state/*.lock' && git -c gc.auto=0 -c user.name=b -c user.email=b@b commit -qm "$2"); }
for w in $bins; do
  compact=true gen="$out/stateyear"; [ "$w" = old ] && compact=${OLD_COMPACT:-false} gen="$out/stateyear-old"
  "$gen" -agents "$agents" -days "$days" -save-every "$every" -compact="$compact" -dir "$out/year-$w" -node >"$out/year.out"
  tail -2 "$out/year.out" | sed "s/^/$w, /"
  "$out/$w" heartbeat --dir "$out/year-$w" --now "$t0" >/dev/null 2>"$out/log" || { tail -5 "$out/log"; exit 1; }
  (cd "$out/year-$w" && git init -q) && commit "$out/year-$w" year
  "$out/$w" heartbeat --dir "$out/year-$w" --now "$t0b" >/dev/null 2>"$out/log" || { tail -5 "$out/log"; exit 1; }
  commit "$out/year-$w" quiet >/dev/null 2>&1 || true # nothing to commit for a binary that keeps no derived state
done
echo "history on disk: $(for w in $bins; do printf "%s %s  " "$w" "$(du -sh --exclude=.git "$out/year-$w" | cut -f1)"; done)"

stats() { sort -g | awk '{ v[NR] = $1 } END { printf "%s / %s / %s", v[1], v[int((NR + 1) / 2)], v[NR] }'; }
# stored: the KB of the compressed objects a commit of the heartbeat's
# changes adds (commit, trees and blobs git did not have); 0 when it
# changed nothing, as a heartbeat that changes nothing commits nothing.
stored() {
  (cd "$1" && git add -A -- . ':(exclude,glob)mesh-state/*.lock' &&
    if git diff --cached --quiet; then echo 0; else
      git -c gc.auto=0 -c user.name=b -c user.email=b@b commit -qm beat &&
        git rev-list --objects HEAD ^HEAD~1 | cut -d' ' -f1 | git cat-file --batch-check='%(objectsize:disk)' |
        awk '{ s += $1 } END { printf "%.1f", s / 1024 }'
    fi)
}
opened() { du -cb "$1/mesh-state" "$1/MANIFEST.md" "$1"/traces "$1"/validations "$1"/disputes 2>/dev/null | tail -1 | awk '{ printf "%.0f", $1 / 1e6 }'; }
largest() { find "$1" -path "$1/.git" -prune -o -type f -printf '%s %P\n' | sort -n | tail -1 | awk '{ printf "%.0f KB (%s)", $1 / 1024, $2 }'; }

echo
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
echo
echo "| $agents agents x $days days, nothing new | binary | wall s (min / median / max) | CPU s, user + system | peak RSS MB | MB read | MB of history | largest file | MANIFEST.md | files changed | KB committed |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for w in $bins; do : >"$out/$w.wall"; : >"$out/$w.cpu"; : >"$out/$w.rss"; : >"$out/$w.read"; : >"$out/$w.changed"; : >"$out/$w.stored"; done
for r in $(seq "$rounds"); do
  for w in $bins; do
    rm -rf "$out/run"; cp -a "$out/year-$w" "$out/run"
    # A copy has new inodes and change times: refresh git's stat data, as
    # a fresh checkout has it, or git's clean check reads every file.
    git -C "$out/run" update-index -q --refresh >/dev/null 2>&1 || true
    # A shell reads its reaped children's I/O counters in its own.
    sh -c '/usr/bin/time -f "%e %M %U %S" -o "$1" "$2" heartbeat --dir "$3" --now "$4" >/dev/null 2>"$5" || exit 1
      awk "/^rchar/ { printf \"%.1f\n\", \$2 / 1e6 }" /proc/$$/io' sh "$out/time" "$out/$w" "$out/run" "$t1" "$out/log" >>"$out/$w.read" ||
      { tail -5 "$out/log"; exit 1; }
    read -r secs kb user sys <"$out/time"
    echo "$secs" >>"$out/$w.wall"; echo "$user $sys" | awk '{ print $1 + $2 }' >>"$out/$w.cpu"; echo $((kb / 1024)) >>"$out/$w.rss"
    (cd "$out/run" && git status --porcelain -- . ':(exclude,glob)mesh-state/*.lock' | wc -l) >>"$out/$w.changed"
    echo "$(opened "$out/run") | $(largest "$out/run") | $(stat -c %s "$out/run/MANIFEST.md") B" >"$out/$w.other"
    stored "$out/run" >>"$out/$w.stored"
  done
done
for w in $bins; do
  echo "| | $w | $(stats <"$out/$w.wall") | $(stats <"$out/$w.cpu") | $(stats <"$out/$w.rss") | $(stats <"$out/$w.read") | $(cat "$out/$w.other") | $(stats <"$out/$w.changed") | $(stats <"$out/$w.stored") |"
done
