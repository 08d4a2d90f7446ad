#!/usr/bin/env bash
# Benchmark: meshnode build against Hugo on the same 10,000 markdown traces.
#
#   bash bench/site/run.sh [--no-hugo] [N]      (default N=10000)
#
# Installs Debian's hugo if absent (apt-get, --no-install-recommends;
# --no-hugo skips Hugo altogether), generates N traces with
# bench/site/gen, then times:
#   meshnode build, cold (empty output directory)
#   meshnode build, unchanged rebuild (must write 0 files)
#   meshnode build, after editing one trace
#   hugo, cold, and hugo again on unchanged content
# and prints a table, each figure with the 1-minute load average taken
# right after it (the machine may be shared). Figures are recorded in
# docs/site.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
hugo=yes
if [[ ${1:-} == --no-hugo ]]; then
  hugo=no
  shift
fi
n=${1:-10000}

if [[ $hugo == yes ]] && ! command -v hugo >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends hugo >/dev/null
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/meshnode" ./cmd/meshnode
go run ./bench/site/gen "$work/node" "$n"

# Hugo gets the same files as content, with a minimal theme-less layout
# that renders each page's markdown, so it does comparable work.
if [[ $hugo == yes ]]; then
mkdir -p "$work/hugo/content" "$work/hugo/layouts/_default"
cp -r "$work/node/traces" "$work/hugo/content/traces"
cat > "$work/hugo/hugo.toml" <<'TOML'
baseURL = "https://bench.example.org/"
title = "bench"
disableKinds = ["taxonomy", "term"]
TOML
cat > "$work/hugo/layouts/_default/single.html" <<'HTML'
<!doctype html><html><head><title>{{ .Title }}</title></head><body><h1>{{ .Title }}</h1>{{ .Content }}</body></html>
HTML
cat > "$work/hugo/layouts/_default/list.html" <<'HTML'
<!doctype html><html><head><title>{{ .Title }}</title></head><body><ul>{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul></body></html>
HTML
fi

seconds() { # run a command, print its wall time in seconds and the load after it
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l | xargs printf '%.2f'
  printf ' (load %s)' "$(cut -d' ' -f1 /proc/loadavg)"
}

mn_cold=$(seconds "$work/meshnode" build --dir "$work/node" --out "$work/site")
mn_same=$(seconds "$work/meshnode" build --dir "$work/node" --out "$work/site")
written=$("$work/meshnode" build --dir "$work/node" --out "$work/site" | sed -n 's/.* \([0-9]*\) written.*/\1/p')
printf '\nextra line\n' >> "$work/node/traces/00001-trace.md"
mn_one=$(seconds "$work/meshnode" build --dir "$work/node" --out "$work/site")
if [[ $hugo == yes ]]; then
  hugo_cold=$(seconds hugo --source "$work/hugo" --destination "$work/hugo-public" --quiet)
  hugo_same=$(seconds hugo --source "$work/hugo" --destination "$work/hugo-public" --quiet)
fi

printf '\n%d traces, %s CPU(s)%s\n\n' "$n" "$(nproc)" "$([[ $hugo == yes ]] && hugo version | cut -d' ' -f1-2 | sed 's/^/, /')"
printf '| build | seconds |\n|---|---|\n'
printf '| meshnode build, cold | %s |\n' "$mn_cold"
printf '| meshnode build, unchanged rebuild (%s files written) | %s |\n' "$written" "$mn_same"
printf '| meshnode build, one trace edited | %s |\n' "$mn_one"
if [[ $hugo == yes ]]; then
  printf '| hugo, cold | %s |\n' "$hugo_cold"
  printf '| hugo, unchanged rebuild | %s |\n' "$hugo_same"
fi
