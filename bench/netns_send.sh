#!/usr/bin/env bash
# hnow send over real shaped links (target: actual within 10% of
# predicted): hnowd and the agents in network namespaces, every link shaped
# by tc tbf (tests/netns/lab.sh), links measured by hnowd's surveys.
# Side by side in one run: auto and the baselines fnf, binomial, chain; each
# REPS times; medians of actual / predicted. Root only.
#   bench/netns_send.sh [--size BYTES] [--agents N] [--reps R]
# The lab is hnow demo's three classes: 400/400, 100/400, 50/200 Mbit/s
# up/down, hnowd 400 up. Writes the table to stdout (bench/run-style markdown).
set -euo pipefail
cd "$(dirname "$0")/.."
export HNOW_BUILD_DIR=${HNOW_BUILD_DIR:-$PWD/build}
SIZE=$((256 << 20))
AGENTS=8
REPS=3
while [ $# -gt 0 ]; do
  case "$1" in
    --size) SIZE=$2; shift 2 ;;
    --agents) AGENTS=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    *) echo "usage: bench/netns_send.sh [--size BYTES] [--agents N] [--reps R]" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "bench/netns_send.sh: needs root (network namespaces)" >&2; exit 77; }
command -v jq >/dev/null || { echo "bench/netns_send.sh needs jq" >&2; exit 2; }
LAB=tests/netns/lab.sh
DIR=$(mktemp -d "${TMPDIR:-/tmp}/hnow-bench-netns-XXXXXX")
cleanup() { "$LAB" down --dir "$DIR" >/dev/null 2>&1 || true; rm -rf "$DIR"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "nan"; else if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

echo "# hnow send over shaped network namespaces: $SIZE bytes to $AGENTS agents"
echo
echo "- Machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $(uname -sr)"
echo "- Commit: $(git rev-parse --short HEAD), run $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- Links: tc tbf per uplink (node side) and downlink (bridge side), burst max(640 kbit, rate/250), 10 ms queue"
echo "- Load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$LAB" up --dir "$DIR" --agents "$AGENTS" --uplink-mbps 400,100,50 --downlink-mbps 400,400,200 \
  --sites new-wing,new-wing,old-wing --source-uplink-mbps 400 >&2
echo
echo "Rates the agents measured (Mbit/s up/down):"
"$LAB" hnow --dir "$DIR" status --json |
  jq -r '.agents[] | "\(.name) \(.rates.uplink_bytes_per_s * 8 / 1e6 | floor)/\(.rates.downlink_bytes_per_s * 8 / 1e6 | floor)"' |
  paste -sd' ' | sed 's/^/- /'
head -c "$SIZE" /dev/urandom >"$DIR/file.bin"

echo
echo "| algo | plan | predicted s | actual s (median of $REPS) | actual / predicted | fluid bound s | actual / bound |"
echo "|---|---|---:|---:|---:|---:|---:|"
for algo in auto fnf binomial chain; do
  actual=() predicted="" plan="" bound=""
  for ((r = 0; r < REPS; r++)); do
    # Its bytes elsewhere under an agent's root would be copied there, not sent.
    rm -rf "$DIR"/agents/*/files/in
    report=$("$LAB" hnow --dir "$DIR" send "$DIR/file.bin" --dest "in/$algo-$r.bin" --algo "$algo" --json 2>/dev/null) ||
      { echo "bench/netns_send.sh: $algo run $r failed" >&2; exit 1; }
    actual+=("$(jq .actual_s <<<"$report")")
    predicted=$(jq .predicted_s <<<"$report") plan=$(jq -r .algo <<<"$report") bound=$(jq .fluid_bound_s <<<"$report")
    rm -f "$DIR"/agents/*/files/in/"$algo-$r.bin"
  done
  a=$(printf '%s\n' "${actual[@]}" | median)
  awk -v algo="$algo" -v plan="$plan" -v p="$predicted" -v a="$a" -v b="$bound" \
    'BEGIN { printf "| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f |\n", algo, plan, p, a, a / p, b, a / b }'
done
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
