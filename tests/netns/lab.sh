#!/usr/bin/env bash
# A real network on one machine (docs/netns-lab.md): hnowd and N agents,
# each in its own network namespace, joined by veth pairs to a bridge in a
# hub namespace, with every link shaped by tc tbf:
#   uplink of node K   = tbf on its own end of the veth (what it sends);
#   downlink of node K = tbf on the hub's end of its veth (what the bridge
#                        forwards to it).
# Unlike `hnow local`, no token bucket in hnow paces anything: hnowd's link
# surveys measure the shaped links for real, hnowd's own uplink included.
# netem (delay, loss) does not exist on this kernel, so only rates are shaped.
#
#   lab.sh up --dir DIR --agents N [--uplink-mbps a,b,..] [--downlink-mbps a,b,..]
#             [--sites s1,s2,..] [--source-uplink-mbps X] [--drift-dwell-s S]
#             [--survey-s WARM,WINDOW]   hnowd's probe rounds (tests: shorter)
#             [--rooms A,A,B,.. [--source-room A] [--trunk routed|l2]
#              [--trunk-mbps B:100,C:50/20] [--site-labels rooms]]
#                                    switches joined by shaped trunks (rooms.sh)
#   lab.sh down --dir DIR     stop the daemons, delete the namespaces
#   lab.sh exec --dir DIR NODE CMD...   run CMD in NODE's namespace
#                                       (NODE: hnowd or agent-K)
#   lab.sh hnow --dir DIR ARGS...       `hnow --config client.toml ARGS` from
#                                       hnowd's namespace (the client's host)
#   lab.sh shape --dir DIR NODE up|down MBPS   change one link live
#   lab.sh shape --dir DIR trunk:ROOM in|out MBPS   change a trunk live (0: unshaped)
#   lab.sh trunks --dir DIR   each trunk's rates and bytes in and out so far
#   lab.sh restart --dir DIR agent-K    stop that agent and start it again
#   lab.sh firewall --dir DIR NODE on|off   NODE drops (or again accepts)
#                                       every inbound TCP connection (nft),
#                                       as a volunteer behind NAT or a host
#                                       firewall: it still connects out
#   lab.sh nat --dir DIR ROOM on|off    a routed lab's router masquerades
#                                       ROOM's subnet and lets no connection
#                                       into it (a room behind NAT)
#
# Lists of one apply to every agent; longer lists go round-robin. Exit 77
# (ctest's skip) when not root or namespaces cannot be made here.
# Addresses are 10.231.X.0/24, X free among this machine's namespaces, and
# names start with "hnl<X>-", so concurrent labs do not collide; DIR/lab.env
# records them for `down`, which is idempotent. With --rooms, rooms.sh says
# how rooms are laid out and addressed.
set -euo pipefail

BUILD_DIR=${HNOW_BUILD_DIR:-$(cd "$(dirname "$0")/../.." && pwd)/build}
die() { echo "lab.sh: $*" >&2; exit 2; }
skip() { echo "lab.sh: SKIP: $*" >&2; exit 77; }
# shellcheck source=tests/netns/rooms.sh
. "$(dirname "$0")/rooms.sh"

cmd=${1:-}
[ -n "$cmd" ] || die "usage: lab.sh up|down|exec|hnow|shape --dir DIR ..."
shift
DIR=""
AGENTS=4
UPS=400 DOWNS="" SITES="" SOURCE_UP=400 DWELL=2.0 SURVEY=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) DIR=$2; shift 2 ;;
    --agents) AGENTS=$2; shift 2 ;;
    --uplink-mbps) UPS=$2; shift 2 ;;
    --downlink-mbps) DOWNS=$2; shift 2 ;;
    --sites) SITES=$2; shift 2 ;;
    --source-uplink-mbps) SOURCE_UP=$2; shift 2 ;;
    --drift-dwell-s) DWELL=$2; shift 2 ;;
    --survey-s) SURVEY=$2; shift 2 ;;
    --rooms) ROOM_LIST=$2; shift 2 ;;
    --source-room) SOURCE_ROOM=$2; shift 2 ;;
    --trunk) TRUNK=$2; shift 2 ;;
    --trunk-mbps) TRUNK_MBPS=$2; shift 2 ;;
    --trunk-mbps-in) TRUNK_MBPS_IN=$2; shift 2 ;;
    --trunk-mbps-out) TRUNK_MBPS_OUT=$2; shift 2 ;;
    --site-labels) SITE_LABELS=$2; shift 2 ;;
    *) break ;;
  esac
done
[ -n "$DIR" ] || die "--dir is required"

# The i-th (0-based) entry of a comma list, round-robin; "" for an empty list.
pick() {
  local -a list
  IFS=, read -r -a list <<<"$1"
  [ ${#list[@]} -gt 0 ] || { echo ""; return; }
  echo "${list[$(($2 % ${#list[@]}))]}"
}

ns_of() { # NODE -> namespace name
  # shellcheck disable=SC1091
  . "$DIR/lab.env"
  case "$1" in
    hnowd) echo "${PREFIX}d" ;;
    agent-*) echo "${PREFIX}a${1#agent-}" ;;
    router) echo "${PREFIX}rt" ;;
    *) die "unknown node '$1' (hnowd, agent-K or router)" ;;
  esac
}

node_ns() { if [ "$2" = 0 ]; then echo "${1}d"; else echo "${1}a$2"; fi; } # PREFIX K

shape() { # NAMESPACE DEV MBPS: replace the root qdisc with tbf at MBPS
  # 10 ms of queue (a LAN switch's, not 50 ms: hnow keeps 2 MiB in flight
  # per child, which 50 ms of queue at 400 Mbit/s exceeds, so the lab would
  # measure bufferbloat) on top of the burst the kernel needs (rate / HZ, at
  # least one 64 KiB GSO packet: veth passes them whole, and a queued packet
  # larger than the burst of a slowed link would never leave).
  # The bucket itself holds 25 ms of tokens: tbf sends again when its timer
  # fires, and on a loaded machine (a test suite on 2 cores) the timer fires
  # late; with only rate / HZ of tokens a 100 Mbit/s link then carried 86-95
  # (iperf3), with 25 ms 95-96, as idle.
  local queue=$(($3 * 1000 / 250))
  [ "$queue" -ge 640 ] || queue=640
  queue=$(((queue + $3 * 10) * 1000 / 8))
  local burst=$(($3 * 25))
  [ "$burst" -ge 640 ] || burst=640
  # `change` keeps the packets queued (a link slowing down); `replace`
  # would drop them, and TCP's retransmission backoff would stall every flow.
  tc -n "$1" qdisc change dev "$2" root tbf rate "${3}mbit" burst "${burst}kbit" limit "$queue" 2>/dev/null ||
    tc -n "$1" qdisc replace dev "$2" root tbf rate "${3}mbit" burst "${burst}kbit" limit "$queue"
}

down() {
  [ -f "$DIR/lab.env" ] || return 0
  # shellcheck disable=SC1091
  . "$DIR/lab.env"
  local pid
  for f in "$DIR"/pids/*.pid; do
    [ -f "$f" ] || continue
    pid=$(cat "$f")
    kill -TERM "$pid" 2>/dev/null || true
  done
  for _ in $(seq 50); do
    local alive=0
    for f in "$DIR"/pids/*.pid; do
      [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null && alive=1
    done
    [ $alive = 0 ] && break
    sleep 0.1
  done
  for f in "$DIR"/pids/*.pid; do
    [ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null || true
    rm -f "$f"
  done
  # Deleting a namespace deletes the veth ends inside it, and with them their peers.
  for ns in $(ip netns list | awk '{print $1}' | grep "^${PREFIX}" || true); do
    ip netns delete "$ns" 2>/dev/null || true
  done
}

# Every node knows every other's MAC address for good: ARP shares the
# shaped queues with the data, and a tail-dropping tbf queue full of it
# loses the requests, so a child reaching a new parent mid-send (a striped
# send's eight parents, a re-parenting) failed with "host is unreachable"
# for tens of seconds on 2 Mbit/s links. A LAN switch does not do that.
pin_neighbors() { # NS:DEV:ADDR...: the members of one L2 segment
  local k j ns dev addr lines="" count=$#
  local -a names devs addrs macs
  for ((k = 0; k < count; k++)); do
    IFS=: read -r ns dev addr <<<"$1"
    names[k]=$ns devs[k]=$dev addrs[k]=$addr
    shift
    macs[k]=$(ip -n "${names[k]}" -o link show "${devs[k]}" | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
  done
  for ((k = 0; k < count; k++)); do
    lines=""
    for ((j = 0; j < count; j++)); do
      [ $j = $k ] || lines+="neigh replace ${addrs[j]} lladdr ${macs[j]} dev ${devs[k]} nud permanent"$'\n'
    done
    [ -z "$lines" ] || ip -n "${names[k]}" -batch - <<<"$lines"
  done
}

start() { # NAME NAMESPACE ARGV...: a daemon in NAMESPACE, pid in DIR/pids/NAME.pid
  local name=$1 ns=$2
  shift 2
  ip netns exec "$ns" "$@" >>"$DIR/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$DIR/pids/$name.pid"
}

up() {
  [ "$(id -u)" = 0 ] || skip "network namespaces need root"
  command -v ip >/dev/null && command -v tc >/dev/null || skip "ip and tc (iproute2) are not installed"
  [ -x "$BUILD_DIR/daemon/hnowd" ] || die "no $BUILD_DIR/daemon/hnowd: build first (or set HNOW_BUILD_DIR)"
  [[ "$AGENTS" =~ ^[0-9]+$ ]] && [ "$AGENTS" -ge 1 ] && [ "$AGENTS" -le 200 ] || die "--agents must be 1..200"
  rooms_plan 0 # only checks the room options, before anything is made
  mkdir -p "$DIR/pids" "$DIR/logs"
  DIR=$(cd "$DIR" && pwd)

  # A free third octet: not used by a namespace of another lab.
  local x used
  used=$(ip netns list | sed -n 's/^hnl\([0-9]*\)-.*/\1/p' | sort -u)
  for x in $(shuf -i 1-250); do
    grep -qx "$x" <<<"$used" || break
  done
  local prefix="hnl$x-"
  rooms_plan "$x"
  # NET: hnowd's subnet, so hnowd is $NET.1 with rooms too.
  local net=${NODE_ADDR[0]%.*}
  printf 'PREFIX=%s\nNET=%s\nAGENTS=%s\n' "$prefix" "$net" "$AGENTS" >"$DIR/lab.env"
  [ -z "$ROOM_LIST" ] || rooms_env >>"$DIR/lab.env"
  # Failures inside the functions below clean up too.
  set -o errtrace
  trap 'down' ERR

  local r hub
  for r in "${!ROOM_NAMES[@]}"; do
    hub=$(room_hub "$prefix" "$r")
    ip netns add "$hub" 2>/dev/null || skip "cannot create network namespaces here"
    ip -n "$hub" link add br0 type bridge
    ip -n "$hub" link set br0 up
  done
  # Node 0 is hnowd (10.231.X.1), agent K is 10.231.X.(K+1) (rooms.sh: in
  # its room's subnet).
  local k ns up dn
  for ((k = 0; k <= AGENTS; k++)); do
    if [ $k = 0 ]; then ns="${prefix}d" up=$SOURCE_UP dn=""
    else
      ns="${prefix}a$k" up=$(pick "$UPS" $((k - 1))) dn=$(pick "$DOWNS" $((k - 1)))
    fi
    hub=${NODE_HUB[k]}
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    ip link add eth0 netns "$ns" type veth peer name "p$k" netns "$hub"
    ip -n "$hub" link set "p$k" master br0 up
    ip -n "$ns" addr add "${NODE_ADDR[k]}/24" dev eth0
    ip -n "$ns" link set eth0 up
    [ "$TRUNK" != routed ] || ip -n "$ns" route add default via "$(room_gateway "${NODE_ROOM[k]}")"
    [ -z "$up" ] || [ "$up" = 0 ] || shape "$ns" eth0 "$up"
    [ -z "$dn" ] || [ "$dn" = 0 ] || shape "$hub" "p$k" "$dn"
  done
  if [ -n "$ROOM_LIST" ]; then
    rooms_trunks "$prefix"
    rooms_pin "$prefix"
  else
    local -a members=()
    for ((k = 0; k <= AGENTS; k++)); do members+=("$(node_ns "$prefix" $k):eth0:${NODE_ADDR[k]}"); done
    pin_neighbors "${members[@]}"
  fi

  # The lab's identities (docs/security.md): hnowd's key, one operator with
  # full rights, and each agent's key listed in hnowd.toml, so no agent
  # needs enrolling.
  local hnow="$BUILD_DIR/daemon/hnow" hnowd_key operator_key k
  rm -f "$DIR/hnowd.key" "$DIR/operator.key"
  hnowd_key=$("$hnow" key new "$DIR/hnowd.key" 2>/dev/null)
  operator_key=$("$hnow" key new "$DIR/operator.key" 2>/dev/null)
  local identities
  identities=$(printf '\n[[operators]]\nname = "lab"\nkey = "%s"\nrights = "full"\n' "$operator_key")
  for ((k = 1; k <= AGENTS; k++)); do
    mkdir -p "$DIR/agents/agent-$k"
    rm -f "$DIR/agents/agent-$k/agent.key" "$DIR/agents/agent-$k/hnowd.pub"
    identities+=$(printf '\n\n[[agents]]\nname = "agent-%s"\nkey = "%s"\n' "$k" \
      "$("$hnow" key new "$DIR/agents/agent-$k/agent.key" 2>/dev/null)")
  done
  local address="$net.1:7411"
  cat >"$DIR/hnowd.toml" <<EOF
listen = "$address"
data_dir = "hnowd"
key_file = "hnowd.key"
log_level = "info"
drift_dwell_s = $DWELL

# What hnow send may read on hnowd's host: the lab and where it was brought up.
[send]
roots = ["$DIR", "$PWD"]

# Where hnow run may read --input and write --output: the lab's directory.
[run]
roots = ["$DIR"]
EOF
  if [ -n "$SURVEY" ]; then
    printf '\n[survey]\nwarm_s = %s\nwindow_s = %s\n' "${SURVEY%,*}" "${SURVEY#*,}" >>"$DIR/hnowd.toml"
  fi
  printf '%s\n' "$identities" >>"$DIR/hnowd.toml"
  printf 'coordinator = "%s"\noperator = "lab"\nkey_file = "operator.key"\ncoordinator_key = "%s"\n' \
    "$address" "$hnowd_key" >"$DIR/client.toml"
  start hnowd "${prefix}d" "$BUILD_DIR/daemon/hnowd" --config "$DIR/hnowd.toml"

  # Every agent at once: hnowd surveys their links together once they have
  # joined (docs/link-rates.md), round by round.
  local name site
  for ((k = 1; k <= AGENTS; k++)); do
    name="agent-$k"
    site=$(pick "$SITES" $((k - 1)))
    [ -z "$SITE_LABELS" ] || site=${ROOM_NAMES[NODE_ROOM[k]]}
    mkdir -p "$DIR/agents/$name/files"
    cat >"$DIR/agents/$name.toml" <<EOF
name = "$name"
site = "${site:-default}"
coordinator = "$address"
data_dir = "$name"
coordinator_key = "$hnowd_key"
roots = ["$DIR/agents/$name/files"]
heartbeat_interval_s = 0.5
probe_interval_s = 3600

[jobs]
allow = ["*"]
shell = true
nice = 0
idle = false
EOF
    start "$name" "${prefix}a$k" "$BUILD_DIR/agent/hnow-agent" --config "$DIR/agents/$name.toml"
  done
  wait_rates "$AGENTS"
  wait_trunks
  trap - ERR
  set +o errtrace
  echo "lab.sh: $AGENTS agents up in namespaces ${prefix}*, hnowd at $address${ROOM_LIST:+, rooms ${ROOM_NAMES[*]} ($TRUNK)}"
}

# Waits until `count` agents are alive with both links measured, and hnowd's
# uplink too (60 s plus 6 s per agent at most: a survey takes two rounds of
# about a second per node, and what a round could not read waits a minute
# for the next survey; 64 agents on 2-8 Mbit/s links took 6 minutes).
wait_rates() {
  local count=$1 have=0 limit=$((600 + 60 * $1))
  for _ in $(seq "$limit"); do
    have=$(run_hnow status --json 2>/dev/null | jq '
      if .coordinator.links.uplink.method == "unknown" then 0 else
      [.agents[] | select(.state == "alive" and .age_s != null and
        .links.uplink.method != "unknown" and .links.downlink.method != "unknown")] | length end' \
      2>/dev/null || echo 0)
    [ "${have:-0}" -ge "$count" ] && return 0
    sleep 0.1
  done
  echo "lab.sh: only ${have:-0} of $count agents had measured links within $((limit / 10)) s; logs in $DIR/logs" >&2
  return 1
}

# Once the links are measured hnowd finds the rooms (labels, subnets, or
# rounds of flows on one subnet: also on a lab of one switch) and surveys
# their trunks with flows across them: a lab is up when that is over too
# (no survey running and every trunk known for 2 s on end), so what runs
# next does not share the links with it. One that cannot is reported after 60 s, not fatal (the
# lab itself is up).
wait_trunks() {
  local settled=0
  for _ in $(seq 600); do
    if run_hnow status --json 2>/dev/null | jq -e '(.coordinator.surveying | not) and
        ([.rooms[]? | .trunk.in.method, .trunk.out.method] | all(. != "unknown"))' >/dev/null 2>&1; then
      settled=$((settled + 1))
      [ "$settled" -ge 20 ] && return 0
    else
      settled=0
    fi
    sleep 0.1
  done
  echo "lab.sh: hnowd had not measured every room's trunk within 60 s; going on" >&2
}

run_hnow() {
  # shellcheck disable=SC1091
  . "$DIR/lab.env"
  ip netns exec "${PREFIX}d" "$BUILD_DIR/daemon/hnow" --config "$DIR/client.toml" "$@"
}

case "$cmd" in
  up) command -v jq >/dev/null || die "lab.sh needs jq"; up ;;
  down) down ;;
  exec) node=$1; shift; ip netns exec "$(ns_of "$node")" "$@" ;;
  hnow) run_hnow "$@" ;;
  shape)
    [ $# = 3 ] || die "usage: lab.sh shape --dir DIR NODE up|down MBPS, or trunk:ROOM in|out MBPS"
    # shellcheck disable=SC1091
    . "$DIR/lab.env"
    if [[ "$1" == trunk:* ]]; then shape_trunk "${1#trunk:}" "$2" "$3"; exit 0; fi
    ns=$(ns_of "$1")
    case "$2" in
      up) shape "$ns" eth0 "$3" ;;
      down)
        k=0; [ "$1" = hnowd ] || k=${1#agent-}
        hub="${PREFIX}hub"
        if [ -n "${ROOMS:-}" ]; then
          read -r -a rooms_of <<<"$NODE_ROOMS"
          hub=$(room_hub "$PREFIX" "${rooms_of[k]}")
        fi
        shape "$hub" "p$k" "$3" ;;
      *) die "shape: up or down, not '$2'" ;;
    esac ;;
  trunks)
    # shellcheck disable=SC1091
    . "$DIR/lab.env"
    trunk_counters ;;
  restart)
    [ $# = 1 ] && [[ "$1" == agent-* ]] || die "usage: lab.sh restart --dir DIR agent-K"
    pid=$(cat "$DIR/pids/$1.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    start "$1" "$(ns_of "$1")" "$BUILD_DIR/agent/hnow-agent" --config "$DIR/agents/$1.toml" ;;
  firewall)
    [ $# = 2 ] || die "usage: lab.sh firewall --dir DIR NODE on|off"
    command -v nft >/dev/null || skip "nft (nftables) is not installed"
    ns=$(ns_of "$1")
    ip netns exec "$ns" nft delete table inet hnowlab 2>/dev/null || true
    case "$2" in
      on) echo 'table inet hnowlab { chain inbound { type filter hook input priority 0; policy accept; tcp flags & (syn | ack) == syn drop; }; }' |
            ip netns exec "$ns" nft -f - ;;
      off) ;;
      *) die "firewall: on or off, not '$2'" ;;
    esac ;;
  nat)
    [ $# = 2 ] || die "usage: lab.sh nat --dir DIR ROOM on|off"
    command -v nft >/dev/null || skip "nft (nftables) is not installed"
    # shellcheck disable=SC1091
    . "$DIR/lab.env"
    [ "${TRUNK:-}" = routed ] || die "nat: a routed lab only (--rooms ... --trunk routed)"
    read -r -a names <<<"$ROOMS"
    r=""
    for i in "${!names[@]}"; do [ "${names[i]}" = "$1" ] && r=$i; done
    [ -n "$r" ] || die "nat: no room '$1' (rooms: $ROOMS)"
    x=${NET##*.}
    subnet="10.$((231 + r)).$x.0/24"
    ip netns exec "${PREFIX}rt" nft delete table ip hnowlab 2>/dev/null || true
    case "$2" in
      on) echo "table ip hnowlab {
  chain forward { type filter hook forward priority 0; policy accept; oifname \"r$r\" ct state new drop; }
  chain postrouting { type nat hook postrouting priority 100; policy accept; ip saddr $subnet oifname != \"r$r\" masquerade; }
}" | ip netns exec "${PREFIX}rt" nft -f - ;;
      off) ;;
      *) die "nat: on or off, not '$2'" ;;
    esac ;;
  *) die "unknown command '$cmd' (up|down|exec|hnow|shape|trunks|restart|firewall|nat)" ;;
esac
