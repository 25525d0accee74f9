#!/usr/bin/env bash
# hnow send --manifest on a paced lab, side by side in
# one run: the joint plan (--algo auto: seed 004's heuristics and the
# independent trees, run together) against the same items sent one after
# another, each alone along its best single-send tree (a one-item manifest
# with --algo independent = the auto tree from that source); actual
# against predicted; medians over repetitions.
#   bench/manifest.sh                       2 items of 96 MiB, 6 agents, 3 repetitions
#   bench/manifest.sh --size 33554432 --reps 5
#   HNOW_BUILD_DIR=dir bench/manifest.sh
#   HNOW_BENCH_KEEP=dir bench/manifest.sh   keep every run's JSON reports in dir
#   bench/manifest.sh --netns               over real shaped links (tests/netns/lab.sh, root)
# The lab: agent-1 and agent-2 hold one item each and send at 100 Mbit/s
# (old PCs with a slow uplink); agents 3..N are 400/400 Mbit/s. Every item
# goes to every other agent. Rates are paced by the agents' token buckets on
# 127.0.0.1; times are wall clock (the load average is printed).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${HNOW_BUILD_DIR:-build}
SIZE=$((96 << 20))
AGENTS=6
REPS=3
NETNS=""
while [ $# -gt 0 ]; do
  case "$1" in
    --size) SIZE=$2; shift 2 ;;
    --agents) AGENTS=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --netns) NETNS=1; shift ;;
    *) echo "usage: bench/manifest.sh [--size BYTES] [--agents N] [--reps R] [--netns]" >&2; exit 2 ;;
  esac
done
HNOW=$(realpath "$BUILD_DIR/daemon/hnow")
command -v jq >/dev/null || { echo "bench/manifest.sh needs jq" >&2; exit 2; }

DIR=$(mktemp -d "${TMPDIR:-/tmp}/hnow-bench-manifest-XXXXXX")
LAB=tests/netns/lab.sh
[ -z "$NETNS" ] || [ "$(id -u)" = 0 ] || { echo "bench/manifest.sh --netns needs root" >&2; exit 77; }
cleanup() {
  if [ -n "$NETNS" ]; then HNOW_BUILD_DIR=$(realpath "$BUILD_DIR") "$LAB" down --dir "$DIR/cluster" >/dev/null 2>&1 || true
  else "$HNOW" local down --dir "$DIR/cluster" >/dev/null 2>&1 || true; fi
  rm -rf "$DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ups=(100 100) downs=(400 400)
for ((i = 2; i < AGENTS; i++)); do ups+=(400) downs+=(400); done
join() { local IFS=,; echo "$*"; }

echo "# hnow send --manifest: 2 items of $SIZE bytes from agent-1 and agent-2 to all, $AGENTS agents, $REPS repetitions"
echo
echo "- Machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $(uname -sr)"
echo "- Load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "$NETNS" ]; then
  # Real shaped links (tests/netns/lab.sh): namespaces, tc tbf, rates the agents measured.
  echo "- Links: network namespaces, tc tbf per link (tests/netns/lab.sh), nothing paced inside hnow"
  mkdir -p "$DIR/cluster"
  HNOW_BUILD_DIR=$(realpath "$BUILD_DIR") "$LAB" up --dir "$DIR/cluster" --agents "$AGENTS" \
    --uplink-mbps "$(join "${ups[@]}")" --downlink-mbps "$(join "${downs[@]}")" >/dev/null
else
  "$HNOW" local up --dir "$DIR/cluster" --agents "$AGENTS" \
    --uplink-mbps "$(join "${ups[@]}")" --downlink-mbps "$(join "${downs[@]}")" >/dev/null
fi
root() { echo "$DIR/cluster/agents/agent-$1/files"; }
mkdir -p "$(root 1)/bench" "$(root 2)/bench"
head -c "$SIZE" /dev/urandom >"$(root 1)/bench/a.bin"
head -c "$SIZE" /dev/urandom >"$(root 2)/bench/b.bin"
item() { printf '[[item]]\nsource = "agent-%s"\nfile = "bench/%s"\ndest = "%s"\nto = "all"\n' "$1" "$2" "$3"; }
send() {
  if [ -n "$NETNS" ]; then HNOW_BUILD_DIR=$(realpath "$BUILD_DIR") "$LAB" hnow --dir "$DIR/cluster" send --manifest "$1" --json "${@:2}"
  else "$HNOW" --config "$DIR/cluster/client.toml" send --manifest "$1" --json "${@:2}"; fi
}
# Removes the copies a report lists, so the next run writes fresh files.
clean() { jq -r '.items[].copies[].path' "$1" | xargs -r rm -f; }
ok() { jq -e '[.items[].failed | length] | add == 0' "$1" >/dev/null; }

printf '| run | joint plan | joint predicted s | joint actual s | actual / predicted | one after another predicted s | one after another actual s | actual / predicted | joint speed-up |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
joint=() jointRatio=() seq=() seqRatio=() speedup=()
for ((r = 1; r <= REPS; r++)); do
  { item 1 a.bin "bench/joint-a.bin"; echo; item 2 b.bin "bench/joint-b.bin"; } >"$DIR/joint.toml"
  send "$DIR/joint.toml" >"$DIR/joint.json" 2>"$DIR/joint.err" || true
  ok "$DIR/joint.json" || { echo "| $r | failed: $(tail -1 "$DIR/joint.err") |"; continue; }
  [ -n "${HNOW_BENCH_KEEP:-}" ] && mkdir -p "$HNOW_BENCH_KEEP" && cp "$DIR/joint.json" "$HNOW_BENCH_KEEP/joint-$r.json"
  read -r plan jp ja sp <<<"$(jq -r '[.algo, .predicted_s, .actual_s, .sequential_predicted_s] | @tsv' "$DIR/joint.json")"
  clean "$DIR/joint.json"
  sa=0
  for k in 1 2; do
    f=$([ "$k" = 1 ] && echo a.bin || echo b.bin)
    item "$k" "$f" "bench/alone-$f" >"$DIR/alone$k.toml"
    send "$DIR/alone$k.toml" --algo independent >"$DIR/alone$k.json" 2>"$DIR/alone$k.err" || true
    ok "$DIR/alone$k.json" || { echo "| $r | item $k alone failed: $(tail -1 "$DIR/alone$k.err") |"; continue 2; }
    sa=$(awk -v s="$sa" -v a="$(jq -r .actual_s "$DIR/alone$k.json")" 'BEGIN { print s + a }')
    clean "$DIR/alone$k.json"
  done
  row=$(awk -v r="$r" -v plan="$plan" -v jp="$jp" -v ja="$ja" -v sp="$sp" -v sa="$sa" \
    'BEGIN { printf "| %d | %s | %.2f | %.2f | %.3f | %.2f | %.2f | %.3f | %.2fx |", r, plan, jp, ja, ja / jp, sp, sa, sa / sp, sa / ja }')
  echo "$row"
  joint+=("$ja") jointRatio+=("$(awk -v a="$ja" -v p="$jp" 'BEGIN { print a / p }')")
  seq+=("$sa") seqRatio+=("$(awk -v a="$sa" -v p="$sp" 'BEGIN { print a / p }')")
  speedup+=("$(awk -v a="$ja" -v s="$sa" 'BEGIN { print s / a }')")
  considered=$(jq -r '[.considered[] | select(.mode == "pipelined, together") | "\(.algo) \(.predicted_s * 100 | round / 100)"] | join(", ")' "$DIR/joint.json")
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo
if [ "${#joint[@]}" -gt 0 ]; then
  echo "- Medians over ${#joint[@]} runs: joint $(median "${joint[@]}") s, one after another $(median "${seq[@]}") s"
  echo "- Joint speed-up over one after another (median of the per-run ratios): $(median "${speedup[@]}")x (target >= 1.2x)"
  echo "- Joint actual / predicted (median): $(median "${jointRatio[@]}") (target within 15%)"
  echo "- One after another actual / predicted (median): $(median "${seqRatio[@]}")"
  echo "- auto weighed (pipelined, together, predicted s): $considered"
fi
echo "- Load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
