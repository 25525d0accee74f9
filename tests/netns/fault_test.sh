#!/usr/bin/env bash
# The fault matrix over real shaped links (tests/netns/lab.sh): hnowd
# and four agents in their own namespaces, every uplink 40 Mbit/s by tc tbf,
# a 12 MiB send along a chain (hnowd > agent-1 > agent-2 > agent-3 > agent-4)
# and the inner node agent-2 SIGKILLed at half the send. Asserts what the
# local fault matrix asserts (tests/process/fault_matrix_test.cc): its
# children are re-parented and complete byte-identical, only the killed one
# is reported failed ("agent lost"), nothing partial at its destination, no
# temp file under a live root, and the next send reaches every live agent.
# Skips (exit 77) without root.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
LAB="$HERE/lab.sh"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/hnow-netns-fault-XXXXXX")
cleanup() {
  "$LAB" down --dir "$DIR" >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; echo "--- logs:" >&2; tail -n 20 "$DIR"/logs/*.log "$DIR"/send.err >&2 || true; exit 1; }

status=0
"$LAB" up --dir "$DIR" --survey-s 0.2,0.4 --agents 4 --uplink-mbps 40 --downlink-mbps 400 --source-uplink-mbps 40 || status=$?
[ $status = 77 ] && exit 77
[ $status = 0 ] || fail "the lab did not come up"

SIZE=$((12 << 20))
head -c $SIZE /dev/urandom >"$DIR/file.bin"
want=$(sha256sum <"$DIR/file.bin" | cut -d' ' -f1)

started=$(date +%s.%N)
"$LAB" hnow --dir "$DIR" send "$DIR/file.bin" --dest in/f.bin --algo chain --json >"$DIR/report.json" 2>"$DIR/send.err" &
sender=$!

# The inner node: an agent whose parent is an agent and that has a child.
tree=""
for _ in $(seq 500); do
  tree=$(grep -o 'tree (parent>node):.*' "$DIR/send.err" || true)
  [ -n "$tree" ] && break
  sleep 0.02
done
[ -n "$tree" ] || fail "hnow send printed no tree"
edges=${tree#tree (parent>node): }
victim=""
for edge in $edges; do
  node=${edge#*>} parent=${edge%>*}
  [ "$parent" = hnowd ] && continue
  grep -q " $node>" <<<" $edges" && { victim=$node; break; }
done
[ -n "$victim" ] || fail "no inner node in '$tree'"

# Progress as the disks see it: bytes of in/f.bin held by every agent.
held() {
  local total=0 k f s
  for k in 1 2 3 4; do
    s=0
    for f in "$DIR/agents/agent-$k/files/in/f.bin" "$DIR/agents/agent-$k/files/in/".f.bin.hnow-*.part; do
      [ -f "$f" ] && s=$(stat -c %s "$f" 2>/dev/null || echo 0) && break
    done
    total=$((total + s))
  done
  echo $total
}
for _ in $(seq 2000); do
  [ "$(held)" -ge $((SIZE * 4 / 2)) ] && break
  sleep 0.01
done
at=$(($(held) * 100 / (SIZE * 4)))
kill -KILL "$(cat "$DIR/pids/$victim.pid")"
rc=0
wait $sender || rc=$?
elapsed=$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')

[ $rc = 1 ] || fail "hnow send exited $rc, not 1 (one copy failed)"
[ "$(jq -r '.failed | length' "$DIR/report.json")" = 1 ] || fail "not exactly one failed copy"
[ "$(jq -r '.failed[0].node' "$DIR/report.json")" = "$victim" ] || fail "the failed copy is not $victim's"
[ "$(jq -r '.failed[0].reason' "$DIR/report.json")" = "agent lost" ] || fail "the failure is not 'agent lost'"
[ "$(jq -r '.copies | length' "$DIR/report.json")" = 3 ] || fail "the report does not list 3 copies"
for k in 1 2 3 4; do
  copy="$DIR/agents/agent-$k/files/in/f.bin"
  if [ "agent-$k" = "$victim" ]; then
    [ ! -e "$copy" ] || [ "$(sha256sum <"$copy" | cut -d' ' -f1)" = "$want" ] || fail "$victim has a partial copy"
    continue
  fi
  [ "$(sha256sum <"$copy" | cut -d' ' -f1)" = "$want" ] || fail "agent-$k's copy differs"
  [ "$(find "$DIR/agents/agent-$k/files" -name '*.hnow-*.part' | wc -l)" = 0 ] || fail "agent-$k kept a temp file"
done
[ "$(jq -r --arg v "$victim" '[.copies[] | select(.parent == $v)] | length' "$DIR/report.json")" = 0 ] ||
  fail "a copy still names $victim as its parent"

# The daemons serve the next request: a small send to the live agents.
head -c 65536 /dev/urandom >"$DIR/small.bin"
"$LAB" hnow --dir "$DIR" send "$DIR/small.bin" --dest in/small.bin --json >"$DIR/small.json" 2>/dev/null ||
  fail "the follow-up send exited non-zero"
[ "$(jq -r '.copies | length' "$DIR/small.json")" = 3 ] || fail "the follow-up send did not reach the 3 live agents"
echo "PASS: inner node $victim killed at ${at}% of a chain send over shaped links; send ${elapsed} s, children re-parented"
