#!/usr/bin/env bash
# What a heartbeat with news commits, in packed bytes per new record
# (issue 24: "at most about 200 packed bytes per new record, measured with
# git"), and what the quiet heartbeat after it commits: the real
# `meshnode heartbeat` of this tree ("new") side by side with the binary
# built from BASELINE ("old"), on loopback (bench/meshsim: PEERS synthetic
# peers on 50 hosts, no added latency; the node is a founder, so it
# scores and validates).
#
#   bash bench/commitcost.sh [BASELINE]   # PEERS=1000 DAYS=10 ROUNDS=3
#
# Each binary builds its own history in its own git checkout: DAYS
# heartbeats a day apart, each after every peer published one trace (PEERS
# at most 1,000, what a heartbeat validates at most), each
# committed as the workflow commits (every file but the lock files and
# what the tree's .gitignore lists: `git add -A`). Then
# ROUNDS measured rounds, the binaries alternating (new first in odd
# rounds): every peer publishes one more trace, so a heartbeat has PEERS
# new records (a peer's trace fetched, scored and validated: its ledger
# record, cursor, seen hash and queue item, our validation and its
# MANIFEST.md row and log entry); it is committed, and the commit measured;
# then a heartbeat 30 minutes later that finds nothing new, committed too.
#
# Packed bytes are the size of the pack in `git bundle create B HEAD
# ^HEAD~1`: the thin pack of the objects the commit adds, deltas against
# the objects its parent holds, which is what the push sends and what the
# remote stores until it repacks. (`git repack -adq` and the change of
# `count-objects -v`'s size-pack would repack the whole history at every
# step, and a full repack may move deltas onto older objects, so it does
# not isolate one commit.) The breakdown by path packs, for each top-level
# path the commit changed (a directory of mesh-state/ each), a commit of
# the parent's tree with only that path as HEAD has it, the same way; the
# parts overlap by a commit and a few trees each.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-658dfe5}
rounds=${ROUNDS:-3}
peers=${PEERS:-1000}
days=${DAYS:-10}
out=$(mktemp -d)
sim_pid=
cleanup() {
  [ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null || true
  if [ -n "${KEEP:-}" ]; then echo "kept in $out"; else rm -rf "$out"; fi
}
trap cleanup EXIT

go build -o "$out/new" ./cmd/meshnode
go build -o "$out/meshsim" ./bench/meshsim
mkdir "$out/base-src"
git archive "$base" | tar -x -C "$out/base-src"
(cd "$out/base-src" && go build -o "$out/old" ./cmd/meshnode)
echo "new: $(git rev-parse --short HEAD) (+ working tree), old: $(git rev-parse --short "$base")"

"$out/meshsim" -node "$out/mesh" -peers "$peers" -hosts 50 -traces 1 -latency 0 >"$out/sim" 2>&1 &
sim_pid=$!
for _ in $(seq 600); do grep -q ready "$out/sim" 2>/dev/null && break; sleep 0.1; done
grep -q ready "$out/sim" || { echo "meshsim did not start"; cat "$out/sim"; exit 1; }
day_url=$(awk '/^publish/ { sub("/_meshsim/publish", "/_meshsim/day", $2); print $2 }' "$out/sim")

at() { date -u -d "2026-03-01T12:00:00Z + $1 days + $2 minutes" +%Y-%m-%dT%H:%M:%SZ; }
git_() { git -C "$1" -c gc.auto=0 -c user.name=b -c user.email=b@b "${@:2}"; }
# commit DIR: commits the node's files as the workflow does; says whether
# there was anything to commit.
commit() {
  git_ "$1" add -A -- . ':(exclude,glob)mesh-state/*.lock'
  if git_ "$1" diff --cached --quiet; then echo no; else git_ "$1" commit -qm beat && echo yes; fi
}
# packed DIR [REF]: the bytes of the pack of REF (default HEAD) against HEAD~1.
packed() {
  git_ "$1" bundle create -q "$out/b.bundle" "${2:-HEAD}" ^HEAD~1
  # The bundle is a few header lines, then the pack.
  echo $(($(stat -c %s "$out/b.bundle") - $(grep -abo PACK "$out/b.bundle" | head -1 | cut -d: -f1)))
}
# breakdown DIR: "path bytes" of HEAD's pack (packed() without the
# bundle's header), for each top-level path (a directory of mesh-state/
# each), its trees apart: the pack indexed with its bases appended
# (index-pack --fix-thin), whose listing gives each object's bytes in the
# pack, named by rev-list's path of it; each tree under the group of its
# own path ("trees:validations": the directory's tree, whose entry per
# new file is part of a new record's cost).
breakdown() {
  local d=$1
  rm -f "$out"/bd.*
  printf 'HEAD\n^HEAD~1\n' | git_ "$d" pack-objects --revs --thin --stdout -q --delta-base-offset >"$out/bd.in"
  git_ "$d" index-pack --fix-thin --stdin "$out/bd.pack" <"$out/bd.in" >/dev/null
  git_ "$d" rev-list --objects HEAD ^HEAD~1 >"$out/bd.objs"
  git_ "$d" verify-pack -v "$out/bd.idx" | awk 'NF >= 5 && $2 ~ /^(blob|tree|commit)$/ { print $1, $2, $4 }' |
    awk 'NR == FNR { path[$1] = $2; next }
      ($1 in path) { n = split(path[$1], a, "/"); g = (a[1] == "mesh-state" && n > 1) ? a[1] "/" a[2] : a[1]
        if ($2 == "tree") g = "trees:" (path[$1] == "" ? "/" : g); if ($2 == "commit") g = "commit"; s[g] += $3 }
      END { for (g in s) print g, s[g] }' "$out/bd.objs" -
}
# sizepack DIR: the KiB of DIR's packs after `git repack -adq`.
sizepack() {
  git_ "$1" repack -adq
  git -C "$1" count-objects -v | awk '/^size-pack/ { print $2 }'
}

# Every peer is polled at every heartbeat (a peer quiet for a day would
# otherwise wait its turn: docs/decisions.md, "Adaptive polling"), so
# each heartbeat with news has PEERS new records.
printf 'polling:\n  quiet_after: 0\n' >>"$out/mesh/mesh.yaml"
# Each node is a fork of its own tree: the tree's .gitignore says what a
# commit of every file leaves out (this tree's, the copies of peers'
# traces: docs/decisions.md, "What the node commits").
cp .gitignore "$out/mesh-new.gitignore"
cp "$out/base-src/.gitignore" "$out/mesh-old.gitignore"
for w in new old; do
  cp -r "$out/mesh" "$out/$w-node"
  cp "$out/mesh-$w.gitignore" "$out/$w-node/.gitignore"
  git -C "$out/$w-node" init -q
  commit "$out/$w-node" >/dev/null
done
# Day 0 is the peers' first trace; a heartbeat a day, each with PEERS new
# traces, which stays within the 1,000 validations a heartbeat publishes
# at most (docs/security.md), so no backlog is left for the next one.
for d in $(seq 0 $((days - 1))); do
  [ "$d" = 0 ] || curl -fsS "$day_url" >/dev/null
  for w in new old; do
    "$out/$w" heartbeat --dir "$out/$w-node" --now "$(at "$d" 0)" >/dev/null 2>"$out/log" || { tail -5 "$out/log"; exit 1; }
    commit "$out/$w-node" >/dev/null
  done
done
for w in new old; do
  echo "$w: history of $days days: $(sizepack "$out/$w-node") KiB packed, $(du -sh --exclude=.git "$out/$w-node" | cut -f1) of files, MANIFEST.md $(stat -c %s "$out/$w-node/MANIFEST.md") B"
done
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"

stats() { sort -g | awk '{ v[NR] = $1 } END { printf "%s / %s / %s", v[1], v[int((NR + 1) / 2)], v[NR] }'; }
field() { grep -o "\"$1\": [0-9.]*" "$2" | awk '{ print $2 }'; }
for w in new old; do : >"$out/$w.bytes"; : >"$out/$w.per"; : >"$out/$w.records"; : >"$out/$w.quiet"; : >"$out/$w.parts"; : >"$out/$w.repacked"; done
for r in $(seq "$rounds"); do
  curl -fsS "$day_url" >/dev/null
  d=$((days - 1 + r))
  order="new old"; [ $((r % 2)) = 0 ] && order="old new"
  for w in $order; do
    dir="$out/$w-node"
    before=$(sizepack "$dir")
    "$out/$w" heartbeat --dir "$dir" --now "$(at "$d" 0)" --summary "$out/sum.json" >/dev/null 2>"$out/log" || { tail -5 "$out/log"; exit 1; }
    records=$(field validations_published "$out/sum.json")
    # Every figure is per record: a round without any has none to give.
    if [ "${records:-0}" = 0 ]; then
      echo "$w: round $r published no validation, so there is no cost per record to measure (is the node a founder, and did the peers publish?)"
      exit 1
    fi
    [ "$(commit "$dir")" = yes ] || { echo "$w: a heartbeat with news committed nothing"; exit 1; }
    bytes=$(packed "$dir")
    echo "$records" >>"$out/$w.records"; echo "$bytes" >>"$out/$w.bytes"
    echo "$bytes $records" | awk '{ printf "%.0f\n", $1 / $2 }' >>"$out/$w.per"
    breakdown "$dir" | awk -v n="$records" '{ print $1, $2 / n }' >>"$out/$w.parts"
    after=$(sizepack "$dir")
    echo "$before $after $records" | awk '{ printf "%.0f\n", ($2 - $1) * 1024 / $3 }' >>"$out/$w.repacked"
    "$out/$w" heartbeat --dir "$dir" --now "$(at "$d" 30)" >/dev/null 2>"$out/log" || { tail -5 "$out/log"; exit 1; }
    (cd "$dir" && git status --porcelain -- . ':(exclude,glob)mesh-state/*.lock' | wc -l) >>"$out/$w.quiet"
    commit "$dir" >/dev/null
  done
done

echo
echo "| $peers peers, after $days days | binary | new records (validations published) | bytes pushed (thin pack) | pushed per new record | repacked growth per new record | files the quiet heartbeat after it leaves to commit |"
echo "|---|---|---|---|---|---|---|"
for w in new old; do
  echo "| | $w | $(stats <"$out/$w.records") | $(stats <"$out/$w.bytes") | $(stats <"$out/$w.per") | $(stats <"$out/$w.repacked") | $(stats <"$out/$w.quiet") |"
done
echo
echo "Bytes of the pushed pack per new record, by path (min / median / max over the rounds):"
echo
echo "| path | new | old |"
echo "|---|---|---|"
for p in $(cat "$out/new.parts" "$out/old.parts" | cut -d' ' -f1 | sort -u); do
  echo "| $p | $(awk -v p="$p" '$1 == p { printf "%.0f\n", $2 }' "$out/new.parts" | stats) | $(awk -v p="$p" '$1 == p { printf "%.0f\n", $2 }' "$out/old.parts" | stats) |"
done
