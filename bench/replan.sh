#!/usr/bin/env bash
# Replanning mid-transfer, side by side in one run: the
# same send with and without `--no-replan`, each time with a 10x uplink cut
# on the busiest relay (most children in the planned tree, read from the tree
# line `hnow send` prints at the start) once the send is 20% done. Reports the
# medians, the ratio (target: replanning at least 1.5x sooner), predicted
# against actual, when the drift was noticed, and the load average.
#   bench/replan.sh                    512 MiB to 8 agents, 3 repetitions each
#   bench/replan.sh --size BYTES --reps N
#   HNOW_BUILD_DIR=dir bench/replan.sh
# The lab is `hnow demo`'s (as bench/send.sh): hnowd 400 Mbit/s up; agents
# round-robin fast 400/400, medium 100/400, slow 50/200 Mbit/s up/down, paced
# by the agents' token buckets on 127.0.0.1; hnowd's drift settings are its
# defaults (25% for 2 s). Wall-clock times: the load average is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${HNOW_BUILD_DIR:-build}
SIZE=$((512 << 20))
AGENTS=8
REPS=3
CUT_AT=20
while [ $# -gt 0 ]; do
  case "$1" in
    --size) SIZE=$2; shift 2 ;;
    --agents) AGENTS=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --cut-at) CUT_AT=$2; shift 2 ;;
    *) echo "usage: bench/replan.sh [--size BYTES] [--agents N] [--reps N] [--cut-at PERCENT]" >&2; exit 2 ;;
  esac
done
HNOW=$(realpath "$BUILD_DIR/daemon/hnow")
command -v jq >/dev/null || { echo "bench/replan.sh needs jq" >&2; exit 2; }

DIR=$(mktemp -d "${TMPDIR:-/tmp}/hnow-bench-replan-XXXXXX")
cleanup() {
  "$HNOW" local down --dir "$DIR/cluster" >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ups=() downs=() sites=()
for ((i = 0; i < AGENTS; i++)); do
  case $((i % 3)) in
    0) ups+=(400) downs+=(400) sites+=(new-wing) ;;
    1) ups+=(100) downs+=(400) sites+=(new-wing) ;;
    2) ups+=(50) downs+=(200) sites+=(old-wing) ;;
  esac
done
join() { local IFS=,; echo "$*"; }
CLIENT=(--config "$DIR/cluster/client.toml")

echo "# hnow send with and without replanning: $SIZE bytes to $AGENTS agents, 10x uplink cut on the busiest relay at $CUT_AT%"
echo
echo "- Machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $(uname -sr)"
echo "- Load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$HNOW" local up --dir "$DIR/cluster" --agents "$AGENTS" --source-uplink-mbps 400 \
  --uplink-mbps "$(join "${ups[@]}")" --downlink-mbps "$(join "${downs[@]}")" \
  --sites "$(join "${sites[@]}")" >/dev/null
head -c "$SIZE" /dev/urandom >"$DIR/cluster/file"

# Every agent re-probes (set-rate to its lab rates) until hnowd's table holds
# the lab's rates again, then past the drift dwell: both modes plan from the
# same table. Probes taken while a send runs can read low on a loaded machine
# (docs/bench-replan.md), so the table is not trusted between runs.
settle() {
  for ((i = 0; i < AGENTS; i++)); do
    "$HNOW" "${CLIENT[@]}" agent set-rate "agent-$((i + 1))" --uplink-mbps "${ups[$i]}" --downlink-mbps "${downs[$i]}" >/dev/null
  done
  for _ in $(seq 150); do
    "$HNOW" "${CLIENT[@]}" status --json | jq -e --arg u "$(join "${ups[@]}")" --arg d "$(join "${downs[@]}")" '
      ($u | split(",") | map(tonumber)) as $ups | ($d | split(",") | map(tonumber)) as $downs |
      [.agents[] | (.name | ltrimstr("agent-") | tonumber - 1) as $i |
        (.rates.uplink_bytes_per_s * 8 / 1e6) / $ups[$i], (.rates.downlink_bytes_per_s * 8 / 1e6) / $downs[$i]] |
      all(. > 0.9 and . < 1.1)' >/dev/null && break
    sleep 0.2
  done
  sleep 2.5
}


# One send; prints "mode node cut_s predicted replanned actual replans first_change_s".
run() {
  local mode=$1 rep=$2 flags=""
  [ "$mode" = kept ] && flags=--no-replan
  local out="$DIR/$mode-$rep.json" err="$DIR/$mode-$rep.err"
  settle
  # Its bytes elsewhere under an agent's root would be copied there, not sent.
  rm -f "$DIR"/cluster/agents/*/files/bench-*.bin
  "$HNOW" "${CLIENT[@]}" send "$DIR/cluster/file" --dest "bench-$mode-$rep.bin" --json $flags >"$out" 2>"$err" &
  local pid=$!
  local node="" cut=""
  while kill -0 "$pid" 2>/dev/null; do
    if [ -z "$node" ] && grep -q '^tree ' "$err"; then
      # The relay with the most children (ties: the first).
      node=$(grep '^tree ' "$err" | head -1 | tr ' ' '\n' | grep '>' | grep -v '(' | cut -d'>' -f1 | grep -v '^hnowd$' |
        sort | uniq -c | sort -k1,1nr -k2,2 | awk 'NR == 1 { print $2 }')
    fi
    if [ -n "$node" ] && [ -z "$cut" ]; then
      local line
      line=$(grep -E '^ *[0-9.]+ s +[0-9]+%' "$err" | tail -1 || true)
      if [ -n "$line" ] && [ "$(awk '{ sub("%", "", $3); print $3 }' <<<"$line")" -ge "$CUT_AT" ]; then
        cut=$(awk '{ print $1 }' <<<"$line")
        local i=${node#agent-}
        "$HNOW" "${CLIENT[@]}" agent set-rate "$node" --uplink-mbps "$(awk -v u="${ups[$((i - 1))]}" 'BEGIN { print u / 10 }')" >/dev/null
      fi
    fi
    sleep 0.1
  done
  wait "$pid" || true
  if [ -z "$cut" ] || ! jq -e .copies "$out" >/dev/null 2>&1; then
    echo "$mode - - - - - - -"
  else
    jq -r --arg m "$mode" --arg n "$node" --arg c "$cut" \
      '[$m, $n, $c, .predicted_s, (.replanned_predicted_s // "-"), .actual_s, .replans,
        (if (.parent_changes | length) > 0 then .parent_changes[0].at_s else "-" end),
        ((.copies | length) == '"$AGENTS"')] | @tsv' "$out"
    jq -r '.copies[].path' "$out" | xargs -r rm -f
  fi
}

printf '| rep | mode | cut node | cut at s | predicted s | replanned prediction s | actual s | replans | first parent change s | all copies verified |\n'
printf '|---|---|---|---|---|---|---|---|---|---|\n'
: >"$DIR/rows"
for ((r = 1; r <= REPS; r++)); do
  for mode in replan kept; do
    row=$(run "$mode" "$r")
    echo "$r $row" | tr '\t' ' ' >>"$DIR/rows"
    echo "$row" | awk -v r="$r" -F'\t| ' '
      function f(x) { return x ~ /^[0-9.]+$/ ? sprintf("%.1f", x) : x }
      { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r, $1, $2, f($3), f($4), f($5), f($6), $7, f($8), $9 }'
  done
done
echo
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) printf "%.1f\n", a[(NR + 1) / 2]; else printf "%.1f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
rp=$(awk '$2 == "replan" && $7 != "-" { print $7 }' "$DIR/rows" | median)
kp=$(awk '$2 == "kept" && $7 != "-" { print $7 }' "$DIR/rows" | median)
pp=$(awk '$2 == "replan" && $5 != "-" { print $5 }' "$DIR/rows" | median)
rpp=$(awk '$2 == "replan" && $6 != "-" { print $6 }' "$DIR/rows" | median)
detect=$(awk '$2 == "replan" && $9 != "-" && $4 != "-" { print $9 - $4 }' "$DIR/rows" | median)
echo "- Median actual: replanning $rp s, --no-replan $kp s"
awk -v r="$rp" -v k="$kp" 'BEGIN { if (r > 0) printf "- Replanning finished %.2fx sooner (target >= 1.5x)\n", k / r }'
echo "- Median predicted at the start $pp s (for the uncut lab); median replanned prediction $rpp s; actual $rp s"
echo "- Median time from the cut to the first parent change: $detect s (probe, then the 2 s drift dwell, then a tick)"
# At each replan hnowd logs its prediction of the remaining time of the tree
# it replaced: with the time of the replan, what --no-replan should take.
grep -oE 'drift: [a-z0-9-]+ uplink [^:]*: kept [0-9.]+ s, new [0-9.]+ s \(1 replans' "$DIR/cluster/logs/hnowd.log" |
  sed -E 's/.*kept ([0-9.]+) s, new ([0-9.]+) s.*/\1 \2/' >"$DIR/kept" || true
awk '$2 == "replan" && $9 != "-" { print $9 }' "$DIR/rows" | paste - "$DIR/kept" |
  awk 'NF == 3 { printf "%.1f\n", $1 + $2 }' | median | xargs -I{} echo "- Median prediction, at the replan, of the replaced tree's end (what --no-replan should take): {} s; --no-replan actual $kp s"
echo "- Load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
