# shellcheck shell=bash disable=SC2034  # lab.sh uses the arrays set here
# Rooms for tests/netns/lab.sh (sourced by it, never run): a lab of several
# switches, one hub namespace and bridge per room, joined by trunks that tc
# can shape like any other link, so a send can be measured against links
# between rooms that are slower than the links inside them.
#
#   --rooms A,A,B,..       each agent's room (round-robin); rooms are numbered
#                          in the order they are first named, from 0
#   --source-room A        hnowd's room (default: the first room; a room no
#                          agent is in is added)
#   --trunk routed|l2      routed (default): a subnet per room, a router
#                          namespace joined to each room's bridge by that
#                          room's trunk, every node's default route via the
#                          router. l2: one subnet; room 0 is the core switch
#                          and every other room's bridge is joined to it by
#                          its trunk (two rooms: one veth between the hubs).
#   --trunk-mbps B:100,C:50/20   a room's trunk, IN/OUT (one number: both);
#   --trunk-mbps-in B:100, --trunk-mbps-out B:80   one direction only.
#                          IN is what the trunk carries into the room, OUT
#                          out of it; a room not named is not shaped (a line
#                          A-B-C: B unshaped, so the router is B's switch).
#   --site-labels rooms    every agent's site is its room's name
#
# Addresses: room r of a routed lab is 10.(231+r).X.0/24 (X the lab's free
# octet, so concurrent labs still do not collide), node K keeps host part
# K+1 in its room and the router is .254 in every room; l2 labs keep
# 10.231.X.0/24. Namespaces: <prefix>hub (room 0), <prefix>hub<r>,
# <prefix>rt (the router). A trunk's end in its room's hub is `trunk`, so
# its rx bytes came into the room and its tx bytes left it; the other end is
# r<r> in the router or t<r> in room 0's hub. IN is shaped on the other end,
# OUT on `trunk` (tbf shapes what a device sends). DIR/lab.env records
# ROOMS, TRUNK, TRUNK_IN, TRUNK_OUT (one word per room, - unshaped),
# NODE_ROOMS and ADDRS (one word per node, hnowd first); NET stays hnowd's
# subnet, so hnowd is $NET.1 as without rooms.

ROOM_LIST="" SOURCE_ROOM="" TRUNK="" TRUNK_MBPS="" TRUNK_MBPS_IN="" TRUNK_MBPS_OUT="" SITE_LABELS=""
ROOM_X="" ROOM_NAMES=() NODE_ROOM=() NODE_ADDR=() NODE_HUB=() TIN=() TOUT=()

room_index() { # NAME -> its number, or fails
  local r
  for r in "${!ROOM_NAMES[@]}"; do [ "${ROOM_NAMES[r]}" = "$1" ] && { echo "$r"; return 0; }; done
  return 1
}

add_room() { # NAME: numbered in the order rooms are first named
  [[ "$1" =~ ^[A-Za-z0-9_.-]+$ ]] || die "room names are letters, digits, _ . - (not '$1')"
  room_index "$1" >/dev/null || ROOM_NAMES+=("$1")
}

room_hub() { [ "$2" = 0 ] && echo "${1}hub" || echo "${1}hub$2"; } # PREFIX R -> namespace

trunk_far_end() { # PREFIX TRUNK R -> "NS DEV": the end of room R's trunk outside the room
  if [ "$2" = routed ]; then echo "${1}rt r$3"; else echo "${1}hub t$3"; fi
}

trunk_rates() { # LIST in|out|both
  local item r
  local -a items
  IFS=, read -r -a items <<<"$1"
  for item in "${items[@]}"; do
    [[ "$item" =~ ^([^:]+):([0-9]+)(/([0-9]+))?$ ]] || die "a trunk rate is ROOM:MBPS or ROOM:IN/OUT (whole Mbit/s), not '$item'"
    r=$(room_index "${BASH_REMATCH[1]}") || die "trunk of unknown room '${BASH_REMATCH[1]}'"
    [ "$TRUNK" = routed ] || [ "$r" != 0 ] ||
      die "in an l2 lab room ${ROOM_NAMES[0]} is the core: shape the other rooms' trunks"
    case $2 in
      both) TIN[r]=${BASH_REMATCH[2]} TOUT[r]=${BASH_REMATCH[4]:-${BASH_REMATCH[2]}} ;;
      in) TIN[r]=${BASH_REMATCH[2]} ;;
      out) TOUT[r]=${BASH_REMATCH[2]} ;;
    esac
    [ -z "${BASH_REMATCH[4]}" ] || [ "$2" = both ] || die "--trunk-mbps-$2 takes one rate per room"
  done
}

# Each node's room, hub, and address for octet X; without --rooms one room,
# 10.231.X.0/24 and <prefix>hub, as lab.sh has always laid a lab out.
rooms_plan() { # X
  local x=$1 k r list source
  ROOM_X=$x
  if [ -z "$ROOM_LIST" ]; then
    [ -z "$SOURCE_ROOM$TRUNK$TRUNK_MBPS$TRUNK_MBPS_IN$TRUNK_MBPS_OUT$SITE_LABELS" ] ||
      die "--source-room, --trunk*, --site-labels need --rooms"
    list=""
  else
    list=$ROOM_LIST
    TRUNK=${TRUNK:-routed}
    [ "$TRUNK" = routed ] || [ "$TRUNK" = l2 ] || die "--trunk is routed or l2, not '$TRUNK'"
    [ -z "$SITE_LABELS" ] || [ "$SITE_LABELS" = rooms ] || die "--site-labels takes only 'rooms'"
    [ -z "$SITE_LABELS" ] || [ -z "$SITES" ] || die "--sites or --site-labels, not both"
  fi
  ROOM_NAMES=()
  for ((k = 1; k <= AGENTS; k++)); do add_room "$(pick "${list:-room}" $((k - 1)))"; done
  source=${SOURCE_ROOM:-${ROOM_NAMES[0]}}
  add_room "$source"
  [ ${#ROOM_NAMES[@]} -le 8 ] || die "at most 8 rooms"
  [ -z "$TRUNK_MBPS" ] || trunk_rates "$TRUNK_MBPS" both
  [ -z "$TRUNK_MBPS_IN" ] || trunk_rates "$TRUNK_MBPS_IN" in
  [ -z "$TRUNK_MBPS_OUT" ] || trunk_rates "$TRUNK_MBPS_OUT" out
  for ((k = 0; k <= AGENTS; k++)); do
    if [ $k = 0 ]; then r=$(room_index "$source"); else r=$(room_index "$(pick "${list:-room}" $((k - 1)))"); fi
    NODE_ROOM[k]=$r
    NODE_HUB[k]=$(room_hub "hnl$x-" "$r")
    if [ "$TRUNK" = routed ]; then NODE_ADDR[k]="10.$((231 + r)).$x.$((k + 1))"; else NODE_ADDR[k]="10.231.$x.$((k + 1))"; fi
  done
}

rooms_env() { # lab.env's lines for a lab with rooms
  local r tin="" tout=""
  for r in "${!ROOM_NAMES[@]}"; do tin+=" ${TIN[r]:--}" tout+=" ${TOUT[r]:--}"; done
  printf 'ROOMS="%s"\nTRUNK=%s\nTRUNK_IN="%s"\nTRUNK_OUT="%s"\nNODE_ROOMS="%s"\nADDRS="%s"\n' \
    "${ROOM_NAMES[*]}" "$TRUNK" "${tin# }" "${tout# }" "${NODE_ROOM[*]}" "${NODE_ADDR[*]}"
}

# The router (routed) and every room's trunk, shaped per direction.
rooms_trunks() { # PREFIX
  local prefix=$1 r hub far dev
  if [ "$TRUNK" = routed ]; then
    ip netns add "${prefix}rt"
    ip -n "${prefix}rt" link set lo up
    ip netns exec "${prefix}rt" sysctl -qw net.ipv4.ip_forward=1
  fi
  for r in "${!ROOM_NAMES[@]}"; do
    [ "$TRUNK" = routed ] || [ "$r" != 0 ] || continue
    hub=$(room_hub "$prefix" "$r")
    read -r far dev <<<"$(trunk_far_end "$prefix" "$TRUNK" "$r")"
    ip link add trunk netns "$hub" type veth peer name "$dev" netns "$far"
    ip -n "$hub" link set trunk master br0 up
    if [ "$TRUNK" = routed ]; then
      ip -n "$far" addr add "$(room_gateway "$r")/24" dev "$dev"
      ip -n "$far" link set "$dev" up
    else
      ip -n "$far" link set "$dev" master br0 up
    fi
    [ -z "${TIN[r]:-}" ] || shape "$far" "$dev" "${TIN[r]}"
    [ -z "${TOUT[r]:-}" ] || shape "$hub" trunk "${TOUT[r]}"
  done
}

room_gateway() { echo "10.$((231 + $1)).$ROOM_X.254"; } # R -> the router's address in room R

# The L2 segments whose members pin each other's MAC addresses: every node
# of a room and the router's end in it (routed), or every node (l2, none).
rooms_pin() { # PREFIX
  local prefix=$1 r k
  local -a members
  if [ "$TRUNK" != routed ]; then
    members=()
    for ((k = 0; k <= AGENTS; k++)); do members+=("$(node_ns "$prefix" $k):eth0:${NODE_ADDR[k]}"); done
    pin_neighbors "${members[@]}"
    return
  fi
  for r in "${!ROOM_NAMES[@]}"; do
    members=("${prefix}rt:r$r:$(room_gateway "$r")")
    for ((k = 0; k <= AGENTS; k++)); do
      [ "${NODE_ROOM[k]}" = "$r" ] && members+=("$(node_ns "$prefix" $k):eth0:${NODE_ADDR[k]}")
    done
    pin_neighbors "${members[@]}"
  done
}

# lab.sh shape --dir D trunk:ROOM in|out MBPS (0: unshaped), from lab.env.
shape_trunk() { # ROOM in|out MBPS
  [ -n "${ROOMS:-}" ] || die "this lab has no rooms"
  local -a names
  local r far dev
  read -r -a names <<<"$ROOMS"
  ROOM_NAMES=("${names[@]}")
  r=$(room_index "$1") || die "unknown room '$1' (rooms: $ROOMS)"
  [ "$TRUNK" = routed ] || [ "$r" != 0 ] || die "in an l2 lab room $1 is the core and has no trunk"
  read -r far dev <<<"$(trunk_far_end "$PREFIX" "$TRUNK" "$r")"
  case "$2" in
    in) ;;
    out) far=$(room_hub "$PREFIX" "$r") dev=trunk ;;
    *) die "shape trunk:$1: in or out, not '$2'" ;;
  esac
  if [ "$3" = 0 ]; then tc -n "$far" qdisc del dev "$dev" root 2>/dev/null || true; else shape "$far" "$dev" "$3"; fi
}

# lab.sh trunks --dir D: one line per trunk, "ROOM IN_MBPS OUT_MBPS IN_BYTES
# OUT_BYTES" (- unshaped), the bytes counted by its end in the room's hub.
trunk_counters() {
  [ -n "${ROOMS:-}" ] || return 0
  local -a names tin tout
  local r
  read -r -a names <<<"$ROOMS"
  read -r -a tin <<<"$TRUNK_IN"
  read -r -a tout <<<"$TRUNK_OUT"
  for r in "${!names[@]}"; do
    [ "$TRUNK" = routed ] || [ "$r" != 0 ] || continue
    ip -n "$(room_hub "$PREFIX" "$r")" -s -j link show trunk |
      jq -r --arg n "${names[r]}" --arg i "${tin[r]}" --arg o "${tout[r]}" \
        '.[0].stats64 | "\($n) \($i) \($o) \(.rx.bytes) \(.tx.bytes)"'
  done
}
