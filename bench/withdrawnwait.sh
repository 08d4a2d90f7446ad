#!/usr/bin/env bash
# The quiet heartbeat of a node while a withdrawn trace's item waits
# (docs/decisions.md, "Names": the manual scorer's item gets no
# suggestion, an automatic scorer's is not claimed, and it waits, queued
# and noted, until its trace is listed again): the real `meshnode
# heartbeat` process of this tree ("new") side by side with the binary
# built from BASELINE ("old"), alternating, ROUNDS runs each, on copies of
# one history that bench/stateyear.sh generated (HISTORY, with its log key
# beside it as HISTORY.log-key; DAYS, the days it simulates).
#
# Each binary gets its own git checkout of the history, its scorer
# SCORER (manual unless set: heuristic for an automatic one), and one more peer, served from 127.0.0.1 by python3's
# http.server, listing one pending trace: a heartbeat at T0 without
# standing (FOUNDERS.md names another node) queues the trace, which waits
# without a suggestion; the peer withdraws it (its MANIFEST.md lists no
# row) and the node gets standing back; a heartbeat at T0 + 15 min (news:
# it reads the history) finds the trace withdrawn; a commit. The measured
# heartbeat runs at T0 + 30 min, nothing new, on the committed checkout,
# restored by git after each run.
#
#   HISTORY=/dev/shm/hist3y DAYS=1095 ROUNDS=5 bash bench/withdrawnwait.sh a8732079
#   SCORER=heuristic HISTORY=/dev/shm/hist1y DAYS=365 ROUNDS=5 bash bench/withdrawnwait.sh cc45ee11
#
# WAITING=result makes what waits a worker's stored result instead of the
# item itself: after the heartbeat at T0 queues the trace, a worker
# claims its item and stores its result (bench/workerresult, as `meshnode
# worker` does in a shared store) before the peer withdraws the trace;
# the heartbeat at T0 + 15 min holds the result back, unpublished:
#
#   WAITING=result HISTORY=/dev/shm/hist3y DAYS=1095 ROUNDS=5 bash bench/withdrawnwait.sh 9e28e5ab
#
# WAITING=standing makes it a worker's result waiting for the node's
# standing: the worker stores its result as for WAITING=result, but the
# peer keeps listing the trace and FOUNDERS.md keeps naming another node,
# so the heartbeat at T0 + 15 min (the first in git: it reads the history
# and keeps the derived record) leaves the result unpublished for want of
# standing:
#
#   TMPDIR=/dev/shm WAITING=standing HISTORY=/dev/shm/hist3y DAYS=1095 ROUNDS=5 bash bench/withdrawnwait.sh main
#
# With an automatic scorer a binary that scores the withdrawn trace
# (cc45ee11 and before) publishes its validation at T0 + 15 min,
# and its quiet heartbeat then has nothing waiting: the script says so
# and measures it all the same.
#
# Per binary, min / median / max: wall seconds, CPU seconds (user +
# system), peak RSS, the MB the heartbeat read (rchar), and how many runs
# loaded the history (its log's "history loaded").
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: HISTORY=DIR DAYS=N bash bench/withdrawnwait.sh BASELINE}
hist=${HISTORY:?set HISTORY to a history bench/stateyear.sh generated}
days=${DAYS:?set DAYS to the days of HISTORY}
rounds=${ROUNDS:-5}
scorer=${SCORER:-manual}
waiting=${WAITING:-item}
case $waiting in item | result | standing) ;; *) echo "WAITING is item, result or standing, not $waiting" >&2; exit 2 ;; esac
out=$(mktemp -d)
trap 'kill "${srv:-}" 2>/dev/null || true; rm -rf "$out"' EXIT

go build -o "$out/new" ./cmd/meshnode
go build -o "$out/workerresult" ./bench/workerresult
mkdir "$out/base-src"
git archive "$base" | tar -x -C "$out/base-src"
(cd "$out/base-src" && go build -o "$out/old" ./cmd/meshnode)
echo "new: $(git rev-parse --short HEAD) (+ working tree), old: $(git rev-parse --short "$base")"

at() { date -u -d "2026-01-01T12:00:00Z + $days days + $1 minutes" +%Y-%m-%dT%H:%M:%SZ; }
commit() { (cd "$1" && git add -A -- . ':(exclude,glob)mesh-state/*.lock' && git -c gc.auto=0 -c user.name=b -c user.email=b@b commit -qm "$2"); }
export MESHNODE_LOG_KEY_FILE=$hist.log-key

# The peer: one pending trace, then none (withdrawn).
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
peer=http://127.0.0.1:$port/wd/
mkdir -p "$out/www/wd/traces"
printf '# Withdrawn later\n\n**Type:** knowledge\n\n## Work\n\nWe measured one thing, 1,200 times.\n' >"$out/www/wd/traces/t.md"
hash=sha256:$(sha256sum "$out/www/wd/traces/t.md" | cut -d' ' -f1)
manifest() {
  printf '# MANIFEST\n\nagent: wd\nurl: %s\nupdated: %s\nsequence: 1\n\n| seq | hash | file | type | status | submitted |\n|---|---|---|---|---|---|\n%s' \
    "$peer" "$(at -60)" "$1" >"$out/www/wd/MANIFEST.md"
}
(cd "$out/www" && exec python3 -m http.server --bind 127.0.0.1 "$port" >/dev/null 2>&1) &
srv=$!
sleep 1

for w in new old; do
  run=$out/node-$w
  cp -a "$hist" "$run"
  printf 'scorer: %s\nallow_private_addresses: true\n' "$scorer" >>"$run/mesh.yaml"
  printf '# name | trace_url | joined\nwd | %s | 2026-01-01\n' "$peer" >"$run/AGENTS.md"
  founders=$(cat "$run/FOUNDERS.md")
  echo "nobody | https://nobody.example/" >"$run/FOUNDERS.md"
  manifest "| 1 | $hash | traces/t.md | knowledge | pending | $(at -60) |
"
  /usr/bin/time -f "$w, first heartbeat (reads the history, queues wd's trace): %e s wall" \
    "$out/$w" heartbeat --dir "$run" --now "$(at 0)" >/dev/null 2>"$out/log" || { tail -5 "$out/log"; exit 1; }
  tail -1 "$out/log"
  if [ "$waiting" != item ]; then "$out/workerresult" -dir "$run" -hash "$hash" -at "$(at 1)"; fi
  (cd "$run" && git init -q) && commit "$run" history
  if [ "$waiting" != standing ]; then
    manifest ""
    echo "$founders" >"$run/FOUNDERS.md"
    commit "$run" standing
  fi
  "$out/$w" heartbeat --dir "$run" --now "$(at 15)" >/dev/null 2>"$out/log" || { tail -5 "$out/log"; exit 1; }
  commit "$run" withdrawn >/dev/null 2>&1 || true
  # wd's item, as the queue keeps it: queued, no suggestion (and, new,
  # noted); or, WAITING=result, done with its result unpublished.
  item=$(grep -rh -A30 "$hash" "$run/mesh-state/queue" "$run/mesh-state/queue-settled" 2>/dev/null |
    grep -E '"(status|reason|suggested|published_at)"' | tr -s ' \n' ' ' || true)
  published=$(grep -rl "$hash" "$run/validations" 2>/dev/null | wc -l || true)
  echo "$w: wd's item: $item; validations of it published: $published"
  if [ "$waiting" != item ]; then
    case $item in
    *'"status": "done"'*published_at*) echo "$w: wd's result was published"; exit 1 ;;
    *'"status": "done"'*) [ "$published" = 0 ] || { echo "$w: wd's trace was validated"; exit 1; }; continue ;;
    *) echo "$w: wd's result is not waiting"; exit 1 ;;
    esac
  fi
  case $item in
  *'"status": "queued"'*) ;;
  *) if [ "$scorer" = manual ] || [ "$w" = new ]; then echo "$w: wd's trace is not waiting"; exit 1; fi
     echo "$w: wd's trace was scored, not held: its quiet heartbeat has nothing waiting" ;;
  esac
  case $item in *suggested*) echo "$w: wd's trace got a suggestion"; exit 1 ;; esac
done

stats() { sort -g | awk '{ v[NR] = $1 } END { printf "%s / %s / %s", v[1], v[int((NR + 1) / 2)], v[NR] }'; }
echo
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores, $(date -u +%FT%TZ)"
for w in new old; do for f in wall cpu rss read loaded; do : >"$out/$w.$f"; done; done
for r in $(seq "$rounds"); do
  for w in new old; do
    run=$out/node-$w o=$out/$w
    sh -c '/usr/bin/time -f "%e %M %U %S" -o "$1" "$2" heartbeat --dir "$3" --now "$4" >/dev/null 2>"$5" || exit 1
      awk "/^rchar/ { printf \"%.1f\n\", \$2 / 1e6 }" /proc/$$/io' sh "$out/time" "$out/$w" "$run" "$(at 30)" "$out/log" >>"$o.read" ||
      { tail -5 "$out/log"; exit 1; }
    read -r secs kb user sys <"$out/time"
    echo "$secs" >>"$o.wall"; echo "$user $sys" | awk '{ print $1 + $2 }' >>"$o.cpu"; echo $((kb / 1024)) >>"$o.rss"
    grep -c 'history loaded' "$out/log" >>"$o.loaded" || true
    (cd "$run" && git reset -q --hard && git clean -fdq -- . ':(exclude,glob)mesh-state/*.lock')
  done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| quiet heartbeat, $waiting waiting | binary | wall s (min / median / max) | CPU s, user + system | peak RSS MB | MB read | runs that loaded the history |"
echo "|---|---|---|---|---|---|---|"
for w in new old; do
  o=$out/$w
  echo "| $(basename "$hist") | $w | $(stats <"$o.wall") | $(stats <"$o.cpu") | $(stats <"$o.rss") | $(stats <"$o.read") | $(awk '$1 > 0 { n++ } END { print n + 0 }' "$o.loaded") of $rounds |"
done
