# Shared by the benches that compare sends on the same labs (bench/striped.sh,
# bench/tree.sh): the labs, bringing one up and down over shaped namespaces
# or local pacing, and the Kumar-Ross bound of its rates. Sourced; uses the
# caller's LINKS, AGENTS, DIR, LAB, HNOW and SIZE when called.

median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "nan"; else if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
# The i-th entry of a comma list, round-robin (as lab.sh reads its lists).
pick() { local -a l; IFS=, read -r -a l <<<"$1"; echo "${l[$(($2 % ${#l[@]}))]}"; }

now() { date +%s.%N; }
# Seconds since a now(), to the millisecond.
since() { awk -v s="$1" -v e="$(now)" 'BEGIN { printf "%.3f", e - s }'; }

# A value of key=value lines: kv KEY TEXT.
kv() { sed -n "s/^$1=//p" <<<"$2"; }

# What a tree's send moved to the agents (jq on its --json report): its
# bundle to every agent, or each group's bundle to its agents
# (docs/tree-send.md), plus the queries asking what they hold.
TREE_MOVED='(if (.tree.groups // [] | length) > 0 then ([.tree.groups[] | .size * (.agents | length)] | add)
             else .size * (.copies | length) end) + (.tree.query_bytes // 0)'

lab_options() {
  case "$1" in
    demo) echo "--uplink-mbps 400,100,50 --downlink-mbps 400,400,200 --sites new-wing,new-wing,old-wing --source-uplink-mbps 400" ;;
    uplink) echo "--uplink-mbps 400,100,50 --downlink-mbps 400 --source-uplink-mbps 400" ;;
    volunteer) echo "--uplink-mbps 100,60,40,20 --downlink-mbps 400 --source-uplink-mbps 200" ;;
    slow) echo "--uplink-mbps 0.5,1,2 --downlink-mbps 4 --source-uplink-mbps 4" ;;
    wide) echo "--uplink-mbps 2,4,8 --downlink-mbps 20 --source-uplink-mbps 20" ;;
    *) echo "$(basename "$0"): unknown lab '$1' (demo, uplink, volunteer, slow, wide)" >&2; exit 2 ;;
  esac
}

# `hnow local up` takes one value per agent: the lists round-robin, as lab.sh reads them.
local_options() {
  local out="" opt list k
  read -r -a words <<<"$1"
  for ((k = 0; k < ${#words[@]}; k += 2)); do
    opt=${words[k]} list=${words[k + 1]}
    if [ "$opt" = --source-uplink-mbps ]; then out+=" $opt $list"; continue; fi
    out+=" $opt $(for ((i = 0; i < AGENTS; i++)); do pick "$list" $i; done | paste -sd, -)"
  done
  grep -q -- --sites <<<"$1" || out+=" --sites local"
  echo "$out"
}

lab_up() {
  # shellcheck disable=SC2086,SC2046
  if [ "$LINKS" = netns ]; then
    "$LAB" up --dir "$DIR" --agents "$AGENTS" $1 >&2
  else
    "$HNOW" local up --dir "$DIR" --agents "$AGENTS" $(local_options "$1") >&2
  fi
}

# An agent that holds a file's bytes anywhere under its root writes --dest
# from there instead of receiving it (docs/send.md, "Under another path"):
# a bench that times the same file again empties the agents' roots first.
empty_agent_roots() { rm -rf "$DIR"/agents/*/files/* 2>/dev/null || true; }

lab_down() {
  if [ "$LINKS" = netns ]; then "$LAB" down --dir "$DIR"; else "$HNOW" local down --dir "$DIR"; fi >/dev/null 2>&1 || true
}

hnow_send() {
  if [ "$LINKS" = netns ]; then "$LAB" hnow --dir "$DIR" send "$@"; else "$HNOW" --config "$DIR/client.toml" send "$@"; fi
}

# Kumar & Ross over the lab's tc rates (Mbit/s), in seconds for SIZE bytes.
kumar_ross() {
  local ups=$1 downs=$2 source=$3 sum=0 dmin="" k
  for ((k = 0; k < AGENTS; k++)); do
    sum=$(awk -v s="$sum" -v u="$(pick "$ups" $k)" 'BEGIN { print s + u }')
    dmin=$(awk -v m="$dmin" -v d="$(pick "$downs" $k)" 'BEGIN { print (m == "" || d < m) ? d : m }')
  done
  awk -v f="$SIZE" -v us="$source" -v d="$dmin" -v s="$sum" -v n="$AGENTS" 'BEGIN {
    bits = f * 8 / 1e6; t = bits / us; if (bits / d > t) t = bits / d
    if (n * bits / (us + s) > t) t = n * bits / (us + s); print t }'
}
