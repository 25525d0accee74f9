#!/usr/bin/env bash
# Striped broadcast against one tree, a baseline and a BitTorrent swarm on
# the same links (docs/bench-striped.md). Three labs of 8 agents: the
# demo's (the slowest downlink is the limit), an uplink-bound one (hnowd
# 400 up, agents 400/100/50 up, 400 down) and a volunteer-like one (hnowd
# 200 up, agents 100/60/40/20 up, 400 down); and `slow`, volunteers at
# 0.5/1/2 Mbit/s up and 4 down behind hnowd's 4, for many agents on one
# machine (`wide`: 2/4/8 up, 20 down, hnowd 20, for many namespaces: tc
# takes whole Mbit/s). In each, rep by rep in turn: hnow send --algo auto, tree (auto's
# best single tree), striped, binomial, and bench/swarm.sh (aria2c +
# opentracker). Medians of REPS; each time against the Kumar-Ross bound of
# the links' rates, max(F/u_s, F/d_min, N·F/(u_s + Σu_i)), and the swarm.
#   --links netns: shaped namespaces (tests/netns/lab.sh, tc), root only;
#   --links local: `hnow local up`, links paced by the agents themselves
#                  (no swarm there: aria2c would run unshaped).
#   bench/striped.sh [--links netns|local] [--agents N] [--size BYTES] [--reps R]
#                    [--labs demo,uplink,volunteer,slow] [--methods auto,tree,striped,binomial,swarm]
#   bench/striped.sh --links local --agents 256 --labs slow --size 4194304 --methods auto,tree
# Writes markdown to stdout, progress to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
export HNOW_BUILD_DIR=${HNOW_BUILD_DIR:-$PWD/build}
SIZE=$((128 << 20)) REPS=3 LABS=demo,uplink,volunteer METHODS=auto,tree,striped,binomial,swarm AGENTS=8 LINKS=netns
while [ $# -gt 0 ]; do
  case "$1" in
    --links) LINKS=$2; shift 2 ;;
    --agents) AGENTS=$2; shift 2 ;;
    --size) SIZE=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --labs) LABS=$2; shift 2 ;;
    --methods) METHODS=$2; shift 2 ;;
    *) echo "usage: bench/striped.sh [--links netns|local] [--agents N] [--size BYTES] [--reps R] [--labs L,..] [--methods M,..]" >&2
       exit 2 ;;
  esac
done
case "$LINKS" in
  netns) [ "$(id -u)" = 0 ] || { echo "bench/striped.sh: --links netns needs root (network namespaces)" >&2; exit 77; } ;;
  local) METHODS=$(tr , '\n' <<<"$METHODS" | grep -vx swarm | paste -sd, -) ;;
  *) echo "bench/striped.sh: --links is netns or local, not '$LINKS'" >&2; exit 2 ;;
esac
command -v jq >/dev/null || { echo "bench/striped.sh needs jq" >&2; exit 2; }
LAB=tests/netns/lab.sh
HNOW="$HNOW_BUILD_DIR/daemon/hnow"
DIR=""
# shellcheck source=bench/labs.sh
. bench/labs.sh
cleanup() { [ -z "$DIR" ] || { lab_down; rm -rf "$DIR"; }; }
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "# Striped broadcast against one tree and a BitTorrent swarm: $SIZE bytes to $AGENTS agents, $LINKS links"
echo
echo "- Machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $(uname -sr)"
echo "- Commit: $(git rev-parse --short HEAD), run $(date -u '+%Y-%m-%d %H:%M UTC'); medians of $REPS"
if [ "$LINKS" = netns ]; then
  echo "- Links: tests/netns/lab.sh (tc tbf per uplink and downlink); rates measured by hnowd's surveys"
  echo "- Bound: Kumar-Ross over the tc rates; hnow's own, over the rates it measured, in parentheses"
else
  echo "- Links: hnow local up on 127.0.0.1, each agent pacing its own uplink and downlink; rates as configured"
  echo "- Bound: Kumar-Ross over the configured rates"
fi
echo "- Load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
IFS=, read -r -a labs <<<"$LABS"
for lab in "${labs[@]}"; do
  options=$(lab_options "$lab")
  DIR=$(mktemp -d "${TMPDIR:-/tmp}/hnow-bench-striped-XXXXXX")
  echo "bench/striped.sh: lab $lab: $options" >&2
  lab_up "$options"
  head -c "$SIZE" /dev/urandom >"$DIR/file.bin"
  ups=$(sed 's/.*--uplink-mbps \([^ ]*\).*/\1/' <<<"$options")
  downs=$(sed 's/.*--downlink-mbps \([^ ]*\).*/\1/' <<<"$options")
  source_up=$(sed 's/.*--source-uplink-mbps \([^ ]*\).*/\1/' <<<"$options")
  bound=$(kumar_ross "$ups" "$downs" "$source_up")
  IFS=, read -r -a methods <<<"$METHODS"
  declare -A times=() plan=() predicted=() hbound=()
  for ((r = 0; r < REPS; r++)); do
    for m in "${methods[@]}"; do
      if [ "$m" = swarm ]; then
        out=$(bench/swarm.sh run --dir "$DIR" --file "$DIR/file.bin" --timeout 300 2>&1) ||
          { echo "bench/striped.sh: the swarm failed on $lab: $out" >&2; exit 1; }
        t=$(sed -n 's/^swarm: .* \([0-9.]*\) seconds$/\1/p' <<<"$out")
        plan[$m]="aria2c swarm" predicted[$m]=""
      else
        empty_agent_roots
        report=$(hnow_send "$DIR/file.bin" --dest "in/$m-$r.bin" --algo "$m" --json 2>/dev/null) ||
          { echo "bench/striped.sh: $m run $r failed on $lab" >&2; exit 1; }
        [ "$(jq '.failed | length' <<<"$report")" = 0 ] || { echo "bench/striped.sh: $m lost copies on $lab" >&2; exit 1; }
        t=$(jq .actual_s <<<"$report")
        plan[$m]="$(jq -r '.algo + (if (.stripes | length) > 0 then " (\(.stripes | length) stripes)" else "" end)' <<<"$report")"
        predicted[$m]=$(jq .predicted_s <<<"$report")
        hbound[$m]=$(jq '.kumar_ross_bound_s // 0' <<<"$report")
        rm -f "$DIR"/agents/*/files/in/"$m-$r.bin"
      fi
      times[$m]="${times[$m]:-} $t"
      echo "bench/striped.sh: $lab $m rep $r: $t s" >&2
    done
  done
  swarm=""
  [ -n "${times[swarm]:-}" ] && swarm=$(tr ' ' '\n' <<<"${times[swarm]}" | grep . | median)
  echo
  echo "## Lab: $lab ($options), $LINKS links"
  echo
  printf 'Kumar-Ross bound over the %s rates: %.2f s.\n\n' "$([ "$LINKS" = netns ] && echo tc || echo configured)" "$bound"
  echo "| method | plan | predicted s | actual s | actual / predicted | actual / bound | swarm / actual |"
  echo "|---|---|---:|---:|---:|---:|---:|"
  for m in "${methods[@]}"; do
    a=$(tr ' ' '\n' <<<"${times[$m]}" | grep . | median)
    awk -v m="$m" -v plan="${plan[$m]}" -v p="${predicted[$m]}" -v hb="${hbound[$m]:-0}" -v a="$a" -v b="$bound" \
      -v s="$swarm" 'BEGIN {
        pred = p == "" ? "-" : sprintf("%.2f", p); ratio = p == "" ? "-" : sprintf("%.2f", a / p)
        sw = s == "" ? "-" : sprintf("%.2f", s / a)
        bb = sprintf("%.2f", a / b); if (hb > 0) bb = bb sprintf(" (%.2f)", a / hb)
        printf "| %s | %s | %s | %.2f | %s | %s | %s |\n", m, plan, pred, a, ratio, bb, sw }'
  done
  echo
  echo "Times per rep (s): $(for m in "${methods[@]}"; do printf '%s:%s; ' "$m" "${times[$m]}"; done)"
  unset times plan predicted hbound
  lab_down
  rm -rf "$DIR"
  DIR=""
done
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
