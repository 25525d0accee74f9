#!/usr/bin/env bash
# An agent that accepts no inbound connection (a volunteer behind NAT or a
# host firewall: nft drops every inbound SYN in its namespace), on real
# shaped links (docs/reachability.md). agent-1 has the fastest uplink, so
# every plan wants it as a relay. Its firewall goes up after its links were
# measured: the first send still lands on every agent, its children having
# given up connecting within seconds and moved; hnowd and `hnow status` name
# it unreachable; the next send plans it as a leaf from the start (no child
# tries it). Restarted behind its firewall, hnowd's own check at
# registration finds it; with the firewall down and restarted, it is
# reachable again. Skips (77) without root or nft.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
LAB="$HERE/lab.sh"
command -v nft >/dev/null || { echo "SKIP: nft (nftables) is not installed" >&2; exit 77; }
DIR=$(mktemp -d "${TMPDIR:-/tmp}/hnow-netns-unreachable-XXXXXX")
cleanup() {
  "$LAB" down --dir "$DIR" >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; tail -n 30 "$DIR"/logs/hnowd.log >&2 || true; exit 1; }

status=0
"$LAB" up --dir "$DIR" --survey-s 0.2,0.4 --agents 4 --uplink-mbps 400,100,100,100 --downlink-mbps 400 \
  --source-uplink-mbps 100 || status=$?
[ $status = 77 ] && exit 77
[ $status = 0 ] || fail "the lab did not come up"

reachable() { "$LAB" hnow --dir "$DIR" status --json | jq -r '.agents[] | select(.name == "agent-1") | .reachable'; }
note() { "$LAB" hnow --dir "$DIR" status --json | jq -r '.agents[] | select(.name == "agent-1") | .unreachable // ""'; }
refusals() { grep -c "cannot connect to agent-1" "$DIR/logs/hnowd.log" || true; }
check_copies() {
  local want k
  want=$(sha256sum <"$DIR/file.bin" | cut -d' ' -f1)
  for k in 1 2 3 4; do
    [ "$(sha256sum <"$DIR/agents/agent-$k/files/in/$1" | cut -d' ' -f1)" = "$want" ] || fail "agent-$k's copy of $1 differs"
  done
}
[ "$(reachable)" = true ] || fail "agent-1 is unreachable before its firewall went up"

"$LAB" firewall --dir "$DIR" agent-1 on
size=$((32 << 20))
head -c $size /dev/urandom >"$DIR/file.bin"
"$LAB" hnow --dir "$DIR" send "$DIR/file.bin" --dest in/one.bin --json >"$DIR/one.json" 2>"$DIR/one.err" ||
  fail "the first send failed: $(cat "$DIR/one.err")"
check_copies one.bin
echo "first send (agent-1 firewalled after its links were measured): $(jq -r .algo "$DIR/one.json"), $(jq .actual_s "$DIR/one.json") s (predicted $(jq .predicted_s "$DIR/one.json")), $(refusals) child report(s) of agent-1 refusing"
[ "$(refusals)" -ge 1 ] || fail "no child reported agent-1 unreachable: was it planned as a relay at all?"
[ "$(reachable)" = false ] || fail "hnow status still shows agent-1 reachable"
echo "hnow status: $(note)"

before=$(refusals)
head -c $size /dev/urandom >"$DIR/file.bin"
"$LAB" hnow --dir "$DIR" send "$DIR/file.bin" --dest in/two.bin --json >"$DIR/two.json" 2>"$DIR/two.err" ||
  fail "the second send failed: $(cat "$DIR/two.err")"
check_copies two.bin
# Kumar-Ross without agent-1's uplink: 4 destinations fed by hnowd's 100 and
# three 100 Mbit/s uplinks, at most 400 each; hnowd's own 100 bounds it too.
bound=$(awk -v f=$size 'BEGIN { printf "%.2f", f * 8 / 100e6 }')
echo "second send: $(jq .actual_s "$DIR/two.json") s (predicted $(jq .predicted_s "$DIR/two.json"), bound without agent-1's uplink $bound s)"
[ "$(refusals)" = "$before" ] || fail "a child of the second send tried agent-1 again"
awk -v a="$(jq .actual_s "$DIR/two.json")" -v b="$bound" 'BEGIN { exit !(a <= 2 * b) }' ||
  fail "the second send took more than twice the bound without agent-1's uplink"

"$LAB" restart --dir "$DIR" agent-1
for _ in $(seq 100); do
  case "$(note)" in "hnowd cannot connect"*) break ;; esac
  sleep 0.2
done
case "$(note)" in "hnowd cannot connect"*) ;; *) fail "restarted behind its firewall, hnowd did not find agent-1 unreachable: '$(note)'" ;; esac
echo "restarted: $(note)"

"$LAB" firewall --dir "$DIR" agent-1 off
"$LAB" restart --dir "$DIR" agent-1
for _ in $(seq 100); do
  [ "$(reachable)" = true ] && break
  sleep 0.2
done
[ "$(reachable)" = true ] || fail "with its firewall down and restarted, agent-1 is still unreachable"
echo "PASS: an agent behind a firewall: the send lands, it is planned as a leaf, hnowd's own check finds it, and it is reachable again without the firewall"
