#!/usr/bin/env bash
# Volunteers' machines as they are (docs/bench-volunteers.md,
# docs/reachability.md): labs where agents accept no inbound connection, sit
# behind NAT, or share an overloaded machine. Medians of REPS; each time
# against its bound and, on the namespace labs, a BitTorrent swarm (aria2c +
# opentracker, bench/swarm.sh) on the same links in the same run.
#   firewalled  tests/netns/lab.sh, 4 agents 400,100,100,100 Mbit/s up, 400
#               down, hnowd 200 up; agent-1 (the fastest uplink) drops every
#               inbound SYN (nft) and is restarted so, before the sends: hnow
#               must plan it nowhere as a relay. Bound: Kumar-Ross without
#               agent-1's uplink. Also the first send after the firewall goes
#               up unannounced (links measured before): what finding out costs.
#   nat         rooms A (hnowd, 2 agents) and B (3 agents) routed, B behind
#               the router's masquerade (no connection into B; B's agents
#               connect out), every link 200 Mbit/s; sends and a run must work.
#   local256    `hnow local up --agents 256` on this machine beside two busy
#               loops (a CPU hog); every copy must land. A first send teaches
#               hnowd the machine's intake (docs/host-intake.md); each send
#               after it against the bound it reports (Kumar-Ross over the
#               links, and the machine's intake), and against one dd writing
#               the same bytes beside the same hog.
#   flood       `hnow local up --agents 4` paced at 200 Mbit/s: sends timed
#               without, then during, a flood of 500 idle connections from
#               one address (127.0.0.2, bench/flood.py) to each of hnowd's
#               control and data ports and agent-1's data port; `hnow status`
#               timed during it, and agent-2 restarted during it until it is
#               registered again.
#   bench/volunteers.sh [--size BYTES] [--reps R] [--labs firewalled,nat,local256,flood]
# Root for the namespace labs. Markdown to stdout, progress to stderr; every
# namespace and process it starts is gone on the way out.
set -euo pipefail
cd "$(dirname "$0")/.."
export HNOW_BUILD_DIR=${HNOW_BUILD_DIR:-$PWD/build}
SIZE=$((64 << 20)) REPS=3 LABS=firewalled,nat,local256,flood
while [ $# -gt 0 ]; do
  case "$1" in
    --size) SIZE=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --labs) LABS=$2; shift 2 ;;
    *) echo "usage: bench/volunteers.sh [--size BYTES] [--reps R] [--labs L,..]" >&2; exit 2 ;;
  esac
done
command -v jq >/dev/null || { echo "bench/volunteers.sh needs jq" >&2; exit 2; }
LAB=tests/netns/lab.sh
HNOW="$HNOW_BUILD_DIR/daemon/hnow"
DIR="" LINKS=netns AGENTS=4 HOG="" FLOOD=""
# shellcheck source=bench/labs.sh
. bench/labs.sh
cleanup() {
  [ -z "$HOG" ] || kill $HOG 2>/dev/null || true
  [ -z "$FLOOD" ] || kill "$FLOOD" 2>/dev/null || true
  [ -z "$DIR" ] || { lab_down; rm -rf "$DIR"; }
}
trap cleanup EXIT
trap 'exit 130' INT TERM

med() { tr ' ' '\n' <<<"$1" | awk 'NF' | median; }

# One send of $DIR/file.bin to every agent, timed as the user waits:
# "WALL ACTUAL PREDICTED COPIES FAILED" or "failed: WHY".
timed_send() { # DEST [ARGS...]
  local dest=$1 start report w
  shift
  empty_agent_roots
  start=$(now)
  if report=$(hnow_send "$DIR/file.bin" --dest "$dest" --json "$@" 2>"$DIR/send.err"); then
    w=$(since "$start")
    echo "$w $(jq -r '[.actual_s, .predicted_s, (.copies | length), (.failed | length)] | map(tostring) | join(" ")' <<<"$report")"
  else
    echo "failed: $( (jq -r '.error // empty' <<<"${report:-}" 2>/dev/null; tail -n 1 "$DIR/send.err") | head -n 1)"
  fi
}

# A row: method, plan, times (space lists), bound, swarm median.
row() { # METHOD NOTE WALLS ACTUALS PREDICTEDS BOUND SWARM
  local a w p
  a=$(med "$4") w=$(med "$3") p=$(med "$5")
  awk -v m="$1" -v n="$2" -v p="$p" -v w="$w" -v a="$a" -v b="$6" -v s="$7" 'BEGIN {
    pred = p == "nan" ? "-" : sprintf("%.2f", p); wl = w == "nan" ? "-" : sprintf("%.2f", w)
    sw = (s == "" || s == "nan") ? "-" : sprintf("%.2f", s / a)
    printf "| %s | %s | %s | %s | %.2f | %.2f | %s |\n", m, n, pred, wl, a, a / b, sw }'
}

swarm_reps() { # REPS: median of the swarm's times
  local r out t times=""
  for ((r = 0; r < REPS; r++)); do
    if out=$(bench/swarm.sh run --dir "$DIR" --file "$DIR/file.bin" --timeout 600 2>&1); then
      t=$(sed -n 's/^swarm: .* \([0-9.]*\) seconds$/\1/p' <<<"$out")
      times+=" $t"
      echo "bench/volunteers.sh: swarm rep $r: $t s" >&2
    else
      echo "bench/volunteers.sh: swarm rep $r failed: $(tail -n 1 <<<"$out")" >&2
    fi
  done
  med "$times"
}

header() {
  echo "| method | plan | predicted s | wall s | actual s | actual / bound | swarm / actual |"
  echo "|---|---|---:|---:|---:|---:|---:|"
}

firewalled() {
  local options="--uplink-mbps 400,100,100,100 --downlink-mbps 400 --source-uplink-mbps 200"
  AGENTS=4 LINKS=netns
  DIR=$(mktemp -d "${TMPDIR:-/tmp}/hnow-bench-volunteers-XXXXXX")
  echo "bench/volunteers.sh: lab firewalled: $options" >&2
  lab_up "$options --survey-s 0.2,0.4"
  head -c "$SIZE" /dev/urandom >"$DIR/file.bin"
  local bound first walls="" actuals="" preds="" out r
  bound=$(kumar_ross "0,100,100,100" 400 200)
  # Unannounced: links measured with agent-1 reachable, then its firewall.
  "$LAB" firewall --dir "$DIR" agent-1 on
  first=$(timed_send in/first.bin)
  echo "bench/volunteers.sh: first send after the firewall went up: $first" >&2
  # Restarted behind it: hnowd's check at registration finds it.
  "$LAB" restart --dir "$DIR" agent-1
  for _ in $(seq 100); do
    [ "$("$LAB" hnow --dir "$DIR" status --json | jq -r '.agents[] | select(.name == "agent-1") | .reachable')" = false ] &&
      [ "$("$LAB" hnow --dir "$DIR" status --json | jq -r '.agents[] | select(.name == "agent-1") | .state')" = alive ] && break
    sleep 0.2
  done
  local swarm
  for ((r = 0; r < REPS; r++)); do
    out=$(timed_send "in/auto-$r.bin")
    echo "bench/volunteers.sh: firewalled auto rep $r: $out" >&2
    case "$out" in failed*) continue ;; esac
    read -r w a p c f <<<"$out"
    walls+=" $w" actuals+=" $a" preds+=" $p"
    [ "$f" = 0 ] || echo "bench/volunteers.sh: $f copies failed" >&2
  done
  swarm=$(swarm_reps)
  echo
  echo "## Lab: firewalled"
  echo
  echo "\`$options\`; agent-1 drops every inbound SYN (nft), restarted so before the sends."
  echo
  printf 'Bound %.2f s: Kumar-Ross without agent-1'"'"'s uplink (4 copies fed by 200 + 3 x 100 Mbit/s).\n\n' "$bound"
  header
  row "hnow auto" "agent-1 a leaf" "$walls" "$actuals" "$preds" "$bound" "$swarm"
  [ "$swarm" = nan ] || awk -v s="$swarm" -v b="$bound" 'BEGIN { printf "| swarm | aria2c | - | - | %.2f | %.2f | - |\n", s, s / b }'
  echo
  case "$first" in
    failed*) echo "First send after the firewall went up unannounced: $first" ;;
    *) read -r w a p c f <<<"$first"
       echo "First send after the firewall went up unannounced (links measured before, agent-1 planned as a relay): wall $w s, actual $a s ($(awk -v a="$a" -v b="$bound" 'BEGIN { printf "%.2f", a / b }') of the bound), $c copies, $f failed." ;;
  esac
  lab_down
  rm -rf "$DIR"
  DIR=""
}

nat() {
  local options="--rooms A,A,B,B,B --trunk routed --uplink-mbps 200 --downlink-mbps 200 --source-uplink-mbps 200"
  AGENTS=5 LINKS=netns
  DIR=$(mktemp -d "${TMPDIR:-/tmp}/hnow-bench-volunteers-XXXXXX")
  echo "bench/volunteers.sh: lab nat: $options" >&2
  lab_up "$options --survey-s 0.2,0.4"
  "$LAB" nat --dir "$DIR" B on
  # B's agents log in again from behind the NAT: hnowd checks them anew.
  local k
  for k in 3 4 5; do "$LAB" restart --dir "$DIR" "agent-$k"; done
  for _ in $(seq 100); do
    [ "$("$LAB" hnow --dir "$DIR" status --json | jq '[.agents[] | select(.state == "alive" and .reachable == false)] | length')" = 3 ] && break
    sleep 0.2
  done
  head -c "$SIZE" /dev/urandom >"$DIR/file.bin"
  local bound walls="" actuals="" preds="" out r swarm run
  # Every copy crosses hnowd's uplink or room A's agents' (B's serve nobody): 5 copies over 200 + 2 x 200.
  bound=$(awk -v f="$SIZE" 'BEGIN { b = f * 8 / 1e6; t = b / 200; if (5 * b / 600 > t) t = 5 * b / 600; print t }')
  for ((r = 0; r < REPS; r++)); do
    out=$(timed_send "in/auto-$r.bin")
    echo "bench/volunteers.sh: nat auto rep $r: $out" >&2
    case "$out" in failed*) continue ;; esac
    read -r w a p c f <<<"$out"
    walls+=" $w" actuals+=" $a" preds+=" $p"
  done
  swarm=$(swarm_reps)
  seq 1 200000 >"$DIR/numbers.txt"
  if run=$("$LAB" hnow --dir "$DIR" run --input "$DIR/numbers.txt" --cmd 'grep -c 7' --concat --output "$DIR/counts.txt" 2>&1); then
    run="worked: $(awk '{ s += $1 } END { print s }' "$DIR/counts.txt") lines with a 7 counted over the shares (grep -c 7 on the whole: $(grep -c 7 "$DIR/numbers.txt"))"
  else
    run="failed: $(tail -n 1 <<<"$run")"
  fi
  echo
  echo "## Lab: nat"
  echo
  echo "\`$options\`; room B behind the router's masquerade: no connection into B, B's agents connect out."
  echo
  printf 'Bound %.2f s: B'"'"'s agents feed nobody, so 5 copies over hnowd'"'"'s 200 and room A'"'"'s 2 x 200 Mbit/s.\n\n' "$bound"
  header
  row "hnow auto" "B's agents leaves" "$walls" "$actuals" "$preds" "$bound" "$swarm"
  [ "$swarm" = nan ] || awk -v s="$swarm" -v b="$bound" 'BEGIN { printf "| swarm | aria2c | - | - | %.2f | %.2f | - |\n", s, s / b }'
  echo
  echo "\`hnow run --cmd 'grep -c 7'\` over the same lab: $run."
  lab_down
  rm -rf "$DIR"
  DIR=""
}

# One local256 send: "WALL ACTUAL PREDICTED BOUND COPIES FAILED" or "failed: WHY".
local256_send() { # DEST
  local start report w
  empty_agent_roots
  start=$(now)
  if report=$("$HNOW" --config "$DIR/client.toml" send "$DIR/file.bin" --dest "$1" --json 2>"$DIR/send.err"); then
    w=$(since "$start")
    echo "$w $(jq -r '[.actual_s, .predicted_s, (.kumar_ross_bound_s // .fluid_bound_s), (.copies | length), (.failed | length)] | map(tostring) | join(" ")' <<<"$report")"
  else
    echo "failed: $(tail -n 1 "$DIR/send.err")"
  fi
}

local256() {
  AGENTS=256 LINKS=local
  DIR=$(mktemp -d "${TMPDIR:-/tmp}/hnow-bench-volunteers-XXXXXX")
  echo "bench/volunteers.sh: lab local256 with a CPU hog" >&2
  sh -c 'while :; do :; done' &
  HOG="$!"
  sh -c 'while :; do :; done' &
  HOG="$HOG $!"
  local start up_s dd_s first
  start=$(now)
  "$HNOW" local up --dir "$DIR" --agents 256 >&2
  up_s=$(since "$start")
  head -c "$SIZE" /dev/urandom >"$DIR/file.bin"
  # What this machine's disk takes alone: the 256 copies' bytes written
  # buffered by one dd, beside the same hog (no tool lands them faster).
  start=$(now)
  dd if=/dev/zero of="$DIR/dd.bin" bs=4M count=$((SIZE * 256 / (4 << 20))) status=none
  dd_s=$(since "$start")
  rm -f "$DIR/dd.bin"
  echo "bench/volunteers.sh: local256: dd wrote $((SIZE * 256 >> 20)) MiB in $dd_s s" >&2
  # The first send: nothing known of the machine yet, planned on the links.
  first=$(local256_send in/first.bin)
  echo "bench/volunteers.sh: local256 first send: $first" >&2
  local walls="" actuals="" preds="" ratios="" r out lost=0
  read -r -a f <<<"$first"
  [ "${f[0]}" = failed: ] && lost=$((lost + 256)) || lost=$((lost + f[5]))
  for ((r = 0; r < REPS; r++)); do
    out=$(local256_send "in/auto-$r.bin")
    echo "bench/volunteers.sh: local256 rep $r: $out" >&2
    read -r -a o <<<"$out"
    if [ "${o[0]}" = failed: ]; then lost=$((lost + 256)); continue; fi
    walls+=" ${o[0]}" actuals+=" ${o[1]}" preds+=" ${o[2]}"
    ratios+=" $(awk -v a="${o[1]}" -v b="${o[3]}" 'BEGIN { printf "%.4f", a / b }')"
    lost=$((lost + o[5]))
  done
  kill $HOG 2>/dev/null || true
  HOG=""
  echo
  echo "## Lab: local256"
  echo
  echo "\`hnow local up --agents 256\` (came up in $up_s s) beside two busy loops; loads while sending about $(cut -d' ' -f1 /proc/loadavg). Copies failed over all sends: $lost."
  echo
  echo "The same bytes ($((SIZE * 256 >> 20)) MiB) written by one \`dd\` beside the same hog: $dd_s s."
  echo
  [ "${f[0]}" = failed: ] || printf 'First send (the machine not known yet, planned on links): wall %.2f s, actual %.2f s, predicted %.2f s, bound %.2f s (the links alone): %.2f of it, %.2f of dd.\n\n' \
    "${f[0]}" "${f[1]}" "${f[2]}" "${f[3]}" "$(awk -v a="${f[1]}" -v b="${f[3]}" 'BEGIN { print a / b }')" "$(awk -v a="${f[1]}" -v b="$dd_s" 'BEGIN { print a / b }')"
  echo "Then, each send against the bound it reported (the machine's intake learnt from the sends before it):"
  echo
  echo "| method | plan | predicted s | wall s | actual s | actual / bound (median of each send's) | actual / dd |"
  echo "|---|---|---:|---:|---:|---:|---:|"
  awk -v p="$(med "$preds")" -v w="$(med "$walls")" -v a="$(med "$actuals")" -v q="$(med "$ratios")" -v d="$dd_s" 'BEGIN {
    printf "| hnow auto | 256 agents, CPU hog | %.2f | %.2f | %.2f | %.2f | %.2f |\n", p, w, a, q, a / d }'
  echo
  echo "What hnowd learnt of the machine after each send (its log):"
  echo
  grep "took in" "$DIR/logs/hnowd.log" 2>/dev/null | sed 's/^.*hnowd info: /- /' | tail -n $((REPS + 1))
  grep -c "late (this machine is overloaded?)" "$DIR/logs/hnowd.log" 2>/dev/null |
    awk '{ printf "\nhnowd said its loop ran late %d time(s) (at most once per 10 s).\n", $1 }'
  lab_down
  rm -rf "$DIR"
  DIR=""
}

flood() {
  AGENTS=4 LINKS=local
  DIR=$(mktemp -d "${TMPDIR:-/tmp}/hnow-bench-volunteers-XXXXXX")
  echo "bench/volunteers.sh: lab flood" >&2
  lab_up "--uplink-mbps 200 --downlink-mbps 400 --source-uplink-mbps 200"
  head -c "$SIZE" /dev/urandom >"$DIR/file.bin"
  local control data agent quiet="" flooded="" status_s="" out r start registered_s
  control=$(sed -n 's/^coordinator = "\(.*\)"/\1/p' "$DIR/client.toml")
  data=$(sed -n 's/.*data plane listening on \([0-9.:]*\).*/\1/p' "$DIR/logs/hnowd.log" | tail -n 1)
  agent=$(sed -n 's/.*data plane listening on \([0-9.:]*\).*/\1/p' "$DIR/logs/agent-1.log" | tail -n 1)
  for ((r = 0; r < REPS; r++)); do
    out=$(timed_send "in/quiet-$r.bin")
    echo "bench/volunteers.sh: flood: quiet send $r: $out" >&2
    quiet+=" ${out%% *}"
  done
  python3 bench/flood.py --source 127.0.0.2 --count 500 "$control" "$data" "$agent" 2>"$DIR/flood.err" &
  FLOOD=$!
  sleep 3
  for ((r = 0; r < REPS; r++)); do
    start=$(now)
    "$HNOW" --config "$DIR/client.toml" status >/dev/null 2>&1 && status_s+=" $(since "$start")"
    out=$(timed_send "in/flooded-$r.bin")
    echo "bench/volunteers.sh: flood: send $r during the flood: $out" >&2
    flooded+=" ${out%% *}"
  done
  # agent-2 restarted during the flood: seconds until hnowd has it alive again.
  kill "$(cat "$DIR/pids/agent-2.pid")"
  for _ in $(seq 50); do
    [ "$("$HNOW" --config "$DIR/client.toml" status --json | jq -r '.agents[] | select(.name == "agent-2") | .state')" = lost ] && break
    sleep 0.1
  done
  start=$(now)
  "$HNOW_BUILD_DIR/agent/hnow-agent" --config "$DIR/agents/agent-2.toml" >>"$DIR/logs/agent-2.log" 2>&1 &
  echo $! >"$DIR/pids/agent-2.pid"
  registered_s="never (30 s)"
  for _ in $(seq 300); do
    if [ "$("$HNOW" --config "$DIR/client.toml" status --json | jq -r '.agents[] | select(.name == "agent-2") | .state')" = alive ]; then
      registered_s="$(since "$start") s"
      break
    fi
    sleep 0.1
  done
  kill "$FLOOD" 2>/dev/null || true
  wait "$FLOOD" 2>/dev/null || true
  FLOOD=""
  echo
  echo "## Lab: flood"
  echo
  echo "\`hnow local up --agents 4\`, links paced at 200 Mbit/s; 500 idle connections from 127.0.0.2 to each of hnowd's control port, its data port and agent-1's data port, each opened again as it is closed ($(tail -n 1 "$DIR/flood.err" | sed 's/flood: //'))."
  echo
  echo "| | wall s (median) | flooded / quiet |"
  echo "|---|---:|---:|"
  awk -v q="$(med "$quiet")" -v f="$(med "$flooded")" 'BEGIN {
    printf "| send without the flood | %.2f | |\n| send during the flood | %.2f | %.2f |\n", q, f, f / q }'
  echo "| \`hnow status\` during the flood | $(med "$status_s") | |"
  echo
  echo "agent-2 restarted during the flood was alive at hnowd again after $registered_s."
  lab_down
  rm -rf "$DIR"
  DIR=""
}

echo "# Volunteers' machines: $SIZE bytes"
echo
echo "- Machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $(uname -sr)"
echo "- Commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo ' (work tree with changes)'), run $(date -u '+%Y-%m-%d %H:%M UTC'); medians of $REPS"
echo "- wall s: \`hnow send\` as the user waits for it; actual s: the report's \`actual_s\` (plan to last copy);"
echo "  the swarm's: its leechers started to the last complete copy (bench/swarm.sh)"
echo "- Load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
IFS=, read -r -a labs <<<"$LABS"
for lab in "${labs[@]}"; do
  case "$lab" in
    firewalled|nat) [ "$(id -u)" = 0 ] || { echo "bench/volunteers.sh: lab $lab needs root" >&2; continue; }; "$lab" ;;
    local256) local256 ;;
    flood) flood ;;
    *) echo "bench/volunteers.sh: unknown lab '$lab' (firewalled, nat, local256, flood)" >&2; exit 2 ;;
  esac
done
