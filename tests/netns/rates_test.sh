#!/usr/bin/env bash
# Link rates measured over real shaped links (docs/link-rates.md), each
# asserted against its tc rate: within 10% (TCP's payload reads about 95%
# of a tbf rate), or reported as a bound no higher than it. A lab whose
# downlinks are four times hnowd's uplink (a probe from hnowd alone would
# read 100 Mbit/s for a 400 Mbit/s downlink); the rates again after a
# survey asked for while a send runs, after one while iperf3 fills a
# downlink and an uplink, and after each of five sends in a row, some with
# other traffic between them and some without, none of which may replan.
# Skips (exit 77) without root. Timing is the bench's business
# (bench/netns_rates.sh).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
LAB="$HERE/lab.sh"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/hnow-netns-rates-XXXXXX")
cleanup() {
  [ -f "$DIR/iperf.pids" ] && xargs -r kill <"$DIR/iperf.pids" 2>/dev/null || true
  "$LAB" down --dir "$DIR" >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; echo "--- hnowd log:" >&2; tail -n 40 "$DIR/logs/hnowd.log" >&2 || true; exit 1; }

UPS=200,200,100,100 DOWN=400 SOURCE=100
command -v iperf3 >/dev/null || { echo "SKIP: iperf3 is not installed (./dev.sh installs it)" >&2; exit 77; }
status=0
"$LAB" up --dir "$DIR" --survey-s 0.2,0.4 --agents 4 --uplink-mbps $UPS --downlink-mbps $DOWN --source-uplink-mbps $SOURCE || status=$?
[ $status = 77 ] && exit 77
[ $status = 0 ] || fail "the lab did not come up"

# check_rates WHEN: every link against its tc rate.
check_rates() {
  local when=$1
  "$LAB" hnow --dir "$DIR" status --json >"$DIR/status.json" || fail "$when: hnow status failed"
  local problems
  problems=$(jq -r --arg ups "$UPS" --argjson down "$DOWN" --argjson source "$SOURCE" '
    def mbps: . * 8 / 1e6;
    def check($name; $dir; $link; $tc):
      if $link.method == "unknown" then "\($name) \($dir): not measured"
      elif $link.method == "bound" then
        (if ($link.bytes_per_s | mbps) > $tc * 1.001 then "\($name) \($dir): bound \($link.bytes_per_s | mbps) above tc \($tc)" else empty end)
      elif (($link.bytes_per_s | mbps) - $tc | fabs) > 0.1 * $tc then
        "\($name) \($dir): \($link.bytes_per_s | mbps) Mbit/s (\($link.method)) against tc \($tc)"
      else empty end;
    ($ups | split(",") | map(tonumber)) as $u |
    [check("hnowd"; "uplink"; .coordinator.links.uplink; $source)] +
    [.agents[] | (.name | ltrimstr("agent-") | tonumber - 1) as $k |
      check(.name; "uplink"; .links.uplink; $u[$k % ($u | length)]),
      check(.name; "downlink"; .links.downlink; $down)] | .[]' "$DIR/status.json")
  [ -z "$problems" ] || fail "$when: $problems"
  # Every agent downlink is 400 and its peers can send 500 Mbit/s into it:
  # measured, not only bounded.
  local bounds
  bounds=$(jq '[.agents[] | select(.links.downlink.method == "bound")] | length' "$DIR/status.json")
  [ "$bounds" = 0 ] || fail "$when: $bounds agent downlinks are only bounds"
  jq -r '"\(.coordinator.links.uplink.bytes_per_s * 8 / 1e6 | floor)" as $h |
    "rates \($when): hnowd up \($h); " + ([.agents[] | "\(.name) \(.links.uplink.bytes_per_s * 8 / 1e6 | floor)/\(.links.downlink.bytes_per_s * 8 / 1e6 | floor) \(.links.downlink.method)"] | join(", "))' \
    --arg when "$when" "$DIR/status.json"
}

# iperf3 from one node to another for S seconds at M Mbit/s, in the background.
traffic() { # FROM TO SECONDS MBPS
  local to_ip port=$((5201 + RANDOM % 1000))
  . "$DIR/lab.env"
  to_ip="$NET.$((${2#agent-} + 1))"
  "$LAB" exec --dir "$DIR" "$2" iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
  echo $! >>"$DIR/iperf.pids"
  sleep 0.3
  "$LAB" exec --dir "$DIR" "$1" iperf3 -c "$to_ip" -p "$port" -t "$3" -b "${4}M" >/dev/null 2>&1 &
  echo $! >>"$DIR/iperf.pids"
}

check_rates "after the lab's survey"

head -c $((32 << 20)) /dev/urandom >"$DIR/file.bin"
want=$(sha256sum <"$DIR/file.bin" | cut -d' ' -f1)

# A survey asked for while a send runs: the send's traffic is counted, not
# mistaken for slower links.
"$LAB" hnow --dir "$DIR" send "$DIR/file.bin" --dest in/during.bin --json >"$DIR/during.json" 2>&1 &
send_pid=$!
sleep 1
"$LAB" hnow --dir "$DIR" measure >/dev/null || fail "hnow measure during a send failed"
wait $send_pid || fail "the send during the survey failed: $(cat "$DIR/during.json")"
rm -f "$DIR"/agents/*/files/in/during.bin  # else the sends below would copy it on each agent, not move it
check_rates "measured while a send ran"

# While iperf3 takes a quarter of agent-1's downlink (from agent-3) and of
# agent-2's uplink (to agent-4).
traffic agent-3 agent-1 12 100
traffic agent-2 agent-4 12 50
sleep 1
"$LAB" hnow --dir "$DIR" measure >/dev/null || fail "hnow measure under other traffic failed"
check_rates "measured while iperf3 ran"
other=$(jq '[.agents[] | select(.name == "agent-1") | .links.downlink.other_traffic_bytes_per_s][0]' "$DIR/status.json")
awk -v o="$other" 'BEGIN { exit !(o * 8 / 1e6 > 20) }' || fail "the other traffic into agent-1 was not seen ($other B/s)"
stop_traffic() {
  [ -f "$DIR/iperf.pids" ] && { xargs -r kill <"$DIR/iperf.pids" 2>/dev/null || true; }
  rm -f "$DIR/iperf.pids"
  sleep 0.5
}
stop_traffic

# Five sends in a row, other traffic between the 2nd and 3rd and the 4th and
# 5th: every copy right, no replan, the rates unchanged after each.
for n in 1 2 3 4 5; do
  "$LAB" hnow --dir "$DIR" send "$DIR/file.bin" --dest "in/row-$n.bin" --json >"$DIR/row-$n.json" 2>/dev/null ||
    fail "send $n failed: $(cat "$DIR/row-$n.json")"
  [ "$(jq '.failed | length' "$DIR/row-$n.json")" = 0 ] || fail "send $n has failed copies"
  [ "$(jq '.replans' "$DIR/row-$n.json")" = 0 ] || fail "send $n replanned: $(jq -c .parent_changes "$DIR/row-$n.json")"
  for k in 1 2 3 4; do
    [ "$(sha256sum <"$DIR/agents/agent-$k/files/in/row-$n.bin" | cut -d' ' -f1)" = "$want" ] ||
      fail "agent-$k's copy of send $n differs"
    rm -f "$DIR/agents/agent-$k/files/in/row-$n.bin"
  done
  jq -r --arg n "$n" '"send \($n): predicted \(.predicted_s * 100 | floor / 100) s, actual \(.actual_s * 100 | floor / 100) s"' "$DIR/row-$n.json"
  check_rates "after send $n"
  if [ $n = 2 ] || [ $n = 4 ]; then
    traffic agent-$((n % 4 + 1)) agent-$(((n + 1) % 4 + 1)) 2 1000
    sleep 2.5
    stop_traffic
  fi
done
echo "PASS: every link within 10% of its tc rate (or a bound below it), through sends and other traffic"
