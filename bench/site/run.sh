#!/usr/bin/env bash
# Benchmark: meshnode build against Hugo on the same 10,000 markdown traces.
#
#   bash bench/site/run.sh [--no-hugo] [N]      (default N=10000)
#   bash bench/site/run.sh --against REV [--same-node] [--rounds R] [--peers P] [--hugo] [N]
#
# With --against, meshnode at git revision REV (say,
# the commit before a change) and the working tree's meshnode are timed
# alternately, R rounds (default 5) of a cold build and an unchanged
# rebuild each; it prints min/median/max of each, in seconds of wall
# time, with user+system CPU seconds, user CPU seconds alone (the system
# time of creating files swings with the disk's recent deletions) and
# peak RSS (/usr/bin/time's %M).
# REV builds a node of N traces of its own; the working tree builds the
# same node knowing P peer traces besides (default 10000; --peers 0 gives
# both the same node), as a node caught up with its mesh holds them, with
# the copies it keeps of them (3,000, so 3,000 reading pages);
# --same-node has REV build that node too, to time a change to the
# build of a node that knows its peers. With
# --hugo, Hugo's cold build and rebuild are timed in the same rounds,
# alternating.
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
against=""
with_hugo=no
rounds=5
peers=10000
same=no
while [[ ${1:-} == --* ]]; do
  case $1 in
    --no-hugo) hugo=no; shift ;;
    --against) against=$2; hugo=no; shift 2 ;;
    --hugo) with_hugo=yes; shift ;;
    --same-node) same=yes; shift ;;
    --rounds) rounds=$2; shift 2 ;;
    --peers) peers=$2; shift 2 ;;
    *) echo "run.sh: unknown flag $1" >&2; exit 2 ;;
  esac
done
n=${1:-10000}
if [[ ! $n =~ ^[1-9][0-9]*$ || ! $peers =~ ^[0-9]+$ ]]; then
  sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi

# install_hugo installs Debian's hugo when it is absent.
install_hugo() {
  command -v hugo >/dev/null && return
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends hugo >/dev/null
}

# hugo_site WORK: Hugo gets the same files as content, with a minimal
# theme-less layout that renders each page's markdown, so it does
# comparable work.
hugo_site() {
  mkdir -p "$1/hugo/content" "$1/hugo/layouts/_default"
  cp -r "$1/node/traces" "$1/hugo/content/traces"
  cat > "$1/hugo/hugo.toml" <<'TOML'
baseURL = "https://bench.example.org/"
title = "bench"
disableKinds = ["taxonomy", "term"]
TOML
  cat > "$1/hugo/layouts/_default/single.html" <<'HTML'
<!doctype html><html><head><title>{{ .Title }}</title></head><body><h1>{{ .Title }}</h1>{{ .Content }}</body></html>
HTML
  cat > "$1/hugo/layouts/_default/list.html" <<'HTML'
<!doctype html><html><head><title>{{ .Title }}</title></head><body><ul>{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul></body></html>
HTML
}

if [[ -n $against ]]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  mkdir "$work/src"
  git archive "$against" | tar -x -C "$work/src"
  (cd "$work/src" && go build -o "$work/before" ./cmd/meshnode)
  go build -o "$work/now" ./cmd/meshnode
  go run ./bench/site/gen "$work/mesh" "$n" "$peers"
  before_node="$work/node" before_label="$against, $n own traces"
  if [[ $same == yes ]]; then
    before_node="$work/mesh" before_label="$against, $n own + $peers peer traces"
  else
    go run ./bench/site/gen "$work/node" "$n"
  fi
  variants="before now"
  if [[ $with_hugo == yes ]]; then
    install_hugo
    hugo_site "$work"
    variants="before now hugo"
  fi
  # Every cold build writes into a directory of its own, and none is
  # deleted until the end: ext4 makes creating a file slow while it holds
  # recently deleted inodes (recently_deleted in ext4_create, up to 3 s of
  # system time for 20,000 files), which a fresh runner does not have.
  for r in $(seq 1 "$rounds"); do
    for bin in $variants; do
      out="$work/out-$bin-$r"
      if [[ $bin == hugo ]]; then
        /usr/bin/time -f "%e %U %S %M" -a -o "$work/$bin.cold" hugo --source "$work/hugo" --destination "$out" --quiet >/dev/null
        /usr/bin/time -f "%e %U %S %M" -a -o "$work/$bin.same" hugo --source "$work/hugo" --destination "$out" --quiet >/dev/null
        continue
      fi
      node="$before_node"
      [[ $bin == now ]] && node="$work/mesh"
      /usr/bin/time -f "%e %U %S %M" -a -o "$work/$bin.cold" "$work/$bin" build --dir "$node" --out "$out" >/dev/null
      /usr/bin/time -f "%e %U %S %M" -a -o "$work/$bin.same" "$work/$bin" build --dir "$node" --out "$out" > "$work/$bin.log"
      grep -q ' 0 written' "$work/$bin.log" || { echo "$bin: unchanged rebuild wrote files: $(cat "$work/$bin.log")" >&2; exit 1; }
    done
    printf 'round %d done (load %s)\n' "$r" "$(cut -d' ' -f1-3 /proc/loadavg)" >&2
  done
  stats() { # file: min/median/max of wall, of user+sys, of user and of peak RSS
    sort -n "$1" | awk '{w[NR]=$1} END {printf "%.2f / %.2f / %.2f", w[1], w[int((NR+1)/2)], w[NR]}'
    # CPU to the hundredth, as /usr/bin/time gives it: an unchanged
    # rebuild takes about a second, where tenths hid a tenth's difference.
    printf ' (CPU '
    awk '{print $2+$3}' "$1" | sort -n | awk '{c[NR]=$1} END {printf "%.2f / %.2f / %.2f", c[1], c[int((NR+1)/2)], c[NR]}'
    printf ', user '
    awk '{print $2}' "$1" | sort -n | awk '{c[NR]=$1} END {printf "%.2f / %.2f / %.2f", c[1], c[int((NR+1)/2)], c[NR]}'
    printf '; RSS '
    awk '{print $4/1024}' "$1" | sort -n | awk '{m[NR]=$1} END {printf "%.0f / %.0f / %.0f MB)", m[1], m[int((NR+1)/2)], m[NR]}'
  }
  printf '\n%d traces, %s CPU(s), %d rounds alternating; seconds min / median / max\n\n' "$n" "$(nproc)" "$rounds"
  header="| build | $before_label | now, $n own + $peers peer traces |" rule="|---|---|---|"
  [[ $with_hugo == yes ]] && header="$header $(hugo version | cut -d' ' -f1-2) |" rule="$rule---|"
  printf '%s\n%s\n' "$header" "$rule"
  for kind in cold same; do
    label="cold"
    [[ $kind == same ]] && label="unchanged rebuild (meshnode writes 0 files)"
    row="| $label | $(stats "$work/before.$kind") | $(stats "$work/now.$kind") |"
    [[ $with_hugo == yes ]] && row="$row $(stats "$work/hugo.$kind") |"
    printf '%s\n' "$row"
  done
  exit 0
fi

if [[ $hugo == yes ]]; then install_hugo; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/meshnode" ./cmd/meshnode
go run ./bench/site/gen "$work/node" "$n"

if [[ $hugo == yes ]]; then hugo_site "$work"; fi

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
