#!/usr/bin/env bash
# A node whose own history passes manifest.MaxRows (issue 24): 100,001
# published files listed in MANIFEST.md, as a node that ran before
# MANIFEST.md was archived leaves it. Two heartbeats must run and publish;
# MANIFEST.md must come out under limits.manifest_bytes, the rest in
# archive pages. Prints both heartbeats' wall times and MANIFEST.md's size;
# the whole test takes two to six minutes (writing and removing the files).
#
#   bash bench/ownhistory.sh
set -euo pipefail
cd "$(dirname "$0")/.."
MESHNODE_SCALE_TEST=1 go test -count=1 -timeout 30m -run '^TestNodePastTheRowLimitKeepsPublishing$' -v ./internal/heartbeat/
