#!/usr/bin/env bash
# A heartbeat that finds nothing new after a simulated history
# (bench/stateyear -node: AGENTS agents over DAYS days, through the real
# ledger, state, queue and publish code): the real `meshnode heartbeat`
# process of this tree ("new") side by side with the binary built from
# BASELINE ("old"), alternating, ROUNDS runs each, on one history that
# this tree's generator writes (the formats are the same; a baseline's own
# generator could not make years of 10,000 agents). Each binary gets its
# own git checkout of it: a heartbeat at T0 (which reads the history and
# keeps its derived state), a commit, a heartbeat at T0 + 15 min that
# finds nothing new, a commit (docs/decisions.md, "A quiet heartbeat").
# The measured heartbeats run at T0 + 30 min ("quiet"), T0 + 90 min
# ("refresh": our MANIFEST.md is due its presence refresh) and T0 + 45 min
# with mesh-state/derived.json removed ("news": the heartbeat takes the
# path of one that found news, loading the history, computing SIGNAL and
# saving, as the first heartbeat does, but repeatably), each on the
# committed checkout, restored by git after each run. A kind named
# "publish" is "news" in which the node also publishes one new trace of
# its own, as an operator's new file under traces/ would be: its row is
# planned among ours, so SIGNAL is computed over the planned rows
# (docs/decisions.md, "Our new rows' statuses").
#
#   bash bench/stateyear.sh [BASELINE]          # AGENTS=1000 DAYS=365 ROUNDS=3
#   AGENTS=10000 DAYS=1095 TRACE_EVERY=30 VOTES=1 OWN=50 bash bench/stateyear.sh 6951c45
#   AGENTS=10000 DAYS=30 bash bench/stateyear.sh -   # this tree alone
#
# The history: each agent publishes a trace every TRACE_EVERY days (1),
# daily in the last QUEUE_DAYS (8), when the queue is worked; each trace is
# validated by VOTES other agents (0), which the node records; the node
# publishes OWN validations a day (0), with MANIFEST.md, its archive pages
# and its signed log (the key outside the node, given to the heartbeats);
# state saved every SAVE_EVERY days (30). Set HISTORY=DIR to keep the
# generated history in DIR (and reuse it when DIR exists), and
# OLD_HISTORY=DIR to give the baseline a history of its own instead (one
# in its own format, with its log key beside it as DIR.log-key, as this
# script leaves it; the days must be the same). KINDS picks
# the measured heartbeats as name:minutes after T0 (default "quiet:30
# refresh:90 news:45"; KINDS=quiet:30 for the quiet heartbeat alone;
# KINDS="news:45 publish:45" for our own trace against news alone).
#
# Per binary and heartbeat, min / median / max: wall seconds, CPU seconds
# (user + system), peak RSS, the MB the heartbeat read (rchar of
# /proc/PID/io: every byte its process and its git commands read through
# read(2)), the files it changed in the checkout (what it would commit;
# the lock files are never committed) and the KB git stores for that
# commit (compressed objects); and the largest file of the node (git's
# own excepted) and our MANIFEST.md's size after it.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-6951c45}
rounds=${ROUNDS:-3}
agents=${AGENTS:-1000}
days=${DAYS:-365}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
hist=${HISTORY:-$out/history}

go build -o "$out/new" ./cmd/meshnode
go build -o "$out/stateyear" ./bench/stateyear
bins="new old"
if [ "$base" = - ]; then
  bins=new
  echo "new: $(git rev-parse --short HEAD) (+ working tree), no baseline"
else
  mkdir "$out/base-src"
  git archive "$base" | tar -x -C "$out/base-src"
  (cd "$out/base-src" && go build -o "$out/old" ./cmd/meshnode)
  echo "new: $(git rev-parse --short HEAD) (+ working tree), old: $(git rev-parse --short "$base")"
fi

if [ ! -d "$hist" ]; then
  /usr/bin/time -f "generator: %e s wall, %U s user, %S s system, %M KB peak" "$out/stateyear" \
    -agents "$agents" -days "$days" -save-every "${SAVE_EVERY:-30}" -trace-every "${TRACE_EVERY:-1}" \
    -queue-days "${QUEUE_DAYS:-8}" -votes "${VOTES:-0}" -own "${OWN:-0}" \
    -node -dir "$hist" -log-key "$hist.log-key" >"$out/year.out" 2>&1 || { tail -5 "$out/year.out"; exit 1; }
  tail -3 "$out/year.out"
fi
# histof is the history binary $1 runs on, keyof the key of its log.
histof() { if [ "$1" = old ] && [ -n "${OLD_HISTORY:-}" ]; then echo "$OLD_HISTORY"; else echo "$hist"; fi; }
keyof() { echo "$(histof "$1").log-key"; }

# The simulation starts on 2026-01-01; the heartbeats run from noon of
# its last day (2027-01-01 for 365 days).
at() { date -u -d "2026-01-01T12:00:00Z + $days days + $1 minutes" +%Y-%m-%dT%H:%M:%SZ; }
commit() { (cd "$1" && git add -A -- . ':(exclude,glob)mesh-state/*.lock' && git -c gc.auto=0 -c user.name=b -c user.email=b@b commit -qm "$2"); }
for w in $bins; do
  export MESHNODE_LOG_KEY_FILE; MESHNODE_LOG_KEY_FILE=$(keyof "$w")
  cp -a "$(histof "$w")" "$out/node-$w"
  /usr/bin/time -f "$w, first heartbeat (reads the history): %e s wall, %U s user, %M KB peak" \
    "$out/$w" heartbeat --dir "$out/node-$w" --now "$(at 0)" >/dev/null 2>"$out/log" || { tail -5 "$out/log"; exit 1; }
  tail -1 "$out/log"
  (cd "$out/node-$w" && git init -q) && commit "$out/node-$w" history
  "$out/$w" heartbeat --dir "$out/node-$w" --now "$(at 15)" >/dev/null 2>"$out/log" || { tail -5 "$out/log"; exit 1; }
  commit "$out/node-$w" quiet >/dev/null 2>&1 || true # nothing to commit for a binary that keeps its derived state
  echo "$w: $(cd "$out/node-$w" && git ls-files | wc -l) files tracked, $(find "$out/node-$w" -path "$out/node-$w/.git" -prune -o -type d -print | wc -l) directories"
done
echo "history on disk: $(du -sh --exclude=.git "$hist" | cut -f1), $(find "$hist" -type f | wc -l) files"

stats() { sort -g | awk '{ v[NR] = $1 } END { printf "%s / %s / %s", v[1], v[int((NR + 1) / 2)], v[NR] }'; }
# stored: the KB of the compressed objects a commit of the heartbeat's
# changes adds (commit, trees and blobs git did not have); 0 when it
# changed nothing, as a heartbeat that changes nothing commits nothing.
stored() {
  (cd "$1" && git add -A -- . ':(exclude,glob)mesh-state/*.lock' &&
    if git diff --cached --quiet; then echo 0; else
      git -c gc.auto=0 -c user.name=b -c user.email=b@b commit -qm beat &&
        git rev-list --objects HEAD ^HEAD~1 | cut -d' ' -f1 | git cat-file --batch-check='%(objectsize:disk)' |
        awk '{ s += $1 } END { printf "%.1f\n", s / 1024 }' && git reset -q --hard HEAD~1
    fi)
}
largest() { find "$1" -path "$1/.git" -prune -o -type f -printf '%s %P\n' | sort -n | tail -1 | awk '{ printf "%.0f KB (%s)", $1 / 1024, $2 }'; }

echo
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
echo
echo "| $agents agents x $days days | binary | wall s (min / median / max) | CPU s, user + system | peak RSS MB | MB read | files changed | KB committed | largest file | MANIFEST.md |"
echo "|---|---|---|---|---|---|---|---|---|---|"
kinds=${KINDS:-quiet:30 refresh:90 news:45}
for k in $kinds; do for w in $bins; do for f in wall cpu rss read changed stored; do : >"$out/$w.${k%:*}.$f"; done; done; done
for r in $(seq "$rounds"); do
  for k in $kinds; do
    for w in $bins; do
      run=$out/node-$w m=${k#*:} o=$out/$w.${k%:*}
      case ${k%:*} in
      news) rm -f "$run/mesh-state/derived.json" ;;
      publish)
        rm -f "$run/mesh-state/derived.json"
        mkdir -p "$run/traces"
        printf '# Our note\n\n## Work\n\nA trace of ours, published %s.\n' "$(at "$m")" >"$run/traces/bench-note.md"
        ;;
      esac
      # A shell reads its reaped children's I/O counters in its own.
      MESHNODE_LOG_KEY_FILE=$(keyof "$w") sh -c '/usr/bin/time -f "%e %M %U %S" -o "$1" "$2" heartbeat --dir "$3" --now "$4" >/dev/null 2>"$5" || exit 1
        awk "/^rchar/ { printf \"%.1f\n\", \$2 / 1e6 }" /proc/$$/io' sh "$out/time" "$out/$w" "$run" "$(at "$m")" "$out/log" >>"$o.read" ||
        { tail -5 "$out/log"; exit 1; }
      read -r secs kb user sys <"$out/time"
      echo "$secs" >>"$o.wall"; echo "$user $sys" | awk '{ print $1 + $2 }' >>"$o.cpu"; echo $((kb / 1024)) >>"$o.rss"
      (cd "$run" && git status --porcelain -- . ':(exclude,glob)mesh-state/*.lock' | wc -l) >>"$o.changed"
      echo "$(largest "$run") | $(stat -c %s "$run/MANIFEST.md") B" >"$o.other"
      stored "$run" >>"$o.stored"
      # Back to the committed checkout for the next run.
      (cd "$run" && git reset -q --hard && git clean -fdq -- . ':(exclude,glob)mesh-state/*.lock')
    done
  done
done
for k in $kinds; do
  for w in $bins; do
    o=$out/$w.${k%:*}
    echo "| ${k%:*} | $w | $(stats <"$o.wall") | $(stats <"$o.cpu") | $(stats <"$o.rss") | $(stats <"$o.read") | $(stats <"$o.changed") | $(stats <"$o.stored") | $(cat "$o.other") |"
  done
done
