#!/usr/bin/env bash
# hnowd across rooms on real shaped links: rooms A and B (3 agents each) on
# their own subnets behind a router, B's trunk 50 Mbit/s each way, no site
# labels. Asserts that hnowd found the rooms by subnet and measured B's
# trunk each way; that a send enters B once (the trunk's counters: at most
# 1.10 F in); and that when the trunk is slowed to 20 Mbit/s with tc, which
# no hnow process is told of, the send's own flows show it (both their ends
# had room to spare), hnowd records it, re-plans the send, and plans the
# next one with it. Skips (77) without root.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
LAB="$HERE/lab.sh"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/hnow-netns-rooms-send-XXXXXX")
cleanup() {
  "$LAB" down --dir "$DIR" >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; tail -n 30 "$DIR"/logs/hnowd.log >&2 || true; exit 1; }
within() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; }

status=0
"$LAB" up --dir "$DIR" --survey-s 0.2,0.4 --agents 6 --rooms A,A,A,B,B,B --trunk routed --trunk-mbps B:50 \
  --uplink-mbps 400 --downlink-mbps 400 --source-uplink-mbps 400 --drift-dwell-s 0.5 || status=$?
[ $status = 77 ] && exit 77
[ $status = 0 ] || fail "the lab did not come up"

"$LAB" hnow --dir "$DIR" status --json >"$DIR/status.json"
rooms=$(jq '.rooms | length' "$DIR/status.json")
by=$(jq -r '.rooms[0].found_by' "$DIR/status.json")
[ "$rooms" = 2 ] && [ "$by" = subnets ] || fail "rooms: $(jq -c .rooms "$DIR/status.json")"
# Room B is agent-4's subnet (rooms found by subnet are named by it).
# shellcheck disable=SC1091
. "$DIR/lab.env"
read -r -a addrs <<<"$ADDRS"
b=$(jq -r --arg net "${addrs[4]%.*}." '.rooms[] | select(.name | startswith($net)) | .name' "$DIR/status.json")
[ -n "$b" ] || fail "no room for agent-4's subnet (${addrs[4]}): $(jq -c '[.rooms[].name]' "$DIR/status.json")"
trunk() { jq -r --arg b "$b" --arg d "$1" ".rooms[] | select(.name == \$b) | .trunk[\$d].$2" "$DIR/status.json"; }
for d in in out; do
  mbps=$(awk -v v="$(trunk $d bytes_per_s)" 'BEGIN { printf "%.1f", v * 8 / 1e6 }')
  echo "B's trunk $d: $mbps Mbit/s ($(trunk $d method))"
  [ "$(trunk $d method)" = probe ] || fail "B's trunk $d was not measured: $(trunk $d method)"
  # The test's 0.4 s probe windows: tbf's burst can add a tenth or so.
  within "$mbps" 40 60 || fail "B's trunk $d measured $mbps Mbit/s, shaped at 50"
done

in_b() { "$LAB" trunks --dir "$DIR" | awk '$1 == "B" { print $4 }'; }
size=$((24 << 20))
head -c $size /dev/urandom >"$DIR/file.bin"
before=$(in_b)
"$LAB" hnow --dir "$DIR" send "$DIR/file.bin" --dest in/one.bin --json >"$DIR/one.json" 2>"$DIR/one.err" ||
  fail "the first send failed: $(cat "$DIR/one.err")"
copies=$(awk -v b=$(($(in_b) - before)) -v f=$size 'BEGIN { printf "%.2f", b / f }')
echo "first send: $(jq -r .algo "$DIR/one.json"), $(jq .actual_s "$DIR/one.json") s (predicted $(jq .predicted_s "$DIR/one.json")), $copies F into B"
within "$copies" 0.95 1.10 || fail "the send took $copies F through B's trunk, not one copy"

# Slowed behind hnowd's back: the next send learns it from its own flows.
# (New bytes each time: hnow moves nothing an agent already holds.)
"$LAB" shape --dir "$DIR" trunk:B in 20
head -c $size /dev/urandom >"$DIR/file.bin"
before=$(in_b)
"$LAB" hnow --dir "$DIR" send "$DIR/file.bin" --dest in/two.bin --json >"$DIR/two.json" 2>"$DIR/two.err" ||
  fail "the second send failed: $(cat "$DIR/two.err")"
copies=$(awk -v b=$(($(in_b) - before)) -v f=$size 'BEGIN { printf "%.2f", b / f }')
# A re-plan that knows the trunk keeps to one copy into B.
within "$copies" 0.95 1.10 || fail "the second send took $copies F through B's trunk, not one copy"
want=$(sha256sum <"$DIR/file.bin" | cut -d' ' -f1)
for k in 1 2 3 4 5 6; do
  [ "$(sha256sum <"$DIR/agents/agent-$k/files/in/two.bin" | cut -d' ' -f1)" = "$want" ] ||
    fail "agent-$k's copy differs"
done
"$LAB" hnow --dir "$DIR" status --json >"$DIR/status.json"
mbps=$(awk -v v="$(trunk in bytes_per_s)" 'BEGIN { printf "%.1f", v * 8 / 1e6 }')
echo "second send: $(jq .actual_s "$DIR/two.json") s, $(jq .replans "$DIR/two.json") replans, $copies F into B; B's trunk in now $mbps Mbit/s ($(trunk in method))"
grep -q "trunk into room $b" "$DIR/logs/hnowd.log" || fail "hnowd did not re-plan for the slower trunk"
[ "$(trunk in method)" = passive ] || fail "B's trunk in was not learnt from the send: $(trunk in method)"
within "$mbps" 14 23 || fail "B's trunk in reads $mbps Mbit/s, slowed to 20"

# The next plan starts from it: 24 MiB through 20 Mbit/s takes 10 s at least.
head -c $size /dev/urandom >"$DIR/file.bin"
"$LAB" hnow --dir "$DIR" send "$DIR/file.bin" --dest in/three.bin --json >"$DIR/three.json" 2>"$DIR/three.err" ||
  fail "the third send failed: $(cat "$DIR/three.err")"
predicted=$(jq .predicted_s "$DIR/three.json")
echo "third send: predicted $predicted s, took $(jq .actual_s "$DIR/three.json") s"
within "$predicted" 8.5 1000 || fail "the next send predicted $predicted s, as if the trunk were still 50"
echo "PASS: rooms by subnet, the trunk measured, one copy into B, a slower trunk learnt from a send and planned with"
