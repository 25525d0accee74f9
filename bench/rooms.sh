#!/usr/bin/env bash
# hnow between rooms (docs/bench-rooms.md): labs of tests/netns/lab.sh whose
# agents sit in rooms, switches joined by trunks slower than the links
# inside them (tests/netns/rooms.sh). In each, rep by rep in turn: hnow send
# --algo auto, lcf (largest cluster first over the sites), striped, and
# bench/swarm.sh (aria2c + opentracker). Medians of REPS; each time against
# the bound of the links' rates: the largest of Kumar-Ross over the tc rates,
# F / trunk in of every room the source is not in, and F / the source
# room's trunk out (every lab sends to every agent, and each has agents
# outside the source's room); and the bytes each trunk carried, in units of
# F (a room-aware plan moves about 1 F into each room and no more).
#   two           rooms A (hnowd, 4 agents) and B (4), routed, B's trunk 100
#                 Mbit/s each way (A's unshaped: the router is A's switch),
#                 hnowd 400 up, agents 400/400, sites A and B
#   two-nolabels  the same, every agent in site "default"
#   three-end     rooms A-B-C in a line: A's trunk 100, B's unshaped (the
#                 router is B's switch), C's 50; 3+3+2 agents 400/200/100 up,
#                 400 down, sites the rooms; hnowd in A
#   three-mid     the same with hnowd in B
#   l2            two switches on one subnet joined by a 100 Mbit/s trunk,
#                 4+4 agents 400/400, no sites
#   bench/rooms.sh [--size BYTES] [--reps R] [--labs two,two-nolabels,three-end,three-mid,l2]
#                  [--methods auto,lcf,striped,swarm]
# Root only. Writes markdown to stdout, progress to stderr; every namespace
# and process it starts is gone on the way out, also on failure or Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."
export HNOW_BUILD_DIR=${HNOW_BUILD_DIR:-$PWD/build}
SIZE=$((128 << 20)) REPS=3 LABS=two,two-nolabels,three-end,three-mid,l2 METHODS=auto,lcf,striped,swarm
while [ $# -gt 0 ]; do
  case "$1" in
    --size) SIZE=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --labs) LABS=$2; shift 2 ;;
    --methods) METHODS=$2; shift 2 ;;
    *) echo "usage: bench/rooms.sh [--size BYTES] [--reps R] [--labs L,..] [--methods M,..]" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "bench/rooms.sh needs root (network namespaces)" >&2; exit 77; }
command -v jq >/dev/null || { echo "bench/rooms.sh needs jq" >&2; exit 2; }
LINKS=netns AGENTS=8
LAB=tests/netns/lab.sh
HNOW="$HNOW_BUILD_DIR/daemon/hnow"
DIR=""
# shellcheck source=bench/labs.sh
. bench/labs.sh
cleanup() { [ -z "$DIR" ] || { lab_down; rm -rf "$DIR"; }; }
trap cleanup EXIT
trap 'exit 130' INT TERM

room_lab_options() {
  local two="--rooms A,A,A,A,B,B,B,B --trunk routed --trunk-mbps B:100 --uplink-mbps 400 --downlink-mbps 400 --source-uplink-mbps 400"
  local three="--rooms A,A,A,B,B,B,C,C --trunk routed --trunk-mbps A:100,C:50 --uplink-mbps 400,200,100 --downlink-mbps 400 --source-uplink-mbps 400 --site-labels rooms"
  case "$1" in
    two) echo "$two --site-labels rooms" ;;
    two-nolabels) echo "$two" ;;
    three-end) echo "$three --source-room A" ;;
    three-mid) echo "$three --source-room B" ;;
    l2) echo "--rooms A,A,A,A,B,B,B,B --trunk l2 --trunk-mbps B:100 --uplink-mbps 400 --downlink-mbps 400 --source-uplink-mbps 400" ;;
    *) echo "bench/rooms.sh: unknown lab '$1' (two, two-nolabels, three-end, three-mid, l2)" >&2; exit 2 ;;
  esac
}

# The median of the numbers in a space-separated list ("nan" for none).
med() { tr ' ' '\n' <<<"$1" | awk 'NF' | median; }

# The trunks' byte counters: "ROOM IN OUT" lines (lab.sh trunks).
trunk_bytes() { "$LAB" trunks --dir "$DIR" | awk '{ print $1, $4, $5 }'; }

# What each trunk carried between two trunk_bytes readings, in units of F:
# "ROOM:IN:OUT" words.
trunk_delta() { # BEFORE AFTER
  awk -v f="$SIZE" 'NR == FNR { i[$1] = $2; o[$1] = $3; next }
    { printf "%s:%.2f:%.2f ", $1, ($2 - i[$1]) / f, ($3 - o[$1]) / f }' <(echo "$1") <(echo "$2")
}

# The trunks' part of the bound (docs/rooms.md, "The bound over cuts"),
# from lab.env and the agents' tc uplinks UPS: for every room r the source
# is not in that holds agents, F / its trunk in, and its |D_r| copies
# through its trunk and its own uplinks, |D_r|·F / (trunk in + Σ u); and F /
# the source room's trunk out if any agent is elsewhere. Prints "SECONDS
# TERMS" (TERMS: the cuts that limit).
trunk_bound() { # UPS
  # shellcheck disable=SC1091
  . "$DIR/lab.env"
  local -a names tin tout rooms
  read -r -a names <<<"$ROOMS"
  read -r -a tin <<<"$TRUNK_IN"
  read -r -a tout <<<"$TRUNK_OUT"
  read -r -a rooms <<<"$NODE_ROOMS"
  local src=${rooms[0]} r k t=0 terms="" elsewhere=0 n u
  for r in "${!names[@]}"; do
    n=0 u=0
    for ((k = 1; k < ${#rooms[@]}; k++)); do
      [ "${rooms[k]}" = "$r" ] || continue
      n=$((n + 1)) u=$(awk -v s="$u" -v x="$(pick "$1" $((k - 1)))" 'BEGIN { print s + x }')
    done
    if [ "$r" = "$src" ] || [ $n = 0 ]; then continue; fi
    elsewhere=1
    [ "${tin[r]}" != - ] || continue
    t=$(awk -v t="$t" -v f="$SIZE" -v m="${tin[r]}" -v n=$n -v u="$u" 'BEGIN {
      b = f * 8 / 1e6 / m; c = n * f * 8 / 1e6 / (m + u); if (c > b) b = c; print (b > t) ? b : t }')
    terms+="F/${tin[r]} into ${names[r]}, "
  done
  if [ $elsewhere = 1 ] && [ "${tout[src]}" != - ]; then
    t=$(awk -v t="$t" -v f="$SIZE" -v m="${tout[src]}" 'BEGIN { b = f * 8 / 1e6 / m; print (b > t) ? b : t }')
    terms+="F/${tout[src]} out of ${names[src]}, "
  fi
  echo "$t ${terms%, }"
}

echo "# hnow between rooms: $SIZE bytes to $AGENTS agents behind shaped trunks"
echo
echo "- Machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $(uname -sr)"
echo "- Commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo ' (work tree with changes)'), run $(date -u '+%Y-%m-%d %H:%M UTC'); medians of $REPS"
echo "- Binaries: $HNOW_BUILD_DIR (hnowd built $(date -u -r "$HNOW_BUILD_DIR/daemon/hnowd" '+%Y-%m-%d %H:%M UTC'))"
echo "- Links: tests/netns/lab.sh with rooms (tc tbf per uplink, downlink and trunk direction)"
echo "- Bound: max(Kumar-Ross over the tc rates, F / each trunk every copy must cross)"
echo "- wall s: \`hnow send\` as the user waits for it; actual s: the report's \`actual_s\` (plan to last copy);"
echo "  the swarm's: its leechers started to the last complete copy (bench/swarm.sh)"
echo "- Trunk columns: bytes the trunk carried into / out of the room, in units of F (headers and control traffic included)"
echo "- Load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
IFS=, read -r -a labs <<<"$LABS"
IFS=, read -r -a methods <<<"$METHODS"
for lab in "${labs[@]}"; do
  options=$(room_lab_options "$lab")
  DIR=$(mktemp -d "${TMPDIR:-/tmp}/hnow-bench-rooms-XXXXXX")
  echo "bench/rooms.sh: lab $lab: $options" >&2
  lab_up "$options"
  head -c "$SIZE" /dev/urandom >"$DIR/file.bin"
  ups=$(sed 's/.*--uplink-mbps \([^ ]*\).*/\1/' <<<"$options")
  downs=$(sed 's/.*--downlink-mbps \([^ ]*\).*/\1/' <<<"$options")
  source_up=$(sed 's/.*--source-uplink-mbps \([^ ]*\).*/\1/' <<<"$options")
  kr=$(kumar_ross "$ups" "$downs" "$source_up")
  read -r tb tterms <<<"$(trunk_bound "$ups")"
  bound=$(awk -v a="$kr" -v b="$tb" 'BEGIN { print (a > b) ? a : b }')
  trunks=$(trunk_bytes | awk '{ print $1 }' | paste -sd' ')
  declare -A wall=() actual=() plan=() predicted=() moved=() failures=()
  for ((r = 0; r < REPS; r++)); do
    for m in "${methods[@]}"; do
      before=$(trunk_bytes)
      if [ "$m" = swarm ]; then
        if out=$(bench/swarm.sh run --dir "$DIR" --file "$DIR/file.bin" --timeout 600 2>&1); then
          t=$(sed -n 's/^swarm: .* \([0-9.]*\) seconds$/\1/p' <<<"$out")
          actual[$m]="${actual[$m]:-} $t" plan[$m]="aria2c swarm"
        else
          failures[$m]="${failures[$m]:-}rep $r: $(tail -n 1 <<<"$out"); "
        fi
      else
        empty_agent_roots
        report=""
        start=$(now)
        if report=$(hnow_send "$DIR/file.bin" --dest "in/$m-$r.bin" --algo "$m" --json 2>"$DIR/send.err") &&
          [ "$(jq '.failed | length' <<<"$report")" = 0 ]; then
          w=$(since "$start")
          t=$(jq .actual_s <<<"$report")
          wall[$m]="${wall[$m]:-} $w" actual[$m]="${actual[$m]:-} $t"
          plan[$m]="$(jq -r '.algo + (if (.stripes // [] | length) > 0 then " (\(.stripes | length) stripes)" else "" end)' <<<"$report")"
          predicted[$m]="${predicted[$m]:-} $(jq .predicted_s <<<"$report")"
        else
          failures[$m]="${failures[$m]:-}rep $r: $( (jq -r '.error // empty' <<<"${report:-}" 2>/dev/null; tail -n 1 "$DIR/send.err") | head -n 1); "
        fi
        rm -f "$DIR"/agents/*/files/in/"$m-$r.bin"
      fi
      delta=$(trunk_delta "$before" "$(trunk_bytes)")
      moved[$m]="${moved[$m]:-}$delta|"
      echo "bench/rooms.sh: $lab $m rep $r: ${t:-failed} s; trunks (F in:out) $delta" >&2
      t=""
    done
  done
  swarm=""
  [ -z "${actual[swarm]:-}" ] || swarm=$(med "${actual[swarm]}")
  echo
  echo "## Lab: $lab"
  echo
  echo "\`$options\`"
  echo
  printf 'Bound %.2f s: Kumar-Ross over the tc rates %.2f s; trunks %s.\n\n' "$bound" "$kr" \
    "$(awk -v t="$tb" 'BEGIN { printf "%.2f s", t }')${tterms:+ ($tterms)}"
  header="| method | plan | predicted s | wall s | actual s | actual / bound | swarm / actual |"
  rule="|---|---|---:|---:|---:|---:|---:|"
  for room in $trunks; do header+=" $room in / out (F) |"; rule+="---:|"; done
  echo "$header"
  echo "$rule"
  for m in "${methods[@]}"; do
    if [ -z "${actual[$m]:-}" ]; then
      printf '| %s | failed | - | - | - | - | - |' "$m"
    else
      a=$(med "${actual[$m]}") w=$(med "${wall[$m]:-}") p=$(med "${predicted[$m]:-}")
      awk -v m="$m" -v plan="${plan[$m]}" -v p="$p" -v w="$w" -v a="$a" -v b="$bound" -v s="$swarm" 'BEGIN {
        pred = p == "nan" ? "-" : sprintf("%.2f", p); wl = w == "nan" ? "-" : sprintf("%.2f", w)
        sw = (s == "" || m == "swarm") ? "-" : sprintf("%.2f", s / a)
        printf "| %s | %s | %s | %s | %.2f | %.2f | %s |", m, plan, pred, wl, a, a / b, sw }'
    fi
    # Each trunk's median bytes in and out over the reps (failed ones too:
    # what they moved crossed the trunk all the same).
    for room in $trunks; do
      tr '|' ' ' <<<"${moved[$m]}" | tr ' ' '\n' | awk -F: -v r="$room" '$1 == r { print $2, $3 }' >"$DIR/moved"
      printf ' %s / %s |' "$(cut -d' ' -f1 "$DIR/moved" | median)" "$(cut -d' ' -f2 "$DIR/moved" | median)"
    done
    echo
  done
  echo
  echo "Times per rep (actual s): $(for m in "${methods[@]}"; do printf '%s:%s; ' "$m" "${actual[$m]:-}"; done)"
  for m in "${methods[@]}"; do
    [ -z "${failures[$m]:-}" ] || echo "Failed: $m: ${failures[$m]}"
  done
  unset wall actual plan predicted moved failures
  lab_down
  rm -rf "$DIR"
  DIR=""
done
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
