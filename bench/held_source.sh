#!/usr/bin/env bash
# One agent lacks a file the others hold (it was off, it is new): who should
# serve it? (docs/send.md "A holder serves it in hnowd's place"). On labs of
# tests/netns/lab.sh (root only), after one send to every agent, agent-N's
# copy is removed and sent again, rep by rep in turn:
#   hnow         hnow send --compress none (a holder serves it when that is faster)
#   hnowd        the same with --algo striped, which only hnowd serves
#   rsync-hnowd  rsync --whole-file from hnowd's namespace to agent-N
#   rsync-agent  rsync --whole-file from agent-1's copy to agent-N (an admin by hand)
#   swarm        bench/swarm.sh: hnowd and agents 1..N-1 seed, agent-N leeches
# Labs: `below` (hnowd 50 Mbit/s up, agents 400/400: hnowd's uplink is the
# slow end) and `above` (hnowd 400 up, agents 100 up / 200 down).
# Times are whole commands, wall clock. Medians of REPS; against the bound with hnowd alone serving,
# F/min(u_s, d_N), and with every holder serving too, F/min(d_N, u_s + Σu_i).
#   bench/held_source.sh [--agents N] [--size BYTES] [--reps R] [--labs below,above]
# Writes markdown to stdout, progress to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
export HNOW_BUILD_DIR=${HNOW_BUILD_DIR:-$PWD/build}
SIZE=$((128 << 20)) REPS=3 LABS=below,above AGENTS=8 LINKS=netns
METHODS=(hnow hnowd rsync-hnowd rsync-agent swarm)
while [ $# -gt 0 ]; do
  case "$1" in
    --agents) AGENTS=$2; shift 2 ;;
    --size) SIZE=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --labs) LABS=$2; shift 2 ;;
    *) echo "usage: bench/held_source.sh [--agents N] [--size BYTES] [--reps R] [--labs below,above]" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "bench/held_source.sh needs root (network namespaces)" >&2; exit 77; }
for tool in jq rsync aria2c opentracker; do
  command -v "$tool" >/dev/null || { echo "bench/held_source.sh needs $tool" >&2; exit 2; }
done
LAB=tests/netns/lab.sh
HNOW="$HNOW_BUILD_DIR/daemon/hnow"
DIR="" DAEMON=""
RSYNC_PORT=$((8730 + RANDOM % 200))
# shellcheck source=bench/labs.sh
. bench/labs.sh
cleanup() {
  [ -z "$DAEMON" ] || { kill "$DAEMON" 2>/dev/null; wait "$DAEMON" 2>/dev/null || true; DAEMON=""; }
  [ -z "$DIR" ] || { lab_down; rm -rf "$DIR"; DIR=""; }
}
trap cleanup EXIT
trap 'exit 130' INT TERM

options_of() {
  case "$1" in
    below) echo "--uplink-mbps 400 --downlink-mbps 400 --source-uplink-mbps 50" ;;
    above) echo "--uplink-mbps 100 --downlink-mbps 200 --source-uplink-mbps 400" ;;
    *) echo "bench/held_source.sh: unknown lab '$1' (below, above)" >&2; exit 2 ;;
  esac
}
opt() { sed "s/.*$1 \([^ ]*\).*/\1/" <<<"$2"; }
now() { date +%s.%N; }
since() { awk -v s="$1" -v e="$(now)" 'BEGIN { printf "%.2f", e - s }'; }

echo "# A copy one agent lacks while the others hold it: $SIZE bytes, $AGENTS agents, shaped namespaces"
echo
echo "- Machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $(uname -sr)"
echo "- Commit: $(git rev-parse --short HEAD), run $(date -u '+%Y-%m-%d %H:%M UTC'); medians of $REPS"
echo "- Load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
IFS=, read -r -a labs <<<"$LABS"
for lab in "${labs[@]}"; do
  options=$(options_of "$lab")
  DIR=$(mktemp -d "${TMPDIR:-/tmp}/hnow-bench-held-XXXXXX")
  echo "bench/held_source.sh: lab $lab: $options" >&2
  lab_up "$options"
  PREFIX=$(sed -n 's/^PREFIX=//p' "$DIR/lab.env") NET=$(sed -n 's/^NET=//p' "$DIR/lab.env")
  head -c "$SIZE" /dev/urandom >"$DIR/file.bin"
  last="agent-$AGENTS" lastIp="$NET.$((AGENTS + 1))"
  cat >"$DIR/rsyncd.conf" <<EOF
use chroot = no
read only = no
uid = root
gid = root
[mod]
path = $DIR/agents/$last/files
EOF
  ip netns exec "${PREFIX}a$AGENTS" rsync --daemon --no-detach --config="$DIR/rsyncd.conf" --address="$lastIp" \
    --port=$RSYNC_PORT >"$DIR/rsyncd.out" 2>&1 </dev/null &
  DAEMON=$!
  first=$(hnow_send "$DIR/file.bin" --dest held.bin --compress none --json) ||
    { echo "bench/held_source.sh: the first send failed on $lab" >&2; exit 1; }
  firstS=$(jq -r .actual_s <<<"$first")
  declare -A times=()
  why=""
  for ((r = 0; r < REPS; r++)); do
    for m in "${METHODS[@]}"; do
      rm -f "$DIR/agents/$last/files/held.bin"
      start=$(now)
      case "$m" in
        hnow | hnowd)
          extra=()
          [ "$m" = hnowd ] && extra=(--algo striped)
          out=$(hnow_send "$DIR/file.bin" --dest held.bin --compress none --json "${extra[@]}") ||
            { echo "bench/held_source.sh: $m failed on $lab: $out" >&2; exit 1; }
          [ "$(jq '.copies | length' <<<"$out")" = 1 ] || { echo "bench/held_source.sh: $m sent more than one copy" >&2; exit 1; }
          t=$(since "$start")  # the command's whole time: asking the agents and hashing included
          [ "$m" = hnowd ] || why=$(jq -r .why <<<"$out")
          ;;
        rsync-hnowd | rsync-agent)
          ns="${PREFIX}d" src="$DIR/file.bin"
          [ "$m" = rsync-agent ] && ns="${PREFIX}a1" src="$DIR/agents/agent-1/files/held.bin"
          ip netns exec "$ns" rsync -a --whole-file "$src" "rsync://$lastIp:$RSYNC_PORT/mod/held.bin" >&2
          t=$(since "$start")
          ;;
        swarm)
          seeders=$(seq -s, 1 $((AGENTS - 1)))
          out=$(bench/swarm.sh run --dir "$DIR" --file "$DIR/file.bin" --seeders "$seeders" --leechers "$AGENTS" 2>&1) ||
            { echo "bench/held_source.sh: the swarm failed on $lab: $out" >&2; exit 1; }
          t=$(sed -n 's/^swarm: .*, \([0-9.]*\) seconds$/\1/p' <<<"$out")
          ;;
      esac
      cmp -s "$DIR/file.bin" "$DIR/agents/$last/files/held.bin" || [ "$m" = swarm ] ||
        { echo "bench/held_source.sh: $m left a wrong copy on $last" >&2; exit 1; }
      echo "bench/held_source.sh: $lab rep $((r + 1)) $m: $t s" >&2
      times[$m]+="$t "
    done
  done
  us=$(opt --source-uplink-mbps "$options") ui=$(opt --uplink-mbps "$options") dn=$(opt --downlink-mbps "$options")
  alone=$(awk -v f="$SIZE" -v u="$us" -v d="$dn" 'BEGIN { r = u < d ? u : d; print f * 8 / 1e6 / r }')
  any=$(awk -v f="$SIZE" -v u="$us" -v ui="$ui" -v n="$AGENTS" -v d="$dn" \
    'BEGIN { s = u + (n - 1) * ui; r = s < d ? s : d; print f * 8 / 1e6 / r }')
  echo
  echo "## Lab \`$lab\`: $options"
  echo
  echo "First send to all $AGENTS agents: $firstS s. hnow chose: ${why:-?}"
  echo
  echo "| method | median s | reps | / bound (hnowd alone, $(printf %.2f "$alone") s) | / bound (holders too, $(printf %.2f "$any") s) |"
  echo "|---|---:|---|---:|---:|"
  for m in "${METHODS[@]}"; do
    med=$(tr ' ' '\n' <<<"${times[$m]}" | grep . | median)
    printf '| %s | %.2f | %s | %.2f | %.2f |\n' "$m" "$med" "${times[$m]% }" \
      "$(awk -v a="$med" -v b="$alone" 'BEGIN { print a / b }')" "$(awk -v a="$med" -v b="$any" 'BEGIN { print a / b }')"
  done
  unset times
  cleanup
done
