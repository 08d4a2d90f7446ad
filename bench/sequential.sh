#!/usr/bin/env bash
# sequential.sh NODE_DIR: the baseline the heartbeat's catch-up is compared
# with in bench/heartbeat.sh. For every agent of NODE_DIR/AGENTS.md, one
# after the other, it fetches MANIFEST.md with curl, then every file its rows
# list, and checks each with sha256sum: what a shell loop would do, with no
# cursor, no concurrency and no politeness. It prints "verified N of M".
set -euo pipefail
node=$1
verified=0 total=0
while IFS='|' read -r name url _; do
  url=$(echo "$url" | tr -d ' ')
  [ -n "$url" ] || continue
  manifest=$(curl -fsS --max-time 20 "${url}MANIFEST.md") || continue
  while read -r hash file; do
    total=$((total + 1))
    got=$(curl -fsS --max-time 20 "${url}${file}" | sha256sum | cut -d' ' -f1) || continue
    [ "sha256:$got" = "$hash" ] && verified=$((verified + 1))
  done < <(grep -oE 'sha256:[0-9a-f]{64} *\| *[^| ]+\.md' <<<"$manifest" | tr -d '|' | tr -s ' ')
done < <(grep -v '^#' "$node/AGENTS.md")
echo "verified $verified of $total"
