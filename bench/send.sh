#!/usr/bin/env bash
# hnow send on a paced three-class lab, side by side in
# one run: auto and the baselines binomial, chain, flat; actual against
# predicted; against the fluid lower bound; peak resident memory per agent.
#   bench/send.sh                   1 GiB to 8 agents (about 12-14 minutes)
#   bench/send.sh --size 268435456  a smaller file
#   bench/send.sh --lab open        every downlink 400, slow uplinks 25 (the
#                                   lab of docs/pipelined-broadcast.md, where
#                                   the bound is the sum of the uplinks)
#   HNOW_BUILD_DIR=dir bench/send.sh
# The lab is `hnow demo`'s (daemon/cli/demo_command.h): hnowd 400 Mbit/s up;
# agents round-robin fast 400/400, medium 100/400 (new-wing), slow 50/200
# (old-wing), Mbit/s up/down, paced by the agents' token buckets on
# 127.0.0.1. Times are wall clock: run it on a quiet machine if you can (the
# load average is printed before and after).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${HNOW_BUILD_DIR:-build}
SIZE=$((1 << 30))
AGENTS=8
LAB=demo
while [ $# -gt 0 ]; do
  case "$1" in
    --size) SIZE=$2; shift 2 ;;
    --agents) AGENTS=$2; shift 2 ;;
    --lab) LAB=$2; shift 2 ;;
    *) echo "usage: bench/send.sh [--size BYTES] [--agents N] [--lab demo|open]" >&2; exit 2 ;;
  esac
done
HNOW=$(realpath "$BUILD_DIR/daemon/hnow")
command -v jq >/dev/null || { echo "bench/send.sh needs jq" >&2; exit 2; }

DIR=$(mktemp -d "${TMPDIR:-/tmp}/hnow-bench-send-XXXXXX")
cleanup() {
  "$HNOW" local down --dir "$DIR/cluster" >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

case "$LAB" in
  demo) SLOW_UP=50 SLOW_DOWN=200 ;;
  open) SLOW_UP=25 SLOW_DOWN=400 ;;
  *) echo "bench/send.sh: --lab demo|open" >&2; exit 2 ;;
esac
ups=() downs=() sites=()
for ((i = 0; i < AGENTS; i++)); do
  case $((i % 3)) in
    0) ups+=(400) downs+=(400) sites+=(new-wing) ;;
    1) ups+=(100) downs+=(400) sites+=(new-wing) ;;
    2) ups+=("$SLOW_UP") downs+=("$SLOW_DOWN") sites+=(old-wing) ;;
  esac
done
join() { local IFS=,; echo "$*"; }

echo "# hnow send: $SIZE bytes to $AGENTS agents, lab '$LAB' (slow class $SLOW_UP up / $SLOW_DOWN down Mbit/s)"
echo
echo "- Machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $(uname -sr)"
echo "- Load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$HNOW" local up --dir "$DIR/cluster" --agents "$AGENTS" --source-uplink-mbps 400 \
  --uplink-mbps "$(join "${ups[@]}")" --downlink-mbps "$(join "${downs[@]}")" \
  --sites "$(join "${sites[@]}")" >/dev/null
head -c "$SIZE" /dev/urandom >"$DIR/cluster/file"

# Peak resident memory (VmHWM) of each agent, MiB, since it started.
peakMiB() {
  local max=0 pid kb
  for f in "$DIR"/cluster/pids/agent-*.pid; do
    pid=$(cat "$f")
    kb=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status")
    [ "${kb:-0}" -gt "$max" ] && max=$kb
  done
  echo $((max / 1024))
}
echo "- Peak resident memory of any agent before sending: $(peakMiB) MiB"
echo

printf '| algo | tree | predicted s | actual s | actual / predicted | fluid bound s | actual / bound | copies ok | agent peak RSS MiB |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
declare -A actual
for algo in auto binomial chain flat; do
  out="$DIR/$algo.json"
  # Its bytes elsewhere under an agent's root would be copied there, not sent.
  rm -f "$DIR"/cluster/agents/*/files/bench-*.bin
  "$HNOW" --config "$DIR/cluster/client.toml" send "$DIR/cluster/file" --dest "bench-$algo.bin" --algo "$algo" --json \
    >"$out" 2>"$DIR/$algo.err" || true
  if ! jq -e .copies "$out" >/dev/null 2>&1; then
    echo "| $algo | failed: $(tail -1 "$DIR/$algo.err") |"
    continue
  fi
  read -r plan predicted act bound ok <<<"$(jq -r '[.algo, .predicted_s, .actual_s, .fluid_bound_s, (.copies | length)] | @tsv' "$out")"
  actual[$algo]=$act
  [ "$algo" = auto ] && weighed=$(jq -r '[.considered[] | "\(.algo) \(.mode) \(.predicted_s * 100 | round / 100) s"] | join(", ")' "$out")
  awk -v a="$algo" -v t="$plan" -v p="$predicted" -v x="$act" -v b="$bound" -v ok="$ok" -v n="$AGENTS" -v m="$(peakMiB)" \
    'BEGIN { printf "| %s | %s | %.1f | %.1f | %.2f | %.1f | %.2f | %d/%d | %d |\n", a, t, p, x, x / p, b, x / b, ok, n, m }'
  jq -r '.copies[].path' "$out" | xargs -r rm -f
done
echo
best=""
for algo in binomial chain flat; do
  [ -n "${actual[$algo]:-}" ] || continue
  if [ -z "$best" ] || awk -v a="${actual[$algo]}" -v b="${actual[$best]}" 'BEGIN { exit !(a < b) }'; then best=$algo; fi
done
if [ -n "${actual[auto]:-}" ] && [ -n "$best" ]; then
  awk -v a="${actual[auto]}" -v b="${actual[$best]}" -v n="$best" \
    'BEGIN { printf "- auto vs the best baseline (%s): %.2fx faster (target >= 1.3x)\n", n, b / a }'
fi
echo "- auto weighed: $weighed"
echo "- Load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
