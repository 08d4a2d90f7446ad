#!/usr/bin/env bash
# Browser test of the static site, run by .ci/run:
#
#   bash .ci/browser-test.sh [NODE_DIR]
#
# Without NODE_DIR (as .ci/run calls it) it makes a demo node with
# `meshnode demo`. Builds NODE_DIR's site with `meshnode build`, serves it with
# `meshnode serve` on 127.0.0.1, opens every page in headless Chromium
# (Debian's chromium, installed with python3 if absent) and checks that
# every internal href and src of the rendered DOM resolves (HTTP 200),
# exiting non-zero on the first crawl with a broken one. Then saves
# screenshots, the CI artifacts, under .ci/artifacts/screenshots/:
#   home.png, trace.png             desktop (1280x900), light
#   home-dark.png, trace-dark.png   desktop, dark (prefers-color-scheme)
#   home-phone.png, trace-phone.png phone width (390x844)
set -euo pipefail
cd "$(dirname "$0")/.."
node=${1:-}
shots=.ci/artifacts/screenshots
port=${PORT:-8391}

missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v python3 >/dev/null || missing+=(python3)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

work=$(mktemp -d)
go build -o "$work/meshnode" ./cmd/meshnode
now=()
if [ -z "$node" ]; then
  node="$work/demo"
  "$work/meshnode" demo --dir "$node" >/dev/null
  # The demo mesh lives on its own clock; show its presence as of then.
  now=(--now "$(sed -n 's/^updated: //p' "$node/MANIFEST.md")")
fi
"$work/meshnode" serve --dir "$node" --out "$work/site" --addr "127.0.0.1:$port" "${now[@]}" > "$work/serve.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
base="http://127.0.0.1:$port/"
for _ in $(seq 1 100); do
  grep -q serving "$work/serve.log" && break
  sleep 0.1
done
if ! grep -q serving "$work/serve.log"; then
  echo "browser test: meshnode serve did not start:" >&2
  cat "$work/serve.log" >&2
  exit 1
fi

chrome() {
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --hide-scrollbars --user-data-dir="$(mktemp -d -p "$work")" "$@" 2>/dev/null
}
export -f chrome
export work

# Crawl: every HTML page reachable from the home page, as Chromium renders
# it; every internal link and resource must answer 200.
python3 - "$base" <<'PY'
import subprocess, sys, urllib.request, urllib.parse
from html.parser import HTMLParser

base = sys.argv[1]

class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links = []
    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k in ("href", "src") and v:
                self.links.append(v)

def status(url):
    try:
        with urllib.request.urlopen(url) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code

seen, queue, broken, checked = set(), [base + "index.html"], [], set()
while queue:
    page = queue.pop()
    if page in seen:
        continue
    seen.add(page)
    dom = subprocess.run(["bash", "-c", 'chrome --dump-dom "$0"', page], capture_output=True, text=True).stdout
    if "</html>" not in dom:
        broken.append(f"{page}: chromium rendered no document")
        continue
    p = Links()
    p.feed(dom)
    for href in p.links:
        url = urllib.parse.urldefrag(urllib.parse.urljoin(page, href))[0]
        if not url.startswith(base):
            continue
        if url not in checked:
            checked.add(url)
            if status(url) != 200:
                broken.append(f"{page}: broken link {href}")
                continue
        if url.endswith(".html") or url.endswith("/"):
            queue.append(url)
print(f"browser crawl: {len(seen)} pages, {len(checked)} internal links checked, {len(broken)} broken")
for b in broken:
    print("  " + b)
sys.exit(1 if broken else 0)
PY

# The trace page shown is the last by file name (in a demo node, the
# newest trace).
trace=$(find "$work/site/traces" -name '*.html' ! -name index.html | sort | tail -n 1)
trace_url="${base}traces/$(basename "$trace")"
mkdir -p "$shots"
shoot() { # name url extra-flags...
  local name=$1 url=$2; shift 2
  chrome --screenshot="$PWD/$shots/$name.png" --window-size=1280,900 "$@" "$url"
}
shoot home "${base}index.html"
shoot trace "$trace_url"
shoot home-dark "${base}index.html" --force-dark-mode --blink-settings=preferredColorScheme=0
shoot trace-dark "$trace_url" --force-dark-mode --blink-settings=preferredColorScheme=0
shoot home-phone "${base}index.html" --window-size=390,844
shoot trace-phone "$trace_url" --window-size=390,844
ls -l "$shots"
