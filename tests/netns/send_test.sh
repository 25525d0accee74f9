#!/usr/bin/env bash
# hnow send over real shaped links ("Real shaped links"): hnowd and
# four agents in their own network namespaces (tests/netns/lab.sh), uplinks
# 200/100/50 Mbit/s by tc tbf. Asserts what a send promises: every agent
# holds a byte-identical copy at the destination, no temp file is left, the
# report lists every copy, and hnowd serves the next send (to one site).
# Skips (exit 77) without root. Timing is bench/netns_send.sh's business.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
LAB="$HERE/lab.sh"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/hnow-netns-test-XXXXXX")
cleanup() {
  "$LAB" down --dir "$DIR" >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; echo "--- logs:" >&2; tail -n 20 "$DIR"/logs/*.log >&2 || true; exit 1; }

status=0
"$LAB" up --dir "$DIR" --survey-s 0.2,0.4 --agents 4 --uplink-mbps 200,100,50,200 --downlink-mbps 400 \
  --sites east,east,west,west || status=$?
[ $status = 77 ] && exit 77
[ $status = 0 ] || fail "the lab did not come up"

head -c $((12 << 20)) /dev/urandom >"$DIR/file.bin"
want=$(sha256sum <"$DIR/file.bin" | cut -d' ' -f1)

"$LAB" hnow --dir "$DIR" send "$DIR/file.bin" --dest in/file.bin --json >"$DIR/report.json" 2>/dev/null ||
  fail "hnow send exited non-zero: $(cat "$DIR/report.json")"
for k in 1 2 3 4; do
  copy="$DIR/agents/agent-$k/files/in/file.bin"
  [ -f "$copy" ] || fail "agent-$k has no copy"
  [ "$(sha256sum <"$copy" | cut -d' ' -f1)" = "$want" ] || fail "agent-$k's copy differs"
  leftovers=$(find "$DIR/agents/agent-$k/files" -name '*.part' | wc -l)
  [ "$leftovers" = 0 ] || fail "agent-$k kept $leftovers temp files"
done
[ "$(jq '.copies | length' "$DIR/report.json")" = 4 ] || fail "the report does not list 4 copies"
[ "$(jq '.failed | length' "$DIR/report.json")" = 0 ] || fail "the report lists failed copies"
jq -r '"send: predicted \(.predicted_s) s, actual \(.actual_s) s (\(.algo))"' "$DIR/report.json"

# The next request, to one site only, is served too. New bytes: the same
# file under another path of an agent's root would be copied there, not sent.
head -c $((4 << 20)) /dev/urandom >"$DIR/west.bin"
want_west=$(sha256sum <"$DIR/west.bin" | cut -d' ' -f1)
"$LAB" hnow --dir "$DIR" send "$DIR/west.bin" --dest in/west.bin --to west --json >"$DIR/west.json" 2>/dev/null ||
  fail "the send to site west exited non-zero"
[ "$(jq '.copies | length' "$DIR/west.json")" = 2 ] || fail "the site send does not list 2 copies"
for k in 3 4; do
  [ "$(sha256sum <"$DIR/agents/agent-$k/files/in/west.bin" | cut -d' ' -f1)" = "$want_west" ] ||
    fail "agent-$k's copy of the site send differs"
done
for k in 1 2; do
  [ ! -e "$DIR/agents/agent-$k/files/in/west.bin" ] || fail "agent-$k is in site east but received the site send"
done
echo "PASS: byte-identical copies over shaped namespaces"
