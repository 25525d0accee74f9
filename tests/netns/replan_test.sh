#!/usr/bin/env bash
# Replanning over real shaped links: hnowd (200 Mbit/s up) and four
# agents in namespaces; agent-1 (400 up) relays to the three slow ones (40
# up). Mid-send its uplink is cut to 40 with tc, which no hnow process is
# told of: hnowd must notice from the copies' progress (progress_watch.h),
# have the ends probe, see the drift and move agent-1's children. Asserts a
# replan moved them and every copy is byte-identical. Skips (77) without root.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
LAB="$HERE/lab.sh"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/hnow-netns-replan-XXXXXX")
cleanup() {
  [ -z "${SEND_PID:-}" ] || kill "$SEND_PID" 2>/dev/null || true
  "$LAB" down --dir "$DIR" >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; tail -n 30 "$DIR"/logs/hnowd.log >&2 || true; exit 1; }

status=0
"$LAB" up --dir "$DIR" --survey-s 0.2,0.4 --agents 4 --uplink-mbps 400,40,40,40 --downlink-mbps 400 \
  --source-uplink-mbps 200 --drift-dwell-s 0.5 || status=$?
[ $status = 77 ] && exit 77
[ $status = 0 ] || fail "the lab did not come up"

head -c $((64 << 20)) /dev/urandom >"$DIR/file.bin"
want=$(sha256sum <"$DIR/file.bin" | cut -d' ' -f1)
"$LAB" hnow --dir "$DIR" send "$DIR/file.bin" --dest in/file.bin --json >"$DIR/report.json" 2>"$DIR/send.err" &
SEND_PID=$!
# Cut agent-1's uplink once the tree is known and about a fifth has moved.
for _ in $(seq 100); do
  grep -q "agent-1" "$DIR/send.err" 2>/dev/null && break
  sleep 0.1
done
sleep 0.8
"$LAB" shape --dir "$DIR" agent-1 up 40
wait "$SEND_PID" || fail "hnow send exited non-zero: $(cat "$DIR/send.err")"
SEND_PID=""

for k in 1 2 3 4; do
  [ "$(sha256sum <"$DIR/agents/agent-$k/files/in/file.bin" | cut -d' ' -f1)" = "$want" ] ||
    fail "agent-$k's copy differs"
done
replans=$(jq .replans "$DIR/report.json")
moved=$(jq '[.parent_changes[] | select(.old_parent == "agent-1")] | length' "$DIR/report.json")
jq -r '"replan: predicted \(.predicted_s) s, actual \(.actual_s) s, \(.replans) replans; changes: \([.parent_changes[] | "\(.node) \(.old_parent)->\(.new_parent) at \(.at_s | . * 10 | floor / 10) s"] | join(", "))"' "$DIR/report.json"
[ "$replans" -ge 1 ] || fail "no replan after agent-1's uplink was cut (report: $(cat "$DIR/report.json"))"
[ "$moved" -ge 1 ] || fail "no copy left agent-1 after its uplink was cut"
echo "PASS: a relay's link cut by tc was noticed from progress and re-planned around"
