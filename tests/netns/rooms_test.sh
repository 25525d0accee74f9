#!/usr/bin/env bash
# Rooms in the namespace lab (tests/netns/rooms.sh): two rooms, routed,
# 2+2 agents on 400 Mbit/s links, room B's trunk 50 Mbit/s each way.
# Asserts with iperf3 that the trunk shapes what crosses it (both ways) and
# nothing else, that its counters see the bytes, that `lab.sh shape
# trunk:B` changes it live, and that a send reaches both rooms through the
# router. Skips (exit 77) without root.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
LAB="$HERE/lab.sh"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/hnow-netns-rooms-XXXXXX")
cleanup() {
  for pid in $(jobs -p); do kill "$pid" 2>/dev/null || true; done
  "$LAB" down --dir "$DIR" >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; echo "--- logs:" >&2; tail -n 20 "$DIR"/logs/*.log >&2 || true; exit 1; }
command -v iperf3 >/dev/null || { echo "SKIP: iperf3 is not installed" >&2; exit 77; }

status=0
# No site labels: a hnowd that knows rooms surveys their trunks now and then,
# and its flows would share the trunk with iperf3's.
"$LAB" up --dir "$DIR" --survey-s 0.2,0.4 --agents 4 --rooms A,A,B,B --trunk-mbps B:50 \
  --uplink-mbps 400 --downlink-mbps 400 || status=$?
[ $status = 77 ] && exit 77
[ $status = 0 ] || fail "the lab did not come up"
# shellcheck disable=SC1091
. "$DIR/lab.env"
read -r -a addrs <<<"$ADDRS"

port=5201
# Mbit/s iperf3 carried from node FROM to node TO in 2 s.
mbps() {
  port=$((port + 1))
  "$LAB" exec --dir "$DIR" "$2" iperf3 -s -1 -p $port >/dev/null 2>&1 &
  local server=$!
  sleep 0.3
  local k=0
  [ "$2" = hnowd ] || k=${2#agent-}
  "$LAB" exec --dir "$DIR" "$1" iperf3 -c "${addrs[k]}" -p $port -t 2 -J |
    jq '.end.sum_received.bits_per_second / 1e6 | floor'
  wait $server || true
}
within() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; }

before=$("$LAB" trunks --dir "$DIR" | awk '$1 == "B" { print $4 }')
in_b=$(mbps agent-1 agent-3)
echo "A to B: $in_b Mbit/s (trunk 50)"
within "$in_b" 40 52 || fail "A to B carried $in_b Mbit/s through a 50 Mbit/s trunk"
after=$("$LAB" trunks --dir "$DIR" | awk '$1 == "B" { print $4 }')
# 2 s at about 48 Mbit/s: 12 MB into B, as counted by the trunk.
within $(((after - before) / 1000000)) 9 14 || fail "B's trunk counted $((after - before)) bytes in for 2 s of 50 Mbit/s"
out_b=$(mbps agent-4 hnowd)
echo "B to A: $out_b Mbit/s"
within "$out_b" 40 52 || fail "B to A carried $out_b Mbit/s through a 50 Mbit/s trunk"
same_a=$(mbps agent-1 agent-2)
same_b=$(mbps agent-3 agent-4)
echo "A to A: $same_a Mbit/s, B to B: $same_b Mbit/s (links 400)"
within "$same_a" 200 420 || fail "A to A carried $same_a Mbit/s, the trunk is in the way"
within "$same_b" 200 420 || fail "B to B carried $same_b Mbit/s, the trunk is in the way"

"$LAB" shape --dir "$DIR" trunk:B in 20
slowed=$(mbps hnowd agent-4)
echo "A to B, trunk in slowed to 20: $slowed Mbit/s"
within "$slowed" 15 21 || fail "A to B carried $slowed Mbit/s after the trunk was slowed to 20"
"$LAB" shape --dir "$DIR" trunk:B in 50

head -c $((4 << 20)) /dev/urandom >"$DIR/file.bin"
want=$(sha256sum <"$DIR/file.bin" | cut -d' ' -f1)
"$LAB" hnow --dir "$DIR" send "$DIR/file.bin" --dest in/file.bin --json >"$DIR/report.json" 2>/dev/null ||
  fail "hnow send exited non-zero: $(cat "$DIR/report.json")"
for k in 1 2 3 4; do
  copy="$DIR/agents/agent-$k/files/in/file.bin"
  [ -f "$copy" ] || fail "agent-$k has no copy"
  [ "$(sha256sum <"$copy" | cut -d' ' -f1)" = "$want" ] || fail "agent-$k's copy differs"
done
echo "PASS: the trunk shapes what crosses rooms and nothing else; a send reaches both rooms"
