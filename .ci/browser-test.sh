#!/usr/bin/env bash
# Browser test of the static site, run by .ci/run:
#
#   bash .ci/browser-test.sh [NODE_DIR]
#
# Without NODE_DIR (as .ci/run calls it) it checks two nodes:
#  - demo: a node made with `meshnode demo` (a small mesh on loopback);
#  - corpus: a node caught up with the real mesh snapshot in
#    ../shared/corpus/mycel-basecamp (bench/meshsim serves it on loopback,
#    one `meshnode heartbeat` fetches and scores all of it), which also
#    publishes .ci/browser/fixture-trace.md, a trace of our own with an
#    aligned table, code, a task list and agent/seq mentions. Where the
#    snapshot is absent this part is skipped, and says so.
# With NODE_DIR it checks that node alone. It serves each node's site with
# `meshnode serve` on 127.0.0.1, runs html-validate (recommended rules)
# over every HTML page (0 errors), and then, in one headless Chromium for
# all the nodes, .ci/browser/check.mjs opens every page reachable from each
# home page once and fails on any finding of: a broken internal link or
# fragment (#id); axe-core (WCAG 2.2 A and AA) at 1280 and 390 px, light
# and dark; anything wider than the viewport, SVG text cut off, text under
# 11 px; a line of body text over 80 characters at 1280 px; a page taller
# than 25,000 px on a phone, or taller than 6 screens without jump links
# on its first. It saves screenshots of one page of each template, the CI
# artifacts, as
# .ci/artifacts/screenshots/NODE/TEMPLATE-{desktop,phone}-{light,dark}.png.
# Tools: Debian's chromium, nodejs and npm (apt-get, when absent);
# axe-core, html-validate and puppeteer-core at the versions pinned in
# .ci/browser/package-lock.json (npm ci). How long it takes is in
# docs/site.md ("Browser test").
set -euo pipefail
cd "$(dirname "$0")/.."
node=${1:-}
shots=.ci/artifacts/screenshots
port=${PORT:-8391}

missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

(cd .ci/browser && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null)

work=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT
go build -o "$work/meshnode" ./cmd/meshnode

# serve NAME NODE_DIR PORT [serve flags...]: serve one node's site, check
# every page with html-validate, and add the node and the pages to
# screenshot to check.mjs's arguments.
checks=()
serve() {
  local name=$1 node=$2 port=$3
  shift 3
  local site="$work/site-$name" log="$work/serve-$name.log"
  "$work/meshnode" serve --dir "$node" --out "$site" --addr "127.0.0.1:$port" "$@" >"$log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 300); do
    grep -qs serving "$log" && break
    sleep 0.1
  done
  if ! grep -qs serving "$log"; then
    echo "browser test: meshnode serve did not start:" >&2
    cat "$log" >&2
    exit 1
  fi
  echo "== $name node: $(find "$site" -name '*.html' | wc -l) pages"
  find "$site" -name '*.html' -print0 | xargs -0 .ci/browser/node_modules/.bin/html-validate --config .ci/browser/htmlvalidate.json
  echo "html-validate: $(find "$site" -name '*.html' | wc -l) pages, 0 errors"

  # The pages to screenshot, one of each template: the trace page is the
  # last by file name (in a demo node, the newest trace), the agent pages
  # ours and the peer whose page is largest (the one with the most to show).
  local trace self peer
  trace=$(cd "$site" && find traces -maxdepth 1 -name '*.html' ! -name index.html | sort | tail -n 1)
  self=$(sed -n 's/^agent: *//p' "$node/mesh.yaml" 2>/dev/null | head -n 1)
  peer=$(cd "$site" && ls -S agents/*.html | grep -v -e '/index.html$' -e "/${self:-none}.html\$" | head -n 1)
  checks+=(-- "$name" "http://127.0.0.1:$port/" home=index.html agents=agents/index.html peer=$peer traces=traces/index.html
    trace=$trace mesh=mesh/index.html peers=peers.html validations=validations.html signal=signal.html notfound=no/such/page.html)
  [ -n "$self" ] && [ -f "$site/agents/$self.html" ] && checks+=(self=agents/$self.html)
  return 0
}

# check: every page of every node served, in one Chromium.
check() {
  local start=$SECONDS
  node .ci/browser/check.mjs "$shots" "${checks[@]}"
  echo "browser test: check.mjs took $((SECONDS - start)) s"
}

rm -rf "$shots"
mkdir -p "$shots"
if [ -n "$node" ]; then
  serve node "$node" "$port"
  check
  exit 0
fi

"$work/meshnode" demo --dir "$work/demo" >/dev/null
# The demo mesh lives on its own clock; show its presence as of then.
serve demo "$work/demo" "$port" --now "$(sed -n 's/^updated: //p' "$work/demo/MANIFEST.md")"

corpus=../shared/corpus/mycel-basecamp
if [ ! -d "$corpus" ]; then
  echo "browser test: no mesh snapshot at $corpus: the corpus node is not checked (demo node only)"
  check
  exit 0
fi
go build -o "$work/meshsim" ./bench/meshsim
"$work/meshsim" -node "$work/corpus" -corpus "$corpus" -latency 0 >"$work/meshsim.log" 2>&1 &
meshsim=$!
pids+=($meshsim)
for _ in $(seq 1 300); do
  grep -qs ready "$work/meshsim.log" && break
  sleep 0.1
done
grep -qs ready "$work/meshsim.log" || { echo "browser test: meshsim did not start:" >&2; cat "$work/meshsim.log" >&2; exit 1; }
mkdir -p "$work/corpus/traces"
cp .ci/browser/fixture-trace.md "$work/corpus/traces/2026-03-15-browser-test.md"
# One heartbeat catches up with the whole snapshot and publishes the
# fixture trace; the site is then judged a day after it.
"$work/meshnode" heartbeat --dir "$work/corpus" --now 2026-03-15T12:00:00Z >"$work/heartbeat.log" 2>&1 ||
  { echo "browser test: heartbeat of the corpus node failed:" >&2; tail -20 "$work/heartbeat.log" >&2; exit 1; }
kill "$meshsim" 2>/dev/null || true
serve corpus "$work/corpus" "$((port + 1))" --now 2026-03-15T12:00:00Z
check
