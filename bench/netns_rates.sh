#!/usr/bin/env bash
# Link rates over real shaped links (docs/link-rates.md), and what they do
# for sends: per lab, every link hnowd measured against its tc rate (medians
# of REPS surveys); five sends in a row with a BitTorrent swarm moving the
# same file over the same links between them (the other traffic a lab has,
# and hnow's best peer: bench/swarm.sh), each send's time against the first
# and against its prediction, the replans; the Kumar-Ross bound
# max(F/u_s, F/d_min, N*F/(u_s + sum u_i)) from the tc rates and the swarm's
# time. Root only (network namespaces); markdown on stdout.
#   bench/netns_rates.sh [--labs volunteer,demo,downlinks] [--size BYTES] [--reps R]
# Labs: volunteer (hnowd 200 up; agents 100/60/40/20 up, 400 down; 8
# agents), demo (hnowd 400; agents 400/400, 100/400, 50/200; 8), downlinks
# (hnowd 100 up; 4 agents 200 up, 400 down: downlinks 4x hnowd's uplink).
set -euo pipefail
cd "$(dirname "$0")/.."
export HNOW_BUILD_DIR=${HNOW_BUILD_DIR:-$PWD/build}
LABS=volunteer,demo,downlinks
SIZE=$((128 << 20))
REPS=3
while [ $# -gt 0 ]; do
  case "$1" in
    --labs) LABS=$2; shift 2 ;;
    --size) SIZE=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    *) echo "usage: bench/netns_rates.sh [--labs volunteer,demo,downlinks] [--size BYTES] [--reps R]" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "bench/netns_rates.sh: needs root (network namespaces)" >&2; exit 77; }
for tool in jq aria2c opentracker python3; do
  command -v $tool >/dev/null || { echo "bench/netns_rates.sh needs $tool (apt-get install jq aria2 opentracker)" >&2; exit 2; }
done
LAB=tests/netns/lab.sh
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hnow-bench-rates-XXXXXX")
CURRENT=""
cleanup() { [ -n "$CURRENT" ] && "$LAB" down --dir "$CURRENT" >/dev/null 2>&1; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "nan"; else if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
pick() { local -a l; IFS=, read -r -a l <<<"$1"; echo "${l[$(($2 % ${#l[@]}))]}"; }

lab_args() {
  case "$1" in
    volunteer) echo "8 100,60,40,20 400 200" ;;
    demo) echo "8 400,100,50 400,400,200 400" ;;
    downlinks) echo "4 200 400 100" ;;
    *) echo "bench/netns_rates.sh: unknown lab '$1'" >&2; exit 2 ;;
  esac
}

echo "# Link rates over shaped network namespaces"
echo
echo "- Machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $(uname -sr)"
echo "- Commit: $(git rev-parse --short HEAD), run $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- File: $SIZE bytes; $REPS surveys per lab; links: tc tbf (tests/netns/lab.sh); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
head -c "$SIZE" /dev/urandom >"$WORK/file.bin"

IFS=, read -r -a labs <<<"$LABS"
for lab in "${labs[@]}"; do
  read -r agents ups downs source <<<"$(lab_args "$lab")"
  dir="$WORK/$lab"
  mkdir -p "$dir"
  CURRENT=$dir
  start=$(date +%s.%N)
  "$LAB" up --dir "$dir" --agents "$agents" --uplink-mbps "$ups" --downlink-mbps "$downs" \
    --source-uplink-mbps "$source" >&2
  surveyed=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
  # hnowd reads what it sends only inside its [send] roots: the lab's directory.
  cp "$WORK/file.bin" "$dir/file.bin"
  echo
  echo "## Lab $lab: hnowd $source Mbit/s up; agents up $ups, down $downs; $agents agents"
  echo
  echo "Up with every link measured in $surveyed s (lab.sh up: namespaces, daemons, the first survey)."

  # Surveys: the first (the lab's) and REPS-1 asked for; per link the median.
  "$LAB" hnow --dir "$dir" status --json >"$dir/survey-0.json"
  for ((r = 1; r < REPS; r++)); do
    "$LAB" hnow --dir "$dir" measure --json >"$dir/survey-$r.json"
  done
  echo
  echo "| link | tc Mbit/s | measured Mbit/s (median of $REPS) | measured / tc | how |"
  echo "|---|---:|---:|---:|---|"
  worst=0
  rows() { # NODE DIRECTION TC JQ-PATH
    local values method m ratio
    values=$(for f in "$dir"/survey-*.json; do jq "$4.bytes_per_s * 8 / 1e6" "$f"; done | median)
    method=$(jq -r "$4.method" "$dir/survey-0.json")
    m=$(printf '%.1f' "$values")
    ratio=$(awk -v m="$values" -v t="$3" 'BEGIN { printf "%.3f", m / t }')
    [ "$method" = bound ] && m=">= $m"
    echo "| $1 $2 | $3 | $m | $ratio | $method |"
    if [ "$method" != bound ]; then
      worst=$(awk -v w="$worst" -v r="$ratio" 'BEGIN { d = r > 1 ? r - 1 : 1 - r; print (d > w ? d : w) }')
    fi
  }
  rows hnowd uplink "$source" .coordinator.links.uplink
  for ((k = 1; k <= agents; k++)); do
    sel=".agents[] | select(.name == \"agent-$k\") | .links"
    rows "agent-$k" uplink "$(pick "$ups" $((k - 1)))" "$sel.uplink"
    rows "agent-$k" downlink "$(pick "$downs" $((k - 1)))" "$sel.downlink"
  done
  echo
  echo "Largest distance of a measured capacity from its tc rate: $(awk -v w="$worst" 'BEGIN { printf "%.1f%%", w * 100 }') (target: within 10%; bounds no higher than tc)."

  # Five sends in a row, the swarm between them.
  echo
  echo "| send | plan | predicted s | actual s | actual / predicted | / 1st send | replans | swarm after it s |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|"
  first="" swarms=() ratios=() drift=()
  for n in 1 2 3 4 5; do
    # Its bytes elsewhere under an agent's root would be copied there, not sent.
    rm -rf "$dir"/agents/*/files/in
    report=$("$LAB" hnow --dir "$dir" send "$dir/file.bin" --dest "in/row-$n.bin" --json 2>/dev/null) ||
      { echo "bench/netns_rates.sh: send $n on $lab failed" >&2; exit 1; }
    rm -f "$dir"/agents/*/files/in/row-$n.bin
    actual=$(jq .actual_s <<<"$report") predicted=$(jq .predicted_s <<<"$report")
    [ -n "$first" ] || first=$actual
    swarm="-"
    if [ $n -lt 5 ]; then
      swarm=$(bench/swarm.sh run --dir "$dir" --file "$WORK/file.bin" | sed -n 's/^swarm: .*, \([0-9.]*\) seconds$/\1/p')
      swarms+=("$swarm")
    fi
    ratios+=("$(awk -v a="$actual" -v p="$predicted" 'BEGIN { print a / p }')")
    [ $n -gt 1 ] && drift+=("$(awk -v a="$actual" -v f="$first" 'BEGIN { d = a / f - 1; print (d < 0 ? -d : d) }')")
    awk -v n="$n" -v plan="$(jq -r .algo <<<"$report")" -v p="$predicted" -v a="$actual" -v f="$first" \
      -v r="$(jq .replans <<<"$report")" -v s="$swarm" \
      'BEGIN { printf "| %d | %s | %.2f | %.2f | %.3f | %.3f | %s | %s |\n", n, plan, p, a, a / p, a / f, r, s }'
  done
  swarm=$(printf '%s\n' "${swarms[@]}" | median)
  bound=$(awk -v F="$SIZE" -v us="$source" -v ups="$ups" -v downs="$downs" -v n="$agents" 'BEGIN {
    split(ups, u, ","); split(downs, d, ","); nu = length(u); nd = length(d)
    sum = 0; dmin = 1e18
    for (k = 0; k < n; k++) { sum += u[k % nu + 1]; if (d[k % nd + 1] < dmin) dmin = d[k % nd + 1] }
    bits = F * 8 / 1e6; t = bits / us; if (bits / dmin > t) t = bits / dmin; if (n * bits / (us + sum) > t) t = n * bits / (us + sum)
    printf "%.2f", t }')
  med_ratio=$(printf '%s\n' "${ratios[@]}" | median)
  worst_drift=$(printf '%s\n' "${drift[@]}" | sort -g | tail -n1)
  echo
  echo "- actual / predicted, median of the five sends: $(printf '%.3f' "$med_ratio") (target: within 10%)"
  echo "- sends 2 to 5 against the 1st: at most $(awk -v d="$worst_drift" 'BEGIN { printf "%.1f%%", d * 100 }') apart (target: 5%)"
  echo "- Kumar-Ross bound from the tc rates: $bound s; hnow's 1st send $(printf '%.2f' "$first") s = $(awk -v a="$first" -v b="$bound" 'BEGIN { printf "%.2f", a / b }')x the bound"
  echo "- BitTorrent swarm (aria2c, opentracker; median of ${#swarms[@]}): $(printf '%.2f' "$swarm") s = $(awk -v a="$swarm" -v b="$bound" 'BEGIN { printf "%.2f", a / b }')x the bound; hnow / swarm: $(awk -v a="$first" -v s="$swarm" 'BEGIN { printf "%.2f", a / s }')"
  "$LAB" down --dir "$dir" >/dev/null 2>&1
  CURRENT=""
done
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
