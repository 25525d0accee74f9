#!/usr/bin/env bash
# A room behind NAT (docs/reachability.md): rooms A (hnowd, 2 agents) and B
# (2 agents) behind a router that masquerades B and lets no connection into
# it, as a home router or a campus NAT does. B's agents log in from behind
# it; hnowd's own check finds them unreachable and plans them as leaves that
# pull from A; a send lands on all four; a run gives B's agents shares too,
# and they hand their results back over connections they open to hnowd.
# Skips (77) without root or nft.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
LAB="$HERE/lab.sh"
command -v nft >/dev/null || { echo "SKIP: nft (nftables) is not installed" >&2; exit 77; }
DIR=$(mktemp -d "${TMPDIR:-/tmp}/hnow-netns-nat-XXXXXX")
cleanup() {
  "$LAB" down --dir "$DIR" >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; tail -n 30 "$DIR"/logs/hnowd.log >&2 || true; exit 1; }

status=0
"$LAB" up --dir "$DIR" --survey-s 0.2,0.4 --agents 4 --rooms A,A,B,B --trunk routed --uplink-mbps 200 \
  --downlink-mbps 200 --source-uplink-mbps 200 || status=$?
[ $status = 77 ] && exit 77
[ $status = 0 ] || fail "the lab did not come up"

"$LAB" nat --dir "$DIR" B on
"$LAB" restart --dir "$DIR" agent-3
"$LAB" restart --dir "$DIR" agent-4
behind() { "$LAB" hnow --dir "$DIR" status --json | jq '[.agents[] | select(.state == "alive" and .reachable == false)] | length'; }
for _ in $(seq 150); do
  [ "$(behind)" = 2 ] && break
  sleep 0.2
done
[ "$(behind)" = 2 ] || fail "B's two agents are not alive and unreachable behind the NAT: $("$LAB" hnow --dir "$DIR" status --json | jq -c '[.agents[] | {name, state, reachable}]')"
"$LAB" hnow --dir "$DIR" status | grep "unreachable" || true

size=$((16 << 20))
head -c $size /dev/urandom >"$DIR/file.bin"
"$LAB" hnow --dir "$DIR" send "$DIR/file.bin" --dest in/nat.bin --json >"$DIR/send.json" 2>"$DIR/send.err" ||
  fail "the send failed: $(cat "$DIR/send.err")"
want=$(sha256sum <"$DIR/file.bin" | cut -d' ' -f1)
for k in 1 2 3 4; do
  [ "$(sha256sum <"$DIR/agents/agent-$k/files/in/nat.bin" | cut -d' ' -f1)" = "$want" ] || fail "agent-$k's copy differs"
done
echo "send through the NAT: $(jq -r .algo "$DIR/send.json"), $(jq .actual_s "$DIR/send.json") s"
if grep -q "cannot connect to agent-[34]" "$DIR/logs/hnowd.log"; then fail "a child was sent to an agent behind the NAT"; fi

seq 1 100000 >"$DIR/numbers.txt"
# The planned run may leave a slow agent out, whichever room it is in;
# --strategy equal gives every agent the same units, so both agents behind
# the NAT compute, and their results must come back over connections they
# open to hnowd's data port, none given to another agent.
for strategy in plan equal; do
  "$LAB" hnow --dir "$DIR" run --input "$DIR/numbers.txt" --cmd 'tr 0-9 a-j' --concat --strategy $strategy \
    --output "$DIR/letters-$strategy.txt" --json >"$DIR/run-$strategy.json" 2>"$DIR/run-$strategy.err" ||
    fail "the run ($strategy) failed: $(tail -n 3 "$DIR/run-$strategy.err")"
  [ "$(tr 0-9 a-j <"$DIR/numbers.txt" | sha256sum)" = "$(sha256sum <"$DIR/letters-$strategy.txt")" ] ||
    fail "the run's output ($strategy) differs"
  [ "$(jq .reissued "$DIR/run-$strategy.json")" = 0 ] ||
    fail "shares were reissued ($strategy): $(jq -c '[.agents[] | {name, failures}]' "$DIR/run-$strategy.json")"
  echo "run through the NAT ($strategy): units per agent $(jq -c '[.agents[] | {(.name): .units}] | add' "$DIR/run-$strategy.json")"
done
for k in 3 4; do
  units=$(jq --arg n "agent-$k" '[.agents[] | select(.name == $n) | .units] | add // 0' "$DIR/run-equal.json")
  [ "$units" -gt 0 ] ||
    fail "agent-$k, behind the NAT, took no share: $(jq -c '[.agents[] | {name, units, failures}]' "$DIR/run-equal.json")"
  grep -q "handing a job file to .* over a connection this agent opens" "$DIR/logs/agent-$k.log" ||
    fail "agent-$k did not hand its result back over a connection it opened"
done
if grep -q "takes no share" "$DIR/logs/hnowd.log"; then fail "hnowd left an agent behind the NAT out of a run"; fi
echo "PASS: a room behind NAT: its agents are leaves, a send lands on all four, a run gives them shares and their results come back"
