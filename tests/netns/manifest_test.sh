#!/usr/bin/env bash
# hnow send --manifest over real shaped links: two items from two
# source agents (100 Mbit/s uplinks) to every other agent, in namespaces
# shaped by tc (tests/netns/lab.sh). Asserts byte-identical copies at every
# destination, none at a source for its own item, and no temp file left.
# Skips (77) without root.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
LAB="$HERE/lab.sh"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/hnow-netns-manifest-XXXXXX")
cleanup() {
  "$LAB" down --dir "$DIR" >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; tail -n 20 "$DIR"/logs/hnowd.log >&2 || true; exit 1; }

status=0
"$LAB" up --dir "$DIR" --survey-s 0.2,0.4 --agents 4 --uplink-mbps 100,100,400,400 --downlink-mbps 400 || status=$?
[ $status = 77 ] && exit 77
[ $status = 0 ] || fail "the lab did not come up"

for k in 1 2; do
  mkdir -p "$DIR/agents/agent-$k/files/data"
  head -c $((8 << 20)) /dev/urandom >"$DIR/agents/agent-$k/files/data/item$k.bin"
done
cat >"$DIR/m.toml" <<TOML
[[item]]
source = "agent-1"
file = "data/item1.bin"
dest = "in/item1.bin"
to = "all"

[[item]]
source = "agent-2"
file = "data/item2.bin"
dest = "in/item2.bin"
to = "all"
TOML
"$LAB" hnow --dir "$DIR" send --manifest "$DIR/m.toml" --json >"$DIR/report.json" 2>"$DIR/send.err" ||
  fail "hnow send --manifest exited non-zero: $(tail -3 "$DIR/send.err")"
for item in 1 2; do
  want=$(sha256sum <"$DIR/agents/agent-$item/files/data/item$item.bin" | cut -d' ' -f1)
  for k in 1 2 3 4; do
    copy="$DIR/agents/agent-$k/files/in/item$item.bin"
    if [ "$k" = "$item" ]; then
      [ ! -e "$copy" ] || fail "agent-$k received its own item"
      continue
    fi
    [ -f "$copy" ] || fail "agent-$k has no copy of item $item"
    [ "$(sha256sum <"$copy" | cut -d' ' -f1)" = "$want" ] || fail "agent-$k's copy of item $item differs"
  done
done
leftovers=$(find "$DIR/agents" -name '*.part' | wc -l)
[ "$leftovers" = 0 ] || fail "$leftovers temp files left"
[ "$(jq '[.items[].failed | length] | add' "$DIR/report.json")" = 0 ] || fail "the report lists failed copies"
jq -r '"manifest: \(.algo), predicted \(.predicted_s) s, actual \(.actual_s) s"' "$DIR/report.json"
echo "PASS: a two-source manifest over shaped namespaces"
